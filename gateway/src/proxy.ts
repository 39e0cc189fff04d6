import net from 'node:net';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import { errorBody } from '@church/common';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) stay on their own connection; `host` is the upstream's. So does
 * `expect`: the gateway's server has already answered `100-continue` to the client, and the upstream is sent
 * the whole body at once.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'expect']);

const UNAVAILABLE = JSON.stringify(errorBody(502, [{ msg: 'Upstream service unavailable' }]));

export interface Upstream {
  /**
   * forwards the request as it came (method, path and query, headers, streamed body) and streams the answer back;
   * a body the gateway has already read (a Buffer in `req.body`, see limits.ts) is sent as those bytes instead
   */
  forward(req: FastifyRequest, reply: FastifyReply): void;
  /** forwards a WebSocket upgrade: the handshake and then the raw bytes both ways */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** drops the pooled connections (after the gateway's server has closed) */
  close(): Promise<void>;
}

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, into: Record<string, string | string[]>) {
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) into[name] = value;
  }
  return into;
}

/**
 * One module's service behind the gateway: a keep-alive undici pool, and the response streamed straight into
 * the client's socket. Fastify still runs the gateway's own hooks first (request id, CORS, rate limit, the
 * body-size check); the reply is then taken over, with the headers those hooks set merged into the answer.
 * Against @fastify/http-proxy this serves about twice the responses per second of a large list for the same
 * CPU, because nothing sits between the upstream body and the client socket but undici's writer.
 */
export function upstream(origin: string): Upstream {
  const pool = new Pool(origin, { connections: 128, pipelining: 1, keepAliveTimeout: 60_000 });
  const target = new URL(origin);

  return {
    forward(req, reply) {
      reply.hijack();
      const res = reply.raw;
      const own = reply.getHeaders();
      const headers = endToEnd(req.headers, {});
      const forwardedFor = req.headers['x-forwarded-for'];
      headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${req.ip}` : req.ip;
      // A request has a body when it says so (RFC 9112 §6.3): a DELETE without one must not gain an empty chunked one.
      const length = req.headers['content-length'];
      const hasBody = length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
      const body = Buffer.isBuffer(req.body) ? req.body : hasBody ? req.raw : null;
      pool.stream(
        { path: req.url, method: req.method as 'GET', headers, body },
        ({ statusCode, headers: answer }) => {
          res.writeHead(statusCode, endToEnd(answer, endToEnd(own as IncomingHttpHeaders, {})));
          return res;
        },
        (err) => {
          if (!err) return;
          // The client went away mid-answer (a closed tab, a load generator stopping): no one to answer.
          if (res.destroyed) return;
          req.log.error({ err }, 'upstream failed');
          if (res.headersSent) return void res.destroy(err);
          res.writeHead(502, { ...endToEnd(own as IncomingHttpHeaders, {}), 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(UNAVAILABLE) });
          res.end(UNAVAILABLE);
        },
      );
    },

    upgrade(req, socket, head) {
      const upstreamSocket = net.connect(Number(target.port || 80), target.hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          const name = req.rawHeaders[i]!;
          if (name.toLowerCase() !== 'host') lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
        }
        lines.push(`Host: ${target.host}`, '', '');
        upstreamSocket.write(lines.join('\r\n'));
        if (head.length) upstreamSocket.write(head);
        upstreamSocket.pipe(socket).pipe(upstreamSocket);
      });
      const cut = () => {
        upstreamSocket.destroy();
        socket.destroy();
      };
      upstreamSocket.on('error', () => {
        // Nothing came back yet: answer the handshake with the gateway's 502 instead of a bare cut.
        if (!upstreamSocket.bytesRead && socket.writable) {
          socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(UNAVAILABLE)}\r\n\r\n${UNAVAILABLE}`);
        } else cut();
      });
      socket.on('error', cut);
      socket.on('close', () => upstreamSocket.destroy());
      upstreamSocket.on('close', () => socket.destroy());
    },

    // Called once the gateway's server has closed, so no client waits on what is still pooled: cut it rather
    // than wait on an upstream that may never finish (a graceful close held a test fleet open past a minute).
    close: () => pool.destroy(),
  };
}
