import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { createTokenSigner, PERMISSIONS, permissionKey, type ApiName } from '@church/auth';
import { MODULES } from '@church/common';
import type StripeSdk from '../services/giving/node_modules/stripe';
import { relayOutput } from './lib/child';
import { prepareDatabases, postgresReachable, redisReachable } from './lib/databases';
import { startDeployment, type Deployment } from './lib/deployment';
import { fixtures } from './lib/fixtures';

/**
 * Verified webhook ingestion through the deployed fleet (issue 20): `npx tsx bench/webhooks.ts [--events=5000]
 * [--concurrency=32]`. Starts the gateway and the seven services as `pnpm bench` does (one process each, on the
 * seeded bench_* databases, Redis jobs), saves a Stripe gateway with a webhook signing secret for a church of
 * its own (church 1 of the seed, which has no giving data), then posts N distinct `payment_intent.succeeded`
 * events, each signed as Stripe signs them (`stripe.webhooks.generateTestHeaderString`), through the gateway
 * with autocannon (a bounded number of requests in flight, each event once). It waits until the webhook effects
 * (applied within the delivery, or by a job) have recorded every donation and reports events/s accepted
 * (answered 200) and processed (donation written),
 * with the CPU each event cost the giving and gateway processes and PostgreSQL, checks that exactly N donations
 * exist, one per event, then posts the same N events again and checks that none is added. Writes
 * `bench/results/webhooks-postgres.md`. Each run first deletes the bench church's giving rows of earlier runs.
 */

const ROOT = path.resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);
// bench has no dependency on stripe: the SDK the giving service verifies with signs the events.
const Stripe = createRequire(path.join(ROOT, 'services/giving/package.json'))('stripe') as typeof StripeSdk;

interface Options {
  events: number;
  concurrency: number;
  databaseUrl: string;
  redisUrl: string;
}

function parseArgs(argv: string[]): Options {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!m || !['events', 'concurrency', 'database-url', 'redis-url'].includes(m[1]!)) throw new Error(`unexpected argument ${arg}: --events=N --concurrency=N --database-url=URL --redis-url=URL`);
    flags.set(m[1]!, m[2]!);
  }
  const count = (name: string, fallback: number) => {
    const v = Number(flags.get(name) ?? fallback);
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
    return v;
  };
  return {
    events: count('events', 5000),
    concurrency: count('concurrency', 32),
    databaseUrl: flags.get('database-url') ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: flags.get('redis-url') ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

/** Applies giving's migrations to bench_giving (the deployment's processes do not migrate). */
function migrateGiving(env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/giving/src/migrate.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    relayOutput(child, '[migrate giving]', log);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`giving migrations failed (exit ${code})`))));
  });
}

/**
 * Posts each of `deliveries` once (autocannon, `connections` in flight; a delivery is built before the run, so
 * the generator spends no CPU on signing during it) and answers the statuses seen.
 */
async function postAll(url: string, path: string, deliveries: Array<{ body: string; signature: string }>, connections: number): Promise<Map<number, number>> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: Math.min(connections, deliveries.length),
    amount: deliveries.length,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (req: autocannon.Request) => {
          const d = deliveries[next++ % deliveries.length]!;
          return { ...req, headers: { 'content-type': 'application/json', 'stripe-signature': d.signature }, body: d.body };
        },
      },
    ],
  });
  const statuses = new Map<number, number>();
  for (const [code, n] of Object.entries(result.statusCodeStats ?? {})) statuses.set(Number(code), (n as { count: number }).count);
  if (result.errors || result.timeouts) statuses.set(0, result.errors + result.timeouts);
  return statuses;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system, ms) a process has used, from /proc (Linux); 0 where unreadable. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU used during a pass: the gateway's and giving's processes (per event it is load-independent, unlike a rate
 * on a shared machine) and PostgreSQL's backends connected to bench_giving, sampled every 200 ms while the pass
 * runs (pool connections come and go; a backend's CPU before it was first seen is not counted).
 */
function cpuMeter(deployment: Deployment, db: Client) {
  const named = { giving: deployment.pids[MODULES.indexOf('giving')]!, gateway: deployment.pids[MODULES.length]! };
  const backends = async () => (await db.query(`select pid from pg_stat_activity where datname = 'bench_giving' and pid <> pg_backend_pid()`)).rows.map((r) => Number(r.pid));
  return async () => {
    const before = { giving: cpuMs(named.giving), gateway: cpuMs(named.gateway) };
    const seen = new Map<number, { first: number; last: number }>();
    const sample = async () => {
      for (const pid of await backends()) {
        const now = cpuMs(pid);
        const entry = seen.get(pid);
        if (!entry) seen.set(pid, { first: now, last: now });
        else if (now > 0) entry.last = now;
      }
    };
    await sample();
    let running = true;
    const sampler = (async () => {
      while (running) {
        await sleep(200);
        await sample();
      }
    })();
    return async () => {
      running = false;
      await sampler;
      await sample();
      let postgres = 0;
      for (const { first, last } of seen.values()) postgres += last - first;
      return { giving: cpuMs(named.giving) - before.giving, gateway: cpuMs(named.gateway) - before.gateway, postgres };
    };
  };
}

const churchId = fixtures.churchOf(1);

/** Deletes the bench church's giving rows (all of them are this script's). */
async function clearBenchChurch(db: Client): Promise<void> {
  await db.query('begin');
  for (const table of ['fund_donations', 'donations', 'fund_day_totals', 'webhook_events', 'event_logs', 'gateways', 'funds']) await db.query(`delete from ${table} where church_id = $1`, [churchId]);
  await db.query('commit');
}

const rate = (n: number, ms: number) => (ms > 0 ? (n / ms) * 1000 : 0);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!(await postgresReachable(opts.databaseUrl))) throw new Error(`PostgreSQL does not answer at ${opts.databaseUrl}`);
  if (!(await redisReachable(opts.redisUrl))) throw new Error(`Redis does not answer at ${opts.redisUrl}`);
  const admin = new Client({ connectionString: opts.databaseUrl });
  await admin.connect();
  const existing = (await admin.query(`select datname from pg_database where datname in ('bench_giving', 'bench_membership')`)).rowCount;
  await admin.end();
  if (existing !== 2) throw new Error('the bench_* databases are not there: run `pnpm bench` once first (it creates and seeds them)');
  const databaseUrls = await prepareDatabases(opts.databaseUrl, true);

  const secrets = { JWT_SECRET: randomBytes(32).toString('base64url'), INTERNAL_SECRET: randomBytes(32).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'church-webhooks-'));
  const db = new Client({ connectionString: databaseUrls.giving });
  let deployment: Deployment | undefined;
  try {
    log('migrating bench_giving ...');
    await migrateGiving({ ...secrets, DATABASE_URL: databaseUrls.giving!, REDIS_URL: opts.redisUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await db.connect();

    // The bench church: church 1 of the seed (the summary and fund scenarios use church 0). Rows left by an
    // earlier run that stopped half-way go first (its gateway was sealed with that run's key).
    await clearBenchChurch(db);

    log('starting the deployment: the gateway and seven services, one process each ...');
    deployment = await startDeployment({ databaseUrls, redisUrl: opts.redisUrl, secrets, dataDir, log });
    const url = deployment.url;

    const permissions: Partial<Record<ApiName, string[]>> = {};
    for (const p of PERMISSIONS) (permissions[p.apiName] ??= []).push(permissionKey(p.contentType, p.action));
    const token = createTokenSigner(secrets.JWT_SECRET)({
      id: fixtures.userId(0),
      email: fixtures.userEmail(0),
      churchId,
      personId: fixtures.personId(0, 1),
      membershipStatus: 'Member',
      permissions,
      leaderGroupIds: [],
    });
    const api = async (method: string, route: string, body: unknown) => {
      const res = await fetch(url + route, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as unknown;
    };
    const webhookSecret = `whsec_bench_${randomBytes(12).toString('hex')}`;
    await api('POST', '/giving/gateways', { provider: 'stripe', publicKey: 'pk_test_bench', privateKey: 'sk_test_bench', webhookKey: webhookSecret, productId: 'prod_bench' });
    const funds = (await api('POST', '/giving/funds', [{ name: 'General' }, { name: 'Missions' }])) as Array<{ id: string }>;
    const [general, missions] = funds.map((f) => f.id) as [string, string];

    // N distinct payments as this service's charge describes them (church, funds, fee, the donor's email);
    // a fifth split over two funds. Signed as they are sent (Stripe signs each delivery, retries included).
    const run = Date.now().toString(36);
    const stripe = new Stripe('sk_test_bench');
    const created = Math.floor(Date.now() / 1000);
    const bodies = Array.from({ length: opts.events }, (_, i) => {
      const cents = 1000 + ((i * 7919) % 49000);
      const split = i % 5 === 0;
      const fundsMeta = split ? `${general}:${cents - Math.floor(cents / 2)},${missions}:${Math.floor(cents / 2)}` : `${general}:${cents}`;
      return JSON.stringify({
        id: `evt_bench_${run}_${i}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created,
        livemode: false,
        data: {
          object: {
            id: `pi_bench_${run}_${i}`,
            object: 'payment_intent',
            amount: cents,
            amount_received: cents,
            currency: 'usd',
            status: 'succeeded',
            customer: null,
            payment_method_types: ['card'],
            metadata: { churchId, personId: '', funds: fundsMeta, fee: '0.00', email: `donor${i}@bench.test` },
          },
        },
      });
    });
    // Signed just before each pass (Stripe's tolerance is five minutes).
    const signed = () => bodies.map((body) => ({ body, signature: stripe.webhooks.generateTestHeaderString({ payload: body, secret: webhookSecret }) }));
    const hook = `/giving/donate/webhook/stripe?churchId=${churchId}`;
    const count = async () => Number((await db.query(`select count(*)::int as n from donations where church_id = $1 and transaction_id like $2`, [churchId, `pi_bench_${run}_%`])).rows[0]!.n);
    const waitForDonations = async (target: number, started: number) => {
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        const n = await count();
        if (n >= target) return { n, ms: Date.now() - started };
        if (n !== last) {
          last = n;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > 30_000) return { n, ms: Date.now() - started };
        await sleep(50);
      }
    };

    await deployment.quiet();
    const meter = cpuMeter(deployment, db);
    log(`pass 1: ${opts.events} events, ${opts.concurrency} in flight ...`);
    const firstDeliveries = signed();
    const firstCpu = await meter();
    const started = Date.now();
    const first = await postAll(url, hook, firstDeliveries, opts.concurrency);
    const acceptedMs = Date.now() - started;
    const processed = await waitForDonations(opts.events, started);
    await deployment.quiet();
    const cpu1 = await firstCpu();
    const afterFirst = await count();
    const distinct = Number((await db.query(`select count(distinct transaction_id)::int as d from donations where church_id = $1 and transaction_id like $2`, [churchId, `pi_bench_${run}_%`])).rows[0]!.d);

    log('pass 2: the same events again ...');
    const secondDeliveries = signed();
    const secondCpu = await meter();
    const again = Date.now();
    const second = await postAll(url, hook, secondDeliveries, opts.concurrency);
    const secondMs = Date.now() - again;
    await deployment.quiet();
    const cpu2 = await secondCpu();
    await sleep(1000);
    const afterSecond = await count();
    const unprocessed = Number((await db.query(`select count(*)::int as n from webhook_events where church_id = $1 and processed_at is null`, [churchId])).rows[0]!.n);
    const totals = (
      await db.query(
        `select (select coalesce(sum(gift_count), 0)::int from fund_day_totals where church_id = $1) as kept,
                (select count(*)::int from fund_donations fd join donations d on d.church_id = fd.church_id and d.id = fd.donation_id where fd.church_id = $1 and d.status = 'complete') as allocations`,
        [churchId],
      )
    ).rows[0] as { kept: number; allocations: number };

    const perEvent = (c: { giving: number; gateway: number; postgres: number }) =>
      [c.giving, c.gateway, c.postgres].map((ms) => `${(ms / opts.events).toFixed(2)} ms`).join(', ');
    const statuses = (m: Map<number, number>) => [...m.entries()].map(([s, n]) => `${n} × ${s || 'error'}`).join(', ');
    const ok = first.get(200) === opts.events && afterFirst === opts.events && distinct === opts.events && second.get(200) === opts.events && afterSecond === opts.events && totals.kept === totals.allocations;
    const cpus = os.cpus();
    const md = [
      '# Webhook ingestion: postgres',
      '',
      `${new Date().toISOString()}; ${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, Node ${process.version}; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; the gateway and each service in its own process, Redis jobs (\`npx tsx bench/webhooks.ts --events=${opts.events} --concurrency=${opts.concurrency}\`).`,
      '',
      `${opts.events} distinct signed \`payment_intent.succeeded\` events (a fifth split over two funds, each with a donor email: a receipt job each) posted through the gateway to \`POST /giving/donate/webhook/stripe?churchId=\`, ${opts.concurrency} in flight.`,
      '',
      '| measure | value |',
      '| --- | ---: |',
      `| pass 1: answers | ${statuses(first)} |`,
      `| pass 1: accepted (verified, recorded, applied or queued) | ${rate(opts.events, acceptedMs).toFixed(0)} events/s (${(acceptedMs / 1000).toFixed(1)} s) |`,
      `| pass 1: processed to a donation | ${rate(processed.n, processed.ms).toFixed(0)} events/s (${processed.n} donations ${(processed.ms / 1000).toFixed(1)} s after the first post) |`,
      `| pass 1: CPU per event (intake, effect, receipt): giving, gateway, PostgreSQL backends | ${perEvent(cpu1)} |`,
      `| donations after pass 1 (distinct transaction ids) | ${afterFirst} (${distinct}) of ${opts.events} |`,
      `| pass 2 (same events): answers | ${statuses(second)} in ${(secondMs / 1000).toFixed(1)} s (${rate(opts.events, secondMs).toFixed(0)} events/s) |`,
      `| pass 2: CPU per event: giving, gateway, PostgreSQL backends | ${perEvent(cpu2)} |`,
      `| donations after pass 2 | ${afterSecond} (added ${afterSecond - afterFirst}) |`,
      `| events left unprocessed | ${unprocessed} |`,
      `| kept daily totals: gifts / allocations of complete donations | ${totals.kept} / ${totals.allocations} |`,
      `| verdict (≥ 500 events/s processed, exactly one donation per event, none on the second pass) | ${ok && rate(processed.n, processed.ms) >= 500 ? 'PASS' : 'FAIL'} |`,
      '',
    ].join('\n');
    writeFileSync(path.join(__dirname, 'results', 'webhooks-postgres.md'), md);
    process.stdout.write(`\n${md}\nwritten: bench/results/webhooks-postgres.md\n`);
    if (!ok) process.exitCode = 1;
  } finally {
    await deployment?.stop();
    // The seeded databases keep only the seed (the seed report counts every donation).
    await clearBenchChurch(db).catch(() => undefined);
    await db.end().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    log(`webhooks bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
