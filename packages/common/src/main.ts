import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { DEFAULT_PORTS, loadConfig, type BaseConfig, type ModuleName } from './config';
import { buildDeps, type ServiceDefinition, type ServiceDeps } from './service';
import { createQueue } from './queue';
import { routeNotFound } from './errors';
import { createMetrics } from './metrics';

type Build<C> = (config: C, overrides?: Partial<ServiceDeps>, options?: { migrate?: boolean }) => Promise<FastifyInstance>;

/** Whether this process applies migrations at start (`MIGRATE_ON_START=auto`: only on embedded PGlite). */
export function migrateOnStart(config: BaseConfig): boolean {
  return config.MIGRATE_ON_START === 'auto' ? !config.DATABASE_URL : config.MIGRATE_ON_START === 'true';
}

/** A deployable's entry point: parse config once, build, listen, close gracefully on SIGTERM/SIGINT. */
export async function runMain<S extends z.ZodType<BaseConfig>>(module: ModuleName, schema: S, build: Build<z.output<S>>): Promise<void> {
  const config = loadConfig(schema);
  const app = await build(config, {}, { migrate: migrateOnStart(config) });
  if (config.RUN_WORKER) await app.deps.queue.startWorker();
  closeOnSignal(() => app.close());
  await app.listen({ host: config.HOST, port: config.PORT ?? DEFAULT_PORTS[module] });
}

/** A module's migrate entry (a k8s Job, a compose one-shot): apply and exit. */
export async function runMigrate(def: ServiceDefinition, schema: z.ZodType<BaseConfig>): Promise<void> {
  const config = loadConfig(schema);
  const deps = await buildDeps(def, config);
  await deps.database.migrate(def.migrationsFolder);
  await deps.database.close();
  console.log(`${def.module}: migrations applied`);
}

/** A module's worker entry (the BullMQ worker Deployment): consume jobs until stopped. */
export async function runWorker(def: ServiceDefinition, schema: z.ZodType<BaseConfig>): Promise<void> {
  const config = loadConfig(schema);
  const deps = await buildDeps(def, config);
  const { default: pino } = await import('pino');
  const log = pino({ level: config.LOG_LEVEL, name: `${def.module}-worker` });
  deps.queue = await createQueue({ module: def.module, jobs: def.jobs?.(deps) ?? [], log, redisUrl: config.REDIS_URL, database: deps.database, retryMaxDelayMs: config.JOB_RETRY_MAX_DELAY_MS });
  await deps.queue.startWorker();
  await deps.queue.startRelay();
  const metrics = createMetrics({ queue: () => deps.queue });
  // A small health server so orchestrators can probe and scrape the worker: /health (alive), /ready (database
  // reachable), /metrics (event-loop lag, the outbox's depth).
  const port = config.PORT ?? DEFAULT_PORTS[def.module] + 1000;
  const server = createServer((req, res) => {
    const reply = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/health') return reply(200, { status: 'ok', service: `${def.module}-worker`, queue: deps.queue.kind });
    if (req.url === '/ready') {
      return void deps.database.ready().then((ok) => reply(ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', service: `${def.module}-worker` }));
    }
    if (req.url === '/metrics') {
      return void metrics.metrics().then((text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text));
    }
    reply(404, routeNotFound(req.method ?? 'GET', req.url ?? '/'));
  });
  server.listen(port, config.HOST);
  closeOnSignal(async () => {
    server.close();
    await deps.queue.close();
    await deps.database.close();
  });
  log.info(`${def.module} worker started (${deps.queue.kind}), health on port ${port}`);
}

/** Stops cleanly once on SIGTERM or SIGINT; a second signal forces the exit. */
export function closeOnSignal(close: () => Promise<unknown>): void {
  let closing = false;
  const onSignal = () => {
    if (closing) process.exit(1);
    closing = true;
    close().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
