import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import proxy from '@fastify/http-proxy';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastifyStatic from '@fastify/static';
import { MODULES, type ModuleName } from '@church/common';
import type { GatewayConfig } from './config';

/** Public identity and token routes: rate limited per client address (NOTES.md). */
const LIMITED = /^\/membership\/(users\/(login|register|forgot|setpasswordguid|verifycredentials)|oauth\/(token|device\/authorize))\/?(\?|$)/i;
/** Internal routes are for signed service-to-service calls only and are never reachable from outside. */
const INTERNAL = /^\/[a-z]+\/internal(\/|\?|$)/i;

/**
 * The edge: one proxy per module prefix (URLs are forwarded unchanged, keep-alive pools to each service),
 * CORS, body limits, request ids, rate limits, aggregated health and the API docs. No business rules.
 */
export async function buildGateway(config: GatewayConfig, upstreams: Record<ModuleName, string>): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : { level: config.LOG_LEVEL },
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500 },
    bodyLimit: config.BODY_LIMIT,
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) || randomUUID(),
    trustProxy: config.TRUST_PROXY,
  });

  app.setNotFoundHandler((req, reply) => reply.code(404).send({ errors: [{ msg: `Route ${req.method}:${req.url.split('?')[0]} not found` }] }));
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 502;
    if (status >= 500) req.log.error({ err }, 'gateway error');
    return reply.code(status).send({ errors: [{ msg: status === 502 ? 'Upstream service unavailable' : err.message }] });
  });

  app.addHook('onRequest', async (req, reply) => {
    // Every service sees the same request id, so one request can be followed across the fleet's logs.
    req.headers['x-request-id'] = req.id;
    reply.header('x-request-id', req.id);
    if (INTERNAL.test(req.url)) return reply.code(404).send({ errors: [{ msg: `Route ${req.method}:${req.url.split('?')[0]} not found` }] });
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > config.BODY_LIMIT) return reply.code(413).send({ errors: [{ msg: 'Body is too large' }] });
  });

  const origins = config.CORS_ORIGINS.trim() === '*' ? true : config.CORS_ORIGINS.split(',').map((o) => o.trim());
  await app.register(cors, { origin: origins, credentials: true, maxAge: 600, exposedHeaders: ['x-request-id', 'retry-after'] });

  if (config.RATE_LIMIT_ENABLED) {
    await app.register(rateLimit, {
      global: true,
      max: config.RATE_LIMIT_MAX,
      timeWindow: config.RATE_LIMIT_WINDOW_MS,
      allowList: (req) => req.method === 'OPTIONS' || !LIMITED.test(req.url),
      keyGenerator: (req) => `${req.ip}|${req.url.split('?')[0]!.toLowerCase().replace(/\/$/, '')}`,
      // Thrown, so the error handler shapes it like every other error body.
      errorResponseBuilder: (_req, ctx) => Object.assign(new Error(`Too many requests, retry in ${Math.ceil(ctx.ttl / 1000)} s`), { statusCode: 429 }),
    });
  }

  for (const module of MODULES) {
    await app.register(proxy, {
      upstream: upstreams[module],
      prefix: `/${module}`,
      rewritePrefix: `/${module}`,
      websocket: module === 'messaging',
      undici: { connections: 128, pipelining: 1, keepAliveTimeout: 60_000 },
      // Close the pooled upstream sockets with the gateway, so the services' own close is not held open by them.
      ...({ destroyAgent: true } as object),
    });
  }

  // The gateway's own liveness and readiness (probes): /health below aggregates the modules, and one module's
  // outage must not take the whole edge out of rotation.
  app.get('/live', async () => ({ status: 'ok', service: 'gateway' }));

  app.get('/health', async (_req, reply) => {
    const entries = await Promise.all(
      MODULES.map(async (m) => {
        try {
          const res = await fetch(`${upstreams[m]}/health`, { signal: AbortSignal.timeout(2000) });
          return [m, res.ok ? 'ok' : `status ${res.status}`] as const;
        } catch {
          return [m, 'unreachable'] as const;
        }
      }),
    );
    const services = Object.fromEntries(entries);
    const ok = entries.every(([, s]) => s === 'ok');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', services });
  });

  await app.register(swagger, { openapi: { info: { title: 'Church platform API', version: '1.0.0' } } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { urls: MODULES.map((m) => ({ url: `/${m}/docs/json`, name: m })) },
  });

  if (config.FILES_DIR) {
    await app.register(fastifyStatic, { root: path.resolve(config.FILES_DIR), prefix: '/files/', decorateReply: false });
  }
  return app;
}
