import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startFleet } from '../fleet/src/fleet';
import { seedAll, type Exec, type LaterModule } from './seed';
import { QueryCapture } from './lib/capture';
import type { FleetChildConfig, FromChild, ToChild } from './lib/ipc';
import { memorySample } from './memory-fleet';

/**
 * The fleet under test, in its own process so the load generator does not share its event loop: starts the
 * seven services and the gateway, seeds the bench data, prints `{url, secrets, seed}` as one JSON line (and
 * sends it over IPC when forked), then explains requests on demand and closes on `close` or SIGTERM.
 * Standalone: `BENCH_FLEET='{"target":"embedded","dataDir":"/tmp/x","reuse":true}' tsx bench/fleet-process.ts`.
 */
async function main() {
  const config: FleetChildConfig = JSON.parse(process.env.BENCH_FLEET ?? '{"target":"embedded","reuse":true}');
  const dataDir = config.dataDir ?? mkdtempSync(path.join(tmpdir(), 'church-bench-'));
  const capture = new QueryCapture();
  if (config.target === 'postgres') capture.patchPg();

  const fleet = await startFleet({
    port: 0,
    dataDir,
    databaseUrls: config.databaseUrls,
    redisUrl: config.redisUrl,
    env: { RATE_LIMIT_ENABLED: 'false', HOST: '127.0.0.1', NODE_ENV: 'production', REDIS_URL: config.redisUrl ?? '' },
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const url = fleet.url.replace('localhost', '127.0.0.1');

  // Seeding and explaining use their own connections on PostgreSQL, and the services' own PGlite instances
  // in embedded mode (PGlite is single-connection and lives inside this process).
  const clients: Client[] = [];
  const execFor = async (module: 'membership' | 'attendance' | LaterModule): Promise<Exec> => {
    const dbUrl = config.databaseUrls?.[module];
    if (dbUrl) {
      const client = new Client({ connectionString: dbUrl });
      await client.connect();
      await client.query(`set synchronous_commit = off; set maintenance_work_mem = '256MB'`);
      clients.push(client);
      return client as unknown as Exec;
    }
    const pglite = (fleet.services[module].deps.database.db as unknown as { $client: Exec }).$client;
    return capture.patchPglite(module, pglite);
  };
  const dbs = {
    membership: await execFor('membership'),
    attendance: await execFor('attendance'),
    giving: await execFor('giving'),
    content: await execFor('content'),
    doing: await execFor('doing'),
    messaging: await execFor('messaging'),
  };
  const seed = await seedAll(dbs, { reuse: config.reuse, extras: config.extras, log: (line) => process.stderr.write(`${line}\n`) });

  const send = (message: FromChild) => (process.send ? process.send(message) : undefined);
  const ready: FromChild = { type: 'ready', url, secrets: fleet.secrets, seed };
  process.stdout.write(`${JSON.stringify({ bench: 'ready', url, secrets: fleet.secrets, seed })}\n`);
  send(ready);

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    for (const client of clients) await client.end().catch(() => undefined);
    await fleet.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
  process.on('disconnect', close);
  process.on('message', async (message: ToChild) => {
    if (message.type === 'close') return close();
    if (message.type === 'memory') {
      const snapshots = Object.values(fleet.services).reduce((sum, app) => sum + app.deps.snapshots.size(), 0);
      send({ type: 'memory', id: message.id, sample: { ...memorySample(message.resetPeak), snapshots } });
    }
    if (message.type === 'quiet') send({ type: 'quieted', id: message.id, waitedMs: await capture.quiet() });
    if (message.type === 'explain') {
      const results = await capture.explain(url, message.requests, dbs);
      send({ type: 'explained', id: message.id, results });
    }
  });
}

main().catch((err) => {
  process.stderr.write(`[fleet] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  if (process.send) process.send({ type: 'failed', error: String(err instanceof Error ? err.message : err) } satisfies FromChild);
  setTimeout(() => process.exit(1), 100);
});
