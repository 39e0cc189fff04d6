import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { swaggerOptions } from './docs';
import {
  createTokenSigner,
  createTokenVerifier,
  type Access,
  type ApiName,
  type Claims,
} from '@church/auth';
import { serviceUrls, type BaseConfig, type ModuleName } from './config';
import { isDatabaseUnavailable, openDatabase, readOnlyQuery, type Database, type Db } from './db';
import { HttpError, errorBody, routeNotFound, unauthorized } from './errors';
import { refuseCallsInTransactions } from './tx-scope';
import { SIGNATURE_HEADER, createInternalClient, createReplayGuard, verifyInternal, type InternalClient } from './internal';
import { checkHandlers, createQueue, type JobContract, type JobDefinition, type Queue } from './queue';
import { createMailer, type Mailer } from './email';
import { createStorage, type Storage } from './storage';
import { createSecretBox, type SecretBox } from './crypto';
import { createSnapshots, dataVersion, type Snapshots } from './snapshots';
import { logSerializers } from './logging';
import { API_KEY_PREFIX, apiKeyTokenContract, apiKeyTokens, type ApiKeySource } from './api-keys';
import { createMetrics, timeRequests } from './metrics';
import { createRevocations, revocationsContract, type RevocationOptions, type Revocations } from './revocations';
import { RequestValidationError, zodSerializerCompiler, zodValidatorCompiler } from './validation';

/** Route files type `req.params`/`req.query`/`req.body` from their zod schemas: `app.withTypeProvider<ZodTypeProvider>()`. */
export type { ZodTypeProvider } from 'fastify-type-provider-zod';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    deps: ServiceDeps;
    /** every route registered on the app with its declared access: what the route-walking access suite walks */
    routeList: RegisteredRoute[];
  }
  interface FastifyRequest {
    /** the verified token; set on every JWT route (and on public routes when a valid token is sent) */
    auth: Claims;
    rawBody?: string;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** A route as registered, for the route-walking access suite and the docs checks. */
export interface RegisteredRoute {
  method: string;
  url: string;
  access: Access;
  /** the body's and the query string's schemas, when the route reads them (the reference walk builds requests from them) */
  body?: unknown;
  query?: unknown;
}

/** Everything a module's routes and jobs use, built once per deployable; tests may replace parts. */
export interface ServiceDeps {
  module: ModuleName;
  api: ApiName;
  config: BaseConfig;
  database: Database;
  db: Db;
  queue: Queue;
  mailer: Mailer;
  storage: Storage;
  internal: InternalClient;
  secrets: SecretBox;
  /** whole-church answers kept in memory while the church's data version holds (snapshots.ts) */
  snapshots: Snapshots;
  signToken: ReturnType<typeof createTokenSigner>;
  verifyToken: (token: string) => Claims;
  /** base addresses of the modules; mutable so the embedded fleet can fill in ephemeral ports */
  urls: Record<ModuleName, string>;
  /** the module's outside systems (its `providers` factory; tests override with fakes); see `defineModule` */
  providers: unknown;
  /** token revocation stamps (revocations.ts), checked on every authenticated request */
  revocations: Revocations;
}

export interface ServiceDefinition {
  module: ModuleName;
  /** folder (or folders, see `Database.migrate`) of the module's committed drizzle migrations */
  migrationsFolder: string | readonly string[];
  routes: FastifyPluginAsync[];
  /** the module's job definitions, given the built dependencies */
  jobs?: (deps: ServiceDeps) => JobDefinition[];
  /** job contracts this module owns: each needs exactly one handler in `jobs` (checked at startup) */
  owns?: JobContract[];
  /** builds the module's outside systems (providers.ts) once from its config; `defineModule` types them */
  providers?: (deps: ServiceDeps) => unknown;
  /** where this module learns token revocations (membership: its own table); default: ask membership */
  revocationSource?: (deps: ServiceDeps) => RevocationOptions['source'];
  /** where this service exchanges an API key for a token (membership answers it itself; others ask membership) */
  apiKeySource?: (deps: ServiceDeps) => ApiKeySource;
  /** what each group (tag) of the module's routes is about, for its OpenAPI document (`src/docs.ts`) */
  tagDescriptions?: Readonly<Record<string, string>>;
}

/** A module's dependencies with its own config and providers typed. */
export type ModuleDeps<C extends BaseConfig, P> = Omit<ServiceDeps, 'config' | 'providers'> & { config: C; providers: P };

/**
 * Declares a module once: its definition, and a typed accessor of its dependencies, so routes and jobs read
 * `deps(app).config.STRIPE_API_BASE` or `deps(app).providers.sms` with no cast at any call site.
 */
export function defineModule<C extends BaseConfig, P = Record<string, never>>(
  def: Omit<ServiceDefinition, 'providers' | 'jobs' | 'revocationSource' | 'apiKeySource'> & {
    providers?: (deps: ModuleDeps<C, undefined>) => P | Promise<P>;
    jobs?: (deps: ModuleDeps<C, P>) => JobDefinition[];
    revocationSource?: (deps: ModuleDeps<C, P>) => RevocationOptions['source'];
    apiKeySource?: (deps: ModuleDeps<C, P>) => ApiKeySource;
  },
): { definition: ServiceDefinition; deps(app: { deps: ServiceDeps }): ModuleDeps<C, P> } {
  return {
    definition: def as ServiceDefinition,
    deps: (app) => app.deps as unknown as ModuleDeps<C, P>,
  };
}

export interface ServiceOptions {
  /** replaces parts of the dependencies (tests pass a database and a recording queue) */
  overrides?: Partial<ServiceDeps>;
  /** apply migrations at start (the embedded default and tests); the real fleet runs a migrate Job */
  migrate?: boolean;
  logger?: boolean;
}

const ReadOnlyQueryBody = z.object({
  sql: z.string().min(1).max(100_000),
  params: z.array(z.unknown()).max(1000).default([]),
  timeoutMs: z.number().int().min(1).max(60_000).default(10_000),
});

const API_OF_MODULE: Record<ModuleName, ApiName> = {
  membership: 'MembershipApi',
  attendance: 'AttendanceApi',
  giving: 'GivingApi',
  messaging: 'MessagingApi',
  content: 'ContentApi',
  doing: 'DoingApi',
  reporting: 'ReportingApi',
};

/** Opens the outside-world dependencies of a deployable from its config. */
export async function buildDeps(def: ServiceDefinition, config: BaseConfig, overrides: Partial<ServiceDeps> = {}): Promise<ServiceDeps> {
  const dataDir = path.resolve(config.DATA_DIR);
  const database =
    overrides.database ??
    (await openDatabase({ url: config.DATABASE_URL, dataDir: path.join(dataDir, 'db', def.module), poolSize: config.DATABASE_POOL_SIZE }));
  const urls = overrides.urls ?? serviceUrls(config);
  const deps = {
    module: def.module,
    api: API_OF_MODULE[def.module],
    config,
    database,
    db: database.db,
    mailer:
      overrides.mailer ??
      (await createMailer({
        from: config.MAIL_FROM,
        sendgridApiKey: config.SENDGRID_API_KEY,
        sendgridBaseUrl: config.SENDGRID_BASE_URL,
        mailDir: path.join(dataDir, 'mail'),
      })),
    storage:
      overrides.storage ??
      (await createStorage({
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        localDir: path.join(dataDir, 'files'),
        publicBaseUrl: config.FILES_BASE_URL ?? 'http://localhost:8080/files',
      })),
    internal: refuseCallsInTransactions(overrides.internal ?? createInternalClient(config.INTERNAL_SECRET, () => urls)),
    secrets: overrides.secrets ?? createSecretBox(config.ENCRYPTION_KEY),
    snapshots: overrides.snapshots ?? createSnapshots({ maxBytes: config.SNAPSHOT_CACHE_MB * 2 ** 20, buildId: config.BUILD_ID, version: (churchId) => dataVersion(database, churchId) }),
    signToken: overrides.signToken ?? createTokenSigner(config.JWT_SECRET),
    verifyToken: overrides.verifyToken ?? createTokenVerifier(config.JWT_SECRET),
    urls,
  } as ServiceDeps;
  deps.providers = 'providers' in overrides ? overrides.providers : await def.providers?.(deps);
  return deps;
}

/**
 * Builds a module's Fastify app: validation and serialization from zod, the spec's error body, access
 * declared on every route, health/readiness/metrics, the module's OpenAPI document, graceful close.
 */
export async function createService(def: ServiceDefinition, config: BaseConfig, options: ServiceOptions = {}): Promise<FastifyInstance> {
  const deps = await buildDeps(def, config, options.overrides);
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.LOG_LEVEL, serializers: logSerializers },
    // Existing clients call `/groupMembers` and `/lookup/?subDomain=` (NOTES.md).
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500 },
    bodyLimit: config.BODY_LIMIT,
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) || randomUUID(),
    requestIdHeader: false,
    ajv: undefined,
    // A slow client cannot hold a connection: headers within 10 s, the whole request within 30 s (408, closed).
    connectionTimeout: 0,
    requestTimeout: 30_000,
    http: { headersTimeout: 10_000 },
    // Errors the router raises before any route runs (a parameter over maxParamLength: 414) in the error shape.
    frameworkErrors: (err, _req, reply) => {
      const status = err.statusCode ?? 400;
      void (reply as FastifyReply).code(status).send(errorBody(status, [{ msg: frameworkMessage(err) }]));
    },
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  app.decorate('db', deps.db);
  app.decorate('deps', deps);
  app.decorateRequest('auth', null as unknown as Claims);

  // Keep the raw JSON text: internal request signatures are computed over the exact bytes sent.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    req.rawBody = body as string;
    if (body === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });

  registerErrorHandling(app);
  registerAccess(app, deps, def.apiKeySource?.(deps));
  const metrics = createMetrics({ queue: () => deps.queue });
  timeRequests(app, metrics);

  // The module's OpenAPI document: spec tags and summaries, access, error responses, bearer security (docs.ts).
  await app.register(swagger, swaggerOptions(def.module, def.tagDescriptions));

  deps.revocations =
    options.overrides?.revocations ??
    (await createRevocations({
      source:
        def.revocationSource?.(deps) ??
        (async (since) => revocationsContract.answer.parse(await deps.internal.post('membership', revocationsContract.path, { since }))),
      pollMs: config.REVOCATION_POLL_MS,
      redisUrl: config.REDIS_URL,
      log: app.log,
    }));

  // Polled once the service listens: before, its own tables may not be migrated and membership may not be up.
  app.addHook('onListen', async () => deps.revocations.start());

  const jobs = def.jobs?.(deps) ?? [];
  checkHandlers(def.module, def.owns ?? [], jobs);
  const queue =
    options.overrides?.queue ??
    (await createQueue({ module: def.module, jobs, log: app.log, redisUrl: config.REDIS_URL, database: deps.database, retryMaxDelayMs: config.JOB_RETRY_MAX_DELAY_MS }));
  deps.queue = queue;

  if (options.migrate) await deps.database.migrate(def.migrationsFolder);
  // The outbox's sweep starts once the service listens (its tables are migrated by then, here or by the migrate Job).
  app.addHook('onListen', async () => queue.startRelay());

  // Alive while its database can serve at all: an embedded engine that failed for good fails liveness too, so a
  // supervisor restarts the process rather than route to it for ever.
  app.get('/health', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    const failure = deps.database.failure();
    return reply.code(failure ? 503 : 200).send({ status: failure ? 'failed' : 'ok', service: def.module, ...(failure && { reason: failure }) });
  });
  app.get('/ready', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    const ready = !deps.database.failure() && (await deps.database.ready());
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', service: def.module });
  });
  app.get('/metrics', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
  app.get(`/${def.module}/docs/json`, { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());

  // Reporting reads a module's data through its owner where it has no database URL of its own (the embedded
  // default): one signed, read-only, time-limited query. The gateway never forwards `/<module>/internal/`.
  app.post(
    `/${def.module}/internal/query`,
    { config: { access: 'internal' }, schema: { hide: true, body: ReadOnlyQueryBody } },
    async (req) => ({ rows: await readOnlyQuery(deps.db, req.body.sql, req.body.params, req.body.timeoutMs) }),
  );

  for (const routes of def.routes) await app.register(routes);

  // Keep-alive sockets (the gateway's pool, internal clients) would hold a close open until they time out: close
  // each as soon as its request is answered, and cut whatever is left after a grace period.
  app.addHook('preClose', async () => {
    const idle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    const cut = setTimeout(() => app.server.closeAllConnections(), 10_000).unref();
    app.server.once('close', () => {
      clearInterval(idle);
      clearTimeout(cut);
    });
  });
  app.addHook('onClose', async () => {
    await deps.revocations.close();
    await deps.internal.close?.();
    await queue.close();
    if (!options.overrides?.database) await deps.database.close();
  });
  await app.ready();
  return app;
}

function registerErrorHandling(app: FastifyInstance) {
  app.setNotFoundHandler((req, reply) => {
    // route-coverage and clients recognise Fastify's own wording for an unknown route.
    reply.code(404).send(routeNotFound(req.method, req.url));
  });
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof RequestValidationError) return reply.code(400).send({ errors: err.toErrors() });
    // An HttpError raised below a driver (a statement refused before it reached the database) comes wrapped.
    const http = err instanceof HttpError ? err : err.cause instanceof HttpError ? err.cause : undefined;
    if (http) return reply.code(http.statusCode).headers(http.headers).send(errorBody(http.statusCode, http.errors));
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // A body that was refused unread (too large, not arriving) leaves bytes on the socket: close it.
      if (status === 413 || status === 408) reply.header('connection', 'close');
      return reply.code(status).send(errorBody(status, [{ msg: clientMessage(err), ...(status === 400 ? { param: 'body', location: 'body' } : {}) }]));
    }
    // A bounded queue that is full (password hashing): try again in a moment.
    if (status === 503) {
      const retry = (err as { retryAfterSeconds?: number }).retryAfterSeconds ?? 1;
      return reply.code(503).header('retry-after', String(retry)).send(errorBody(503, [{ msg: err.message }]));
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable');
      return reply.code(503).header('retry-after', '1').send(errorBody(503, [{ msg: 'The database is unavailable; try again shortly' }]));
    }
    // Database constraint violations that reach here are client conflicts, not bugs.
    const pgCode = (err as { cause?: { code?: string } }).cause?.code ?? err.code;
    if (pgCode === '23505') return reply.code(409).send(errorBody(409, [{ msg: 'A record with these values already exists' }]));
    if (pgCode === '23503') return reply.code(400).send({ errors: [{ msg: 'A referenced record does not exist', location: 'body' }] });
    // Two requests changing the same records at once, which PostgreSQL broke up (a deadlock, a serialization
    // failure): nothing of this one was written; it may be sent again.
    if (pgCode === '40P01' || pgCode === '40001') {
      req.log.warn({ err: { message: err.message, code: pgCode } }, 'concurrent change refused');
      return reply.code(409).header('retry-after', '1').send(errorBody(409, [{ msg: 'Another request changed the same records at the same time; nothing was saved, try again' }]));
    }
    // Class 22 is "data exception" (bad formats, out-of-range values); 23502/23514 are missing or refused values.
    if (typeof pgCode === 'string' && (pgCode.startsWith('22') || pgCode === '23502' || pgCode === '23514')) {
      return reply.code(400).send({ errors: [{ msg: 'A value has the wrong format or is out of range', location: 'body' }] });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(errorBody(500, [{ msg: 'Internal server error' }]));
  });
}

function frameworkMessage(err: Error & { code?: string }): string {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH' || (err as { statusCode?: number }).statusCode === 414) return 'A path parameter is too long';
  return err.message;
}

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (headers too large: 431; a request that
 * timed out: 408; malformed: 400) in the error shape, and closes the connection: its bytes cannot be trusted.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const msg = status === 431 ? 'Request headers are too large' : status === 408 ? 'Request timed out' : 'Malformed request';
  const body = JSON.stringify(errorBody(status, [{ msg }]));
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function clientMessage(err: Error & { code?: string }): string {
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return 'Body is not valid JSON';
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'Body is too large';
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'Unsupported content type; send application/json';
  return err.message;
}

/** Every route declares its access; the check runs before the body is even read. */
function registerAccess(app: FastifyInstance, deps: ServiceDeps, apiKeySource?: ApiKeySource) {
  const routeList: RegisteredRoute[] = [];
  app.decorate('routeList', routeList);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access) throw new Error(`${route.method} ${route.url} declares no access (config.access)`);
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeList.push({ method, url: route.url, access, body: route.schema?.body, query: route.schema?.querystring });
  });
  const keys = apiKeyTokens(
    apiKeySource ?? (async (key) => apiKeyTokenContract.answer.parse(await deps.internal.post('membership', apiKeyTokenContract.path, apiKeyTokenContract.body.parse({ key })))),
  );
  const bearer = async (req: FastifyRequest): Promise<Claims | null> => {
    const header = req.headers.authorization;
    if (!header || !/^bearer /i.test(header)) return null;
    let token = header.slice(7).trim();
    // An API key is exchanged for the token membership mints from it (kept until shortly before it expires).
    if (token.startsWith(API_KEY_PREFIX)) token = (await keys(token)) ?? '';
    try {
      const claims = deps.verifyToken(token);
      // A token minted before its user's password change, deletion or loss of a role or church is refused.
      return deps.revocations?.isRevoked(claims) ? null : claims;
    } catch {
      return null;
    }
  };
  app.addHook('onRequest', async (req) => {
    const access = req.routeOptions.config?.access;
    if (!access) return; // not-found handler
    if (access === 'public') {
      const auth = req.headers.authorization ? await bearer(req) : null;
      if (auth) req.auth = auth;
      return;
    }
    if (access === 'internal') return; // verified after the body is read (preHandler below)
    const auth = await bearer(req);
    if (!auth) throw unauthorized(req.headers.authorization ? 'Invalid or expired token' : 'Missing bearer token');
    req.auth = auth;
    if (!(await access.check(req, auth, deps.api))) throw unauthorized(`Missing permission: ${access.text}`);
  });
  const replays = createReplayGuard();
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.config?.access !== 'internal') return;
    if (!verifyInternal(deps.config.INTERNAL_SECRET, req)) throw unauthorized('Invalid internal signature');
    if (!replays.first(String(req.headers[SIGNATURE_HEADER]))) throw unauthorized('Replayed internal request');
  });
}

