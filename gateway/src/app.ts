import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastifyStatic from '@fastify/static';
import { MODULES, STORED_FILE_HEADERS, clientErrorHandler, createMetrics, errorBody, logSerializers, routeNotFound, timeRequests, type ModuleName } from '@church/common';
import type { GatewayConfig } from './config';
import { gatewayBodyParser, registerRateLimits, routePath } from './limits';
import { upstream } from './proxy';

declare module 'fastify' {
  interface FastifyInstance {
    /** the gateway's Prometheus registry (served by main.ts on METRICS_PORT) */
    metricsRegistry: ReturnType<typeof createMetrics>;
  }
}

/** Internal routes are for signed service-to-service calls only and are never reachable from outside (on `routePath`). */
const INTERNAL = /^\/[a-z]+\/internal(\/|$)/;
/** The spec's Internal routes outside `/internal/`: they exist, and are refused here like any unauthorised call. */
const SPEC_INTERNAL = /^\/membership\/people\/apiemails$/;

/**
 * Paths served by another module than their prefix names. The current apps manage campuses under membership
 * (`/membership/campuses…`); attendance owns the campus rows and serves those paths too, so there is one owner.
 */
export const ROUTED_ELSEWHERE: ReadonlyArray<{ path: string; module: ModuleName }> = [{ path: '/membership/campuses', module: 'attendance' }];

/**
 * The edge: one proxy per module prefix (URLs are forwarded unchanged, keep-alive pools to each service),
 * CORS, body limits, request ids, rate limits, aggregated health and the API docs. No business rules.
 */
export async function buildGateway(config: GatewayConfig, upstreams: Record<ModuleName, string>): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : { level: config.LOG_LEVEL, serializers: logSerializers },
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500 },
    bodyLimit: config.BODY_LIMIT,
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) || randomUUID(),
    trustProxy: config.TRUST_PROXY,
    // Slow clients: headers within HEADERS_TIMEOUT_MS; bodies are bounded by the body parser (limits.ts).
    connectionTimeout: 0,
    requestTimeout: config.BODY_TIMEOUT_MS + config.HEADERS_TIMEOUT_MS,
    http: { headersTimeout: config.HEADERS_TIMEOUT_MS },
    clientErrorHandler,
    // The router refuses a malformed escape in the path before any hook runs: answer it in the error shape too.
    frameworkErrors: (err, _req, reply) => {
      const status = err.statusCode ?? 400;
      void (reply as FastifyReply).code(status).send(errorBody(status, [{ msg: err.message }]));
    },
  });
  app.decorateRequest('routePath', '');

  app.setNotFoundHandler((req, reply) => reply.code(404).send(routeNotFound(req.method, req.url)));
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 502;
    if (status >= 500) req.log.error({ err }, 'gateway error');
    // The body was refused unread: what is left of it on the socket cannot be read as a next request.
    if (status === 413 || status === 408) reply.header('connection', 'close');
    return reply.code(status).send(errorBody(status, [{ msg: status === 502 ? 'Upstream service unavailable' : err.message }]));
  });

  app.addHook('onRequest', async (req, reply) => {
    // Every service sees the same request id, so one request can be followed across the fleet's logs.
    req.headers['x-request-id'] = req.id;
    reply.header('x-request-id', req.id);
    // Routes are told apart by the path the service will match, never by the raw spelling (`/Membership/%69nternal`).
    const path = routePath(req.url);
    if (path === undefined) return reply.code(400).send(errorBody(400, [{ msg: 'Malformed escape in the URL', param: 'url', location: 'path' }]));
    req.routePath = path;
    if (INTERNAL.test(path)) return reply.code(404).send(routeNotFound(req.method, req.url));
    if (SPEC_INTERNAL.test(path)) return reply.code(401).send(errorBody(401, [{ msg: 'This route is for server-to-server calls only' }]));
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > config.BODY_LIMIT) return reply.code(413).header('connection', 'close').send(errorBody(413, [{ msg: 'Body is too large' }]));
  });

  // Any origin may call the API with the bearer tokens it holds; credentials only for configured origins.
  const anyOrigin = config.CORS_ORIGINS.trim() === '*';
  await app.register(cors, {
    origin: anyOrigin ? true : config.CORS_ORIGINS.split(',').map((o) => o.trim()),
    credentials: !anyOrigin,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    maxAge: 600,
    exposedHeaders: ['x-request-id', 'retry-after', 'etag'],
  });

  await registerRateLimits(app, config);

  // Each module prefix goes to its service unchanged. Bodies stream through unparsed, except on the email-limited
  // routes: read first (limits.ts), then forwarded as the same bytes.
  const targets = MODULES.map((module) => [module, upstream(upstreams[module])] as const);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', gatewayBodyParser(config));
    const forwardTo = (module: ModuleName) => {
      const target = targets.find(([m]) => m === module)![1];
      return (req: FastifyRequest, reply: FastifyReply) => target.forward(req, reply);
    };
    for (const module of MODULES) {
      scope.all(`/${module}`, forwardTo(module));
      scope.all(`/${module}/*`, forwardTo(module));
    }
    // A longer path wins over the module's wildcard in the router.
    for (const { path, module } of ROUTED_ELSEWHERE) {
      scope.all(path, forwardTo(module));
      scope.all(`${path}/*`, forwardTo(module));
    }
  });
  // WebSocket upgrades (messaging's live channels) pass through to their module as raw connections.
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = routePath(req.url ?? '');
    const module = path && /^\/([a-z]+)(\/|$)/.exec(path)?.[1];
    const target = targets.find(([m]) => m === module)?.[1];
    if (!target || !path || INTERNAL.test(path) || SPEC_INTERNAL.test(path)) return void socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
    target.upgrade(req, socket, head);
  });
  app.addHook('onClose', async () => {
    await Promise.all(targets.map(([, target]) => target.close()));
  });

  // Event-loop lag, memory and request durations of the edge itself, scraped on a port of their own (main.ts):
  // the gateway's own port faces the public.
  const metrics = createMetrics();
  timeRequests(app, metrics);
  app.decorate('metricsRegistry', metrics);

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
    await app.register(fastifyStatic, {
      root: path.resolve(config.FILES_DIR),
      prefix: '/files/',
      decorateReply: false,
      // The type comes from the stored extension, which the storage helper derives from the checked type; the
      // headers keep a browser from sniffing or running anything a file holds.
      setHeaders: (res) => {
        for (const [name, value] of Object.entries(STORED_FILE_HEADERS)) res.setHeader(name, value);
      },
    });
  }
  return app;
}
