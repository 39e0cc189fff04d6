import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTokenSigner, PERMISSIONS, permissionKey, type ApiName } from '@church/auth';
import { SCENARIOS, login, type Scenario } from './scenarios';
import { runAppReads, writeAppReadsReport } from './app-reads';
import { askChild, startChild, type Child } from './lib/child';
import { startDeployment, type Deployment } from './lib/deployment';
import { postgresReachable, prepareCeilingDatabase, prepareDatabases, redisReachable } from './lib/databases';
import { fixtures, SHAPE } from './lib/fixtures';
import { startFlags } from './memory';
import type { ExplainResult, FleetChildConfig, FleetReady, FromChild, ToChild } from './lib/ipc';
import { headersFor, runLoad, type LoadOptions, type LoadRequest, type LoadResult } from './lib/load';
import { parseOptions, type BenchOptions } from './lib/options';
import { evaluate, textTable, writeResults, type BenchReport, type Outcome } from './lib/report';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function measureCeiling(mode: 'hello' | 'pg' | 'argon2', env: Record<string, string>, load: Omit<LoadOptions, 'url'>): Promise<LoadResult> {
  const child = await startChild<{ type: 'ready'; url: string }>('ceiling-process.ts', { BENCH_CEILING: mode, ...env }, { prefix: `[ceiling ${mode}]`, timeoutMs: 60_000 });
  try {
    return await runLoad({ method: 'GET', path: '/ceiling' }, { ...load, url: child.ready.url });
  } finally {
    await child.stop();
  }
}

async function probe(url: string, req: LoadRequest): Promise<{ status: number; text: string; missing: boolean }> {
  // unique variants are each sent once by the run: the probe sends the base request instead
  const first = req.variants && !req.variants.unique ? { ...req, ...req.variants.of(0) } : req;
  const res = await fetch(url + first.path, { method: first.method, headers: headersFor(first), body: first.body });
  const text = await res.text();
  return { status: res.status, text, missing: res.status === 404 && /"msg":"Route [A-Z]+:/.test(text) };
}

/** A token from a real login of bench user 0; a signed one with the same claims while login is not built. */
async function obtainToken(url: string, secret: string): Promise<{ token: string; source: BenchReport['token']; note?: string }> {
  const req = login.request('');
  const answer = await probe(url, req);
  if (answer.status === 200) {
    const body = JSON.parse(answer.text) as { token?: string; churches?: Array<{ jwt?: string }> };
    const token = body.token ?? body.churches?.[0]?.jwt;
    if (token) return { token, source: 'login' };
  }
  if (!answer.missing) throw new Error(`login of the bench user answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  const permissions: Partial<Record<ApiName, string[]>> = {};
  for (const p of PERMISSIONS) (permissions[p.apiName] ??= []).push(permissionKey(p.contentType, p.action));
  const token = createTokenSigner(secret)({
    id: fixtures.userId(0),
    email: fixtures.userEmail(0),
    churchId: fixtures.churchId,
    personId: fixtures.personId(0),
    membershipStatus: 'Member',
    permissions,
    leaderGroupIds: [],
  });
  return { token, source: 'signed (login route missing)', note: 'login route missing: scenarios used a token signed with the fleet secret' };
}

async function runScenario(s: Scenario, ctx: { url: string; token: string; opts: BenchOptions; attendanceMissing: boolean; missing: Record<string, string[]> }): Promise<Outcome> {
  const outcome: Outcome = { name: s.name, module: s.module, what: s.what, status: 'ok', target: s.target };
  // the trend report reads the attendance seed
  if ((s.module === 'attendance' || s.module === 'reporting') && ctx.attendanceMissing) return { ...outcome, status: 'skipped', note: 'attendance schema incomplete' };
  if (ctx.missing[s.module]) return { ...outcome, status: 'skipped', note: `${s.module} tables missing: ${ctx.missing[s.module]!.join(', ')}` };
  const req = s.request(ctx.token);
  const first = await probe(ctx.url, req);
  if (first.missing) return { ...outcome, status: 'missing', note: 'route not built yet' };
  if (first.status >= 300) outcome.note = `first request answered ${first.status}: ${first.text.slice(0, 200)}`;
  const load = { url: ctx.url, connections: ctx.opts.connections, duration: ctx.opts.duration, warmup: ctx.opts.warmup };
  if (s.name !== 'login') {
    const result = await runLoad(req, load);
    if (result.total === 0) outcome.note = `no response within the ${ctx.opts.duration} s run: each request took longer`;
    if (req.variants?.unique && result.variantsSent !== undefined && result.variantsSent > req.variants.count)
      outcome.note = `${result.variantsSent} requests for ${req.variants.count} distinct variants: some were sent twice (seed more)`;
    return { ...outcome, result };
  }

  // The storm must slow logins, not everything else: a low-rate authenticated read runs alongside it.
  const churches: LoadRequest = { method: 'GET', path: '/membership/churches', token: ctx.token };
  const probeReq = (await probe(ctx.url, churches)).status === 200 ? churches : { method: 'GET' as const, path: '/health' };
  const probeLoad = (duration: number) => ({ url: ctx.url, connections: 1, duration, warmup: 0, overallRate: 20 });
  const idle = await runLoad(probeReq, probeLoad(Math.min(3, ctx.opts.duration)));
  const [result, storm] = await Promise.all([runLoad(req, load), runLoad(probeReq, probeLoad(ctx.opts.duration + ctx.opts.warmup))]);
  return { ...outcome, result, loopProbe: { path: probeReq.path, idle, storm } };
}

let nextId = 1;

/** Whether a process of the deployment still runs (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends a message to the fleet child and waits for its answer with the same id. */
function ask<T extends FromChild['type']>(fleet: Child<FleetReady>, message: ToChild & { id: number }, answer: T, timeoutMs: number): Promise<Extract<FromChild, { type: T }>> {
  return askChild<FromChild, T>(fleet, message, answer, timeoutMs, 'the fleet');
}

/** Waits until the fleet has drained the previous run's queued requests, so runs do not overlap. */
async function quiet(fleet: Child<FleetReady>, deployment?: Deployment): Promise<void> {
  const waitedMs = deployment ? await deployment.quiet() : (await ask(fleet, { type: 'quiet', id: nextId++ }, 'quieted', 90_000)).waitedMs;
  if (waitedMs > 1000) log(`  (waited ${(waitedMs / 1000).toFixed(1)} s for the fleet to drain)`);
}

async function explain(fleet: Child<FleetReady>, requests: Array<{ name: string } & LoadRequest>, timeoutMs = 180_000): Promise<ExplainResult[]> {
  const message: ToChild & { id: number } = { type: 'explain', id: nextId++, requests: requests.map(({ name, method, path, body, token }) => ({ name, method, path, body, token })) };
  return (await ask(fleet, message, 'explained', timeoutMs)).results;
}

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const cpus = os.cpus();
  const { databaseUrl: _db, redisUrl: _redis, ...shownOptions } = opts;
  const report: BenchReport = {
    startedAt: new Date().toISOString(),
    target: opts.target,
    options: shownOptions,
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}`, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
    load: { start: os.loadavg() },
    redis: false,
    token: 'login',
    ceilings: { notes: [] },
    scenarios: [],
    explain: [],
    notes: [],
  };
  const scenarios = opts.only ? SCENARIOS.filter((s) => opts.only!.includes(s.name)) : SCENARIOS;
  const unknown = (opts.only ?? []).filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);

  const cleanups: Array<() => Promise<void> | void> = [];
  let appReadsFile: string | undefined;
  try {
    const pgUp = await postgresReachable(opts.databaseUrl);
    let databaseUrls: Record<string, string> | undefined;
    if (opts.target === 'postgres') {
      if (!pgUp) throw new Error(`PostgreSQL does not answer at ${opts.databaseUrl} (use --database-url or --target=embedded)`);
      log(opts.reuse ? 'bench_* databases: reusing when present' : 'bench_* databases: re-creating');
      databaseUrls = await prepareDatabases(opts.databaseUrl, opts.reuse);
    }
    // The embedded fleet is the no-infrastructure default: PGlite and in-process jobs.
    report.redis = opts.target === 'postgres' && opts.redis && (await redisReachable(opts.redisUrl));
    const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : mkdtempSync(path.join(os.tmpdir(), 'church-bench-'));
    if (opts.dataDir) mkdirSync(dataDir, { recursive: true });
    else cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    log(`starting the fleet (${opts.target}, Redis ${report.redis ? 'on' : 'off'}) and seeding ...`);
    const config: FleetChildConfig = { target: opts.target, dataDir, databaseUrls, redisUrl: report.redis ? opts.redisUrl : undefined, reuse: opts.reuse, extras: !!opts.appReads };
    // Embedded, the fleet runs with `pnpm start`'s Node flags, so its memory is what a church's box sees.
    const nodeFlags = opts.target === 'embedded' ? startFlags() : [];
    const startFleetChild = (reuse: boolean) =>
      startChild<FleetReady>('fleet-process.ts', { BENCH_FLEET: JSON.stringify({ ...config, reuse }) }, { prefix: '[fleet]', timeoutMs: 20 * 60_000, nodeFlags });
    let fleet = await startFleetChild(opts.reuse);
    cleanups.push(() => fleet.stop());
    const { secrets, seed } = fleet.ready;
    report.seed = seed;
    log(`fleet at ${fleet.ready.url}; seed ${seed.seeded ? `took ${(seed.ms / 1000).toFixed(1)} s` : 'reused'}: ${JSON.stringify(seed.counts)}`);
    for (const note of seed.notes) log(`note: ${note}`);
    // Embedded, the scenarios run against a fleet started afresh on the seeded data folder, as a church's box
    // runs after a restart: the seed bulk-loads five years of a 10,000-person church in minutes, and PGlite's
    // WASM memory, once grown by that, is never given back. The seed's own peak is reported beside.
    let seedPeak: number | undefined;
    if (opts.target === 'embedded' && seed.seeded) {
      seedPeak = (await ask(fleet, { type: 'memory', id: nextId++ }, 'memory', 10_000)).sample.hwm;
      await fleet.stop();
      log('restarting the embedded fleet on the seeded data ...');
      fleet = await startFleetChild(true);
    }

    // Deployed, the gateway and every service are processes of their own: the scenarios run against that
    // shape. The seeding fleet stays up, idle, for the EXPLAIN section (it records the SQL it runs).
    let deployment: Deployment | undefined;
    if (opts.fleet === 'processes') {
      if (!databaseUrls) throw new Error('--fleet=processes needs the postgres target');
      log('starting the deployment: the gateway and seven services, one process each ...');
      deployment = await startDeployment({ databaseUrls, redisUrl: report.redis ? opts.redisUrl : undefined, secrets, dataDir, log });
      cleanups.push(() => deployment!.stop());
    }
    const url = deployment?.url ?? fleet.ready.url;

    const load = { connections: opts.connections, duration: opts.duration, warmup: opts.warmup };
    log('ceiling: fastify hello ...');
    report.ceilings.hello = await measureCeiling('hello', {}, load);
    const ceilingDb = databaseUrls?.membership ?? (pgUp ? await prepareCeilingDatabase(opts.databaseUrl, Array.from({ length: SHAPE.churches }, (_, c) => fixtures.churchOf(c))) : undefined);
    if (ceilingDb) {
      log('ceiling: fastify+pg ...');
      report.ceilings.pg = await measureCeiling('pg', { BENCH_CEILING_DB: ceilingDb, BENCH_CEILING_CHURCH: fixtures.churchId }, load);
      if (opts.target === 'embedded') report.ceilings.notes.push('the fastify+pg ceiling ran on the local PostgreSQL server, the fleet on PGlite');
    } else {
      report.ceilings.notes.push('no PostgreSQL server: the fastify+pg ceiling was skipped');
    }

    if (!opts.appReads && scenarios.some((s) => s.name === 'login')) {
      log('ceiling: argon2id verify ...');
      // Every connection waits its turn for a hash here (the services refuse past a short queue with 503): the
      // ceiling is how many verifications this machine completes, not how fast it refuses.
      report.ceilings.argon2 = await measureCeiling('argon2', { PASSWORD_HASH_QUEUE: '100000' }, load);
    }

    const { token, source, note } = await obtainToken(url, secrets.JWT_SECRET);
    report.token = source;
    if (note) report.notes.push(note);

    if (opts.appReads) {
      log('app reads: every GET of the real apps, one after the other ...');
      const run = await runAppReads({
        url,
        staffToken: token,
        databaseUrls,
        connections: opts.connections,
        duration: opts.duration,
        warmup: opts.warmup,
        modules: opts.appReads.length ? opts.appReads : undefined,
        quiet: () => quiet(fleet, deployment),
        exited: () => (deployment?.processes ?? []).filter((p) => !alive(p.pid)).map((p) => p.name),
        explain: (requests) => (opts.explain ? explain(fleet, requests, 240_000) : Promise.resolve([])),
        log,
      });
      const machine = `${report.machine.cpus} × ${report.machine.model}, Node ${report.machine.node}, ${opts.fleet === 'processes' ? 'the gateway and each service in its own process' : 'one fleet process'}, Redis ${report.redis ? 'on' : 'off'}, load average ${report.load!.start.map((l) => l.toFixed(2)).join(' / ')} at the start and ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} at the end`;
      const options = `${opts.duration} s (after ${opts.warmup} s of warm-up) × ${opts.connections} connections per call`;
      appReadsFile = writeAppReadsReport(path.join(__dirname, 'results'), opts.target, run, { startedAt: report.startedAt, finishedAt: new Date().toISOString(), machine, options, pg: report.ceilings.pg, seedNotes: seed.notes, modules: opts.appReads });
      return;
    }
    // The peak under the scenarios, apart from the seed's.
    // Embedded, each scenario's own peak (VmHWM reset before it), to tell which load holds the most memory.
    const peaks: Array<{ name: string; hwm: number }> = [];
    const memory = async (resetPeak: boolean) => (await ask(fleet, { type: 'memory', id: nextId++, resetPeak }, 'memory', 10_000)).sample;
    const ctx = { url, token, opts, attendanceMissing: seed.missingAttendance.length > 0, missing: seed.missing ?? {} };
    for (const s of scenarios) {
      await quiet(fleet, deployment);
      // A shared machine drifts over a run (the same ceiling measured twice a minute apart has differed by a
      // quarter): a ratio target is taken against the mean of the fastify+pg ceilings measured right before and
      // right after its scenario (the one at the top of the report stays for the other columns).
      const bracketed = s.target?.kind === 'pgRatio' && ceilingDb;
      const pgCeiling = () => measureCeiling('pg', { BENCH_CEILING_DB: ceilingDb!, BENCH_CEILING_CHURCH: fixtures.churchId }, load);
      const before = bracketed ? await pgCeiling() : undefined;
      log(`scenario ${s.name} ...`);
      if (opts.target === 'embedded') await memory(true);
      const ran = await runScenario(s, ctx);
      if (opts.target === 'embedded') peaks.push({ name: s.name, hwm: (await memory(false)).hwm });
      let adjacentPg: Outcome['adjacentPg'];
      if (before) {
        await quiet(fleet, deployment);
        const after = await pgCeiling();
        adjacentPg = { before, after, rps: (before.rps + after.rps) / 2 };
      }
      const outcome = evaluate({ ...ran, adjacentPg }, report.ceilings);
      report.scenarios.push(outcome);
      if (outcome.status !== 'ok') log(`  ${outcome.status}: ${outcome.note ?? ''}`);
    }

    if (opts.target === 'embedded') {
      const sample = await memory(false);
      const mb = (n: number) => Math.round(n / 2 ** 20);
      const peak = Math.max(sample.hwm, ...peaks.map((p) => p.hwm));
      const highest = [...peaks].sort((a, b) => b.hwm - a.hwm).slice(0, 3).map((p) => `${p.name} ${mb(p.hwm)} MB`);
      report.notes.push(
        `memory of the embedded fleet (one process, \`node ${nodeFlags.join(' ')}\`): peak ${mb(peak)} MB resident (VmHWM) over the scenarios (the highest: ${highest.join(', ')}), ${mb(sample.rss)} MB after them (V8 heap ${mb(sample.heapTotal)} MB, ${mb(sample.heapUsed)} MB of it in use; WASM and buffers ${mb(sample.external)} MB; the snapshot stores hold ${mb(sample.snapshots ?? 0)} MB of the two); target ≤ 800 MB under the scenarios (issue 15)` +
          (seedPeak ? `; the seeding process, restarted before the scenarios, peaked at ${mb(seedPeak)} MB` : ''),
      );
    }

    if (opts.explain) {
      const wanted = scenarios.filter((s) => s.explain && report.scenarios.find((o) => o.name === s.name)?.status === 'ok');
      if (wanted.length) {
        log('explaining the queries of the scenarios marked explain ...');
        // The seeding fleet signs with the same secret, so the token is good there too.
        report.explain = await explain(fleet, wanted.map((s) => ({ name: s.name, ...s.request(token) })));
      }
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
  if (appReadsFile) {
    process.stdout.write(`\nwritten: ${path.relative(process.cwd(), appReadsFile)}\n`);
    return;
  }
  report.finishedAt = new Date().toISOString();
  report.load!.end = os.loadavg();
  const files = writeResults(report, path.join(__dirname, 'results'));
  process.stdout.write(`\n${textTable(report)}\n`);
  for (const e of report.explain) {
    process.stdout.write(`\n== EXPLAIN ${e.name} (HTTP ${e.status}) ==\n`);
    for (const q of e.queries) process.stdout.write(`${q.sql}\n-- params: ${JSON.stringify(q.params).slice(0, 300)}\n${q.plan}\n\n`);
    if (!e.queries.length) process.stdout.write(`${e.error ?? 'no SELECT captured'}\n`);
  }
  process.stdout.write(`\nwritten: ${path.relative(process.cwd(), files.json)}, ${path.relative(process.cwd(), files.md)}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
