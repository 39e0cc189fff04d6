import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { lockDataDir } from './data-lock';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { closeOnSignal, loadConfig, MODULES, openEmbeddedDatabase, type EmbeddedDatabase, type ModuleName } from '@church/common';
import { buildGateway } from '@church/gateway/src/app';
import { gatewayConfig } from '@church/gateway/src/config';
import { SERVICES } from './services';
import { makeDemo } from './demo';

export interface FleetOptions {
  /** the gateway's port (0 for an ephemeral one) */
  port?: number;
  dataDir?: string;
  /** PostgreSQL per module; PGlite under dataDir for the modules without one */
  databaseUrls?: Partial<Record<ModuleName, string>>;
  redisUrl?: string;
  /** extra environment for every service and the gateway (RATE_LIMIT_ENABLED, SENDGRID_API_KEY, ...) */
  env?: Record<string, string | undefined>;
  logLevel?: string;
  /**
   * Told when the embedded database failed and could not be opened again: nothing can be served. The launcher
   * exits non-zero so that its supervisor (systemd, a container's restart policy) starts the fleet afresh.
   */
  onDatabaseLost?: (err: unknown) => void;
}

export interface Fleet {
  url: string;
  gateway: FastifyInstance;
  services: Record<ModuleName, FastifyInstance>;
  urls: Record<ModuleName, string>;
  secrets: Secrets;
  close(): Promise<void>;
}

interface Secrets {
  JWT_SECRET: string;
  INTERNAL_SECRET: string;
  ENCRYPTION_KEY: string;
}

/** Secrets from the environment, or generated once and kept in DATA_DIR so tokens survive a restart. */
function loadSecrets(dataDir: string, env: Record<string, string | undefined>): Secrets {
  const file = path.join(dataDir, 'secrets.json');
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const secrets: Secrets = {
    JWT_SECRET: env.JWT_SECRET ?? stored.JWT_SECRET ?? randomBytes(32).toString('base64url'),
    INTERNAL_SECRET: env.INTERNAL_SECRET ?? stored.INTERNAL_SECRET ?? randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? stored.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  };
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/**
 * Starts the seven services and the gateway in one process: the embedded default (PGlite per module under
 * DATA_DIR, in-process jobs, the dev mailbox) or, given database URLs and Redis, the same code on real servers.
 * Services listen on ephemeral loopback ports; only the gateway's port is chosen.
 */
export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const env = { ...process.env, ...options.env };
  const dataDir = path.resolve(options.dataDir ?? env.DATA_DIR ?? '.data');
  mkdirSync(path.join(dataDir, 'files'), { recursive: true });
  const port = options.port ?? Number(env.GATEWAY_PORT ?? 8080);
  // One fleet per data folder: a second one would open the same embedded database and ruin it.
  const unlock = lockDataDir(dataDir, port);
  const secrets = loadSecrets(dataDir, env);
  const logLevel = options.logLevel ?? env.LOG_LEVEL ?? 'warn';
  const urls = Object.fromEntries(MODULES.map((m) => [m, ''])) as Record<ModuleName, string>;
  const services = {} as Record<ModuleName, FastifyInstance>;
  const started: FastifyInstance[] = [];
  const databaseUrl = (module: ModuleName) => options.databaseUrls?.[module] ?? env[`${module.toUpperCase()}_DATABASE_URL`];
  let embedded: EmbeddedDatabase | undefined;
  try {
    // The modules without a PostgreSQL URL share one PGlite, a schema each (see embedded-db.ts); a data folder
    // made before that keeps its PGlite per module.
    if (MODULES.some((m) => !databaseUrl(m)) && !hasDatabasePerModule(dataDir)) {
      embedded = await openEmbeddedDatabase(path.join(dataDir, 'db', 'embedded'), {
        onFailure: (err, fatal) => {
          console.error(fatal ? 'The embedded database failed and could not be opened again:' : 'The embedded database failed; opening it again:', err);
          if (fatal) options.onDatabaseLost?.(err);
        },
      });
    }
    for (const module of MODULES) {
      const { schema, build } = SERVICES[module];
      const config = loadConfig(schema, {
        ...env,
        ...secrets,
        LOG_LEVEL: logLevel,
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl(module),
        REDIS_URL: options.redisUrl ?? env.REDIS_URL,
        FILES_BASE_URL: env.FILES_BASE_URL ?? `http://localhost:${port}/files`,
        // The services of one process hear membership's revocations at once (revocations.ts); the poll is a backstop.
        REVOCATION_POLL_MS: env.REVOCATION_POLL_MS ?? '15000',
      });
      const database = !config.DATABASE_URL && embedded ? embedded.forModule(module) : undefined;
      const app = await build(config as never, { urls, ...(database && { database }) }, { migrate: true });
      started.push(app);
      services[module] = app;
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      urls[module] = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      if (config.RUN_WORKER) await app.deps.queue.startWorker();
    }
    const gwConfig = loadConfig(gatewayConfig, {
      ...env,
      LOG_LEVEL: env.GATEWAY_LOG_LEVEL ?? logLevel,
      PORT: String(port),
      FILES_DIR: path.join(dataDir, 'files'),
    });
    const gateway = await buildGateway(gwConfig, urls);
    started.push(gateway);
    await gateway.listen({ host: env.HOST ?? '0.0.0.0', port });
    const address = gateway.server.address();
    const url = `http://localhost:${typeof address === 'object' && address ? address.port : port}`;
    return {
      url,
      gateway,
      services,
      urls,
      secrets,
      async close() {
        await gateway.close();
        // Independently: each waits up to 10 s for its keep-alive clients, and in turn that would add up.
        await Promise.all(Object.values(services).map((app) => app.close()));
        await embedded?.close();
        unlock();
      },
    };
  } catch (err) {
    for (const app of started.reverse()) await app.close().catch(() => undefined);
    await embedded?.close().catch(() => undefined);
    unlock();
    throw err;
  }
}

/** A data folder from before the shared PGlite: a PGlite per module under `db/<module>`. */
function hasDatabasePerModule(dataDir: string): boolean {
  return !existsSync(path.join(dataDir, 'db', 'embedded')) && MODULES.some((m) => existsSync(path.join(dataDir, 'db', m, 'PG_VERSION')));
}

if (require.main === module) {
  startFleet({ onDatabaseLost: () => process.exit(70) })
    .then((fleet) => {
      closeOnSignal(() => fleet.close());
      // pnpm does not pass SIGTERM on to the script it runs: when the launcher goes away, stop as if signalled.
      const launcher = process.ppid;
      setInterval(() => process.ppid !== launcher && process.kill(process.pid, 'SIGTERM'), 500).unref();
      console.log(`Church platform is running at ${fleet.url}  (API docs: ${fleet.url}/docs, data: ${path.resolve(process.env.DATA_DIR ?? '.data')})`);
      // `--demo`: make the demo church (demo.ts) when it is not there yet; the fleet keeps running either way.
      if (process.argv.includes('--demo')) {
        makeDemo({ url: fleet.url, dataDir: path.resolve(process.env.DATA_DIR ?? '.data'), email: process.env.DEMO_EMAIL, password: process.env.DEMO_PASSWORD })
          .then((r) => console.log(`Demo church: ${r.churchName}. Sign in as ${r.email} with password ${r.password}`))
          .catch((err) => console.error('The demo church could not be made:', err instanceof Error ? err.message : err));
      }
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
