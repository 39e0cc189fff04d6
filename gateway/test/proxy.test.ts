import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import WebSocket, { WebSocketServer } from 'ws';
import { loadConfig, MODULES, type ModuleName } from '@church/common';
import { buildGateway } from '../src/app';
import { gatewayConfig } from '../src/config';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// The gateway against stand-in services: what reaches a service, what comes back, and what happens when
// a service is down. The embedded fleet's own tests (gateway.test.ts) cover the real services.
describe('gateway forwarding', () => {
  const seen: Seen[] = [];
  let service: Server;
  let sockets: WebSocketServer;
  let gateway: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    service = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url!.includes('slow')) {
          // Half an answer, the rest much later: a client may hang up in between.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('['.padEnd(64 * 1024, ' '));
          setTimeout(() => res.end(']'), 300);
          return;
        }
        res.writeHead(req.url!.includes('teapot') ? 418 : 200, { 'content-type': 'application/json', 'x-from-service': 'yes', connection: 'keep-alive' });
        res.end(JSON.stringify({ echoed: body.length }));
      });
    });
    sockets = new WebSocketServer({ server: service });
    sockets.on('connection', (socket, req) => socket.on('message', (data) => socket.send(`${req.url} ${String(data)}`)));
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    // Every module points at the stand-in, except reporting, which points at a closed port.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const down = urlOf(closed);
    await new Promise((resolve) => closed.close(resolve));
    const upstreams = Object.fromEntries(MODULES.map((m) => [m, m === 'reporting' ? down : urlOf(service)])) as Record<ModuleName, string>;
    gateway = await buildGateway(loadConfig(gatewayConfig, { LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false' }), upstreams);
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    url = urlOf(gateway.server);
  });
  afterAll(async () => {
    await gateway.close();
    sockets.close();
    await new Promise((resolve) => service.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  it('forwards method, path, query, headers and the body unchanged, and the answer back', async () => {
    const body = JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => ({ i })) });
    const res = await fetch(`${url}/Giving/donations/batch?x=1&y=%20two`, {
      method: 'PUT',
      headers: { authorization: 'Bearer abc', 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-from-service')).toBe('yes');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toEqual({ echoed: body.length });
    const [got] = seen;
    expect(got).toMatchObject({ method: 'PUT', url: '/Giving/donations/batch?x=1&y=%20two', body });
    expect(got!.headers.authorization).toBe('Bearer abc');
    expect(got!.headers['x-request-id']).toBe(res.headers.get('x-request-id'));
    // The client's address is appended to what it claimed, never replaced by it.
    expect(got!.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
  });

  it('passes the service’s status through, and a body of any content type', async () => {
    const res = await fetch(`${url}/doing/teapot`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2' });
    expect(res.status).toBe(418);
    expect(seen[0]).toMatchObject({ method: 'POST', body: 'a,b\n1,2' });
  });

  it('takes a body sent after `Expect: 100-continue` (curl does so above 1 KB) and forwards it without the expectation', async () => {
    const body = JSON.stringify({ note: 'x'.repeat(4096) });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${url}/membership/people`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, text: JSON.stringify({ echoed: body.length }) });
    expect(seen[0]).toMatchObject({ method: 'POST', body });
    expect(seen[0]!.headers.expect).toBeUndefined();
  });

  it('forwards a DELETE without a body as one without a body', async () => {
    const res = await fetch(`${url}/membership/people/abc`, { method: 'DELETE', headers: { authorization: 'Bearer abc' } });
    expect(res.status).toBe(200);
    expect(seen[0]).toMatchObject({ method: 'DELETE', body: '' });
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('keeps its own metrics (event-loop lag, request durations) off the public port', async () => {
    await fetch(`${url}/membership/anything`);
    const text = await gateway.metricsRegistry.metrics();
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/membership\/\*",status="200"\} \d+/);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });

  it('answers 502 in the error shape when the service is down', async () => {
    const res = await fetch(`${url}/reporting/anything`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ errors: ['Upstream service unavailable'] });
  });

  it('stays up when a client hangs up in the middle of an answer', async () => {
    // As a load generator ends a run: many keep-alive connections cut, some mid-answer, some before it.
    const agent = new Agent({ keepAlive: true });
    const cut = Array.from({ length: 10 }, (_, i) =>
      new Promise<void>((resolve) => {
        const req = request(`${url}/content/slow?${i}`, { agent }, (res) => res.once('data', () => req.destroy()));
        req.on('close', resolve);
        req.on('error', () => undefined);
        req.end();
        if (i % 2) setTimeout(() => req.destroy(), 5);
      }),
    );
    await Promise.all(cut);
    agent.destroy();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await fetch(`${url}/content/fine`)).status).toBe(200);
  });

  it('passes WebSocket upgrades through to the module', async () => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/messaging/socket?room=1`);
    const reply = await new Promise<string>((resolve, reject) => {
      socket.on('open', () => socket.send('hello'));
      socket.on('message', (data) => resolve(String(data)));
      socket.on('error', reject);
    });
    socket.close();
    expect(reply).toBe('/messaging/socket?room=1 hello');
  });

  it('refuses upgrades to internal routes and to unknown prefixes', async () => {
    for (const path of ['/messaging/internal/socket', '/nowhere/socket']) {
      const status = await new Promise<number>((resolve) => {
        const socket = new WebSocket(`${url.replace('http', 'ws')}${path}`);
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('error', () => resolve(-1));
      });
      expect(status).toBe(404);
    }
  });
});
