import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { eventually } from './setup';

export interface Received {
  churchId: string;
  conversationId: string;
  action: string;
  data: unknown;
}

/** A real WebSocket client on `/messaging/ws` that keeps what it receives. */
export async function openSocket(app: FastifyInstance) {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/messaging/ws`);
  const received: Received[] = [];
  ws.on('message', (raw) => received.push(JSON.parse(raw.toString()) as Received));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const hello = await eventually(() => received.find((r) => r.action === 'socketId'));
  return {
    ws,
    received,
    socketId: hello.data as string,
    /** the first message with this action (and matching `where`), waiting for it */
    waitFor: (action: string, where: (r: Received) => boolean = () => true, ms = 5000) => eventually(() => received.find((r) => r.action === action && where(r)), ms),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
