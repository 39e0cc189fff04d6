import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { createService, rowsOf, type Database, type ServiceDefinition } from '../src';
import { call, testConfig, testDatabase, tokenFor } from '../src/testing';

const migrations = path.join(__dirname, '../../../services/attendance/drizzle');
const adminUrl = process.env.TEST_DATABASE_URL;

// Backends terminated under load (what a failover or a restart does): no process ends, the requests in flight get
// 503 in the error shape, and the service answers again as soon as the database does. Needs PostgreSQL.
(adminUrl ? describe : describe.skip)('a service whose database connections are cut under load (needs TEST_DATABASE_URL)', () => {
  let app: FastifyInstance;
  let database: Database;
  let dbName = '';
  beforeAll(async () => {
    database = await testDatabase('attendance', migrations);
    dbName = (await database.rows<{ d: string }>('select current_database() as d', []))[0]!.d;
    const def: ServiceDefinition = {
      module: 'attendance',
      migrationsFolder: migrations,
      routes: [
        async (a) => {
          a.get('/attendance/slow', { config: { access: anyUser } }, async () => {
            // a transaction held across two statements: the client is checked out when its backend dies
            return a.db.transaction(async (tx) => {
              await tx.execute(sql`select pg_sleep(0.02)`);
              const [row] = rowsOf<{ one: number }>(await tx.execute(sql`select 1 as one`));
              return { one: row!.one };
            });
          });
        },
      ],
    };
    app = await createService(def, testConfig({ DATABASE_POOL_SIZE: '5' }), { overrides: { database }, logger: false });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('answers 200 or 503 while backends are terminated, never crashes, and recovers', async () => {
    const token = tokenFor({ churchId: randomUUID() });
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    const counts = new Map<number, number>();
    let running = true;
    const killer = (async () => {
      while (running) {
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    const deadline = Date.now() + 3000;
    const worker = async () => {
      while (Date.now() < deadline) {
        const res = await call(app, 'GET', '/attendance/slow', { token });
        counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 503) expect(res.json().errors[0]).toMatch(/database/i);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    running = false;
    await killer;
    await admin.end();
    const statuses = [...counts.keys()].sort();
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(counts.get(503) ?? 0).toBeGreaterThan(0);
    // and serves again once the database answers
    let ok = false;
    for (let i = 0; i < 20 && !ok; i++) ok = (await call(app, 'GET', '/attendance/slow', { token })).statusCode === 200;
    expect(ok).toBe(true);
    // no connection was lost for good: twice the pool's size at once still gets through (a leaked client would
    // hold its slot forever, and the pool would starve)
    await new Promise((r) => setTimeout(r, 2500));
    const after = await Promise.all(Array.from({ length: 10 }, () => call(app, 'GET', '/attendance/slow', { token })));
    expect(after.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    console.log(`database-fault run: ${[...counts].map(([s, n]) => `${n}×${s}`).join(', ')}`);
  });
});
