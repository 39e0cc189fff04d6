import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { MODULES } from '@church/common';
import { api, mailbox, must } from './lib/client';
import { databaseUrl } from './lib/databases';
import { freePort, startDeployment, type Deployment } from './lib/deployment';

/*
 * The fault test (issue 32): the fleet as it is deployed — seven APIs, seven workers and the gateway, each its own
 * process, on PostgreSQL and Redis of their own — under steady mixed traffic, while Redis is killed (restarted
 * empty, then restarted from its append-only file) and PostgreSQL is stopped. For each fault it reports what the
 * clients were told (statuses, the slowest answer, how long after the fault ended the first success came) and
 * whether every acknowledged request had its effect once things settled: a welcome mail per registration, a
 * reset mail per forgot-password, a receipt per manual donation, every chat message at every listening socket.
 *
 *   npx tsx bench/faults.ts [--outage=10 --rate=4 --settle=120]
 *
 * It never touches the machine's own PostgreSQL and Redis: it starts a private PostgreSQL cluster (initdb, as the
 * `postgres` system user when run as root) and a private redis-server on free ports, and removes them at the end.
 * Writes bench/results/faults-postgres.md.
 */

interface Options {
  /** seconds each fault lasts */
  outage: number;
  /** requests per second of each kind */
  rate: number;
  /** seconds to wait, after a phase, for the effects of acknowledged requests */
  settle: number;
  /** processes of every API, every worker and the gateway (2: as a scaled-out Kubernetes deployment) */
  replicas: number;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string, fallback: number) => {
    const arg = argv.find((a) => a.startsWith(`--${name}=`));
    const value = arg ? Number(arg.split('=')[1]) : fallback;
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const unknown = argv.filter((a) => !/^--(outage|rate|settle|replicas)=/.test(a));
  if (unknown.length) throw new Error(`unknown option(s): ${unknown.join(' ')}\nusage: npx tsx bench/faults.ts [--outage=10 --rate=4 --settle=120 --replicas=1]`);
  return { outage: get('outage', 10), rate: get('rate', 4), settle: get('settle', 120), replicas: Math.floor(get('replicas', 1)) };
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- private datastores ---------------------------------------------------------------------------------

const PG_BIN = (() => {
  const versions = readdirSync('/usr/lib/postgresql').sort();
  return `/usr/lib/postgresql/${versions[versions.length - 1]}/bin`;
})();
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the `postgres` user when we are root (initdb refuses root). */
function pgTool(tool: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', `${PG_BIN}/${tool}`, ...args]] : [`${PG_BIN}/${tool}`, args];
  const res = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${res.stderr || res.stdout}`);
}

async function startPostgres(dir: string, port: number) {
  mkdirSync(dir, { recursive: true });
  if (asRoot) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
  chmodSync(dir, 0o700);
  pgTool('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`;
  const start = () => pgTool('pg_ctl', ['-D', dir, '-l', path.join(dir, 'log'), '-o', options, '-w', 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pgTool('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop']),
    start,
  };
}

function startRedis(dir: string, port: number, persistent: boolean): ChildProcess {
  mkdirSync(dir, { recursive: true });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--maxmemory-policy', 'noeviction'];
  args.push('--appendonly', persistent ? 'yes' : 'no', '--appendfsync', 'everysec');
  return spawn('redis-server', args, { stdio: 'ignore' });
}

// ---- traffic ----------------------------------------------------------------------------------------------

type Kind = 'register' | 'forgot' | 'donation' | 'chat' | 'checkin';
const KINDS: Kind[] = ['register', 'forgot', 'donation', 'chat', 'checkin'];

interface Sent {
  kind: Kind;
  at: number;
  ms: number;
  status: number;
  /** whose effect to look for: the mail recipient, or the chat message id */
  key?: string;
}

interface Setup {
  token: string;
  churchId: string;
  forgotUsers: string[];
  donors: Array<{ id: string; email: string }>;
  conversationId: string;
  serviceId: string;
  serviceTimeId: string;
  groupId: string;
  kids: string[];
}

/** A church with an admin, donors, a chat, and a service with a group for check-in, made through the API. */
async function setUp(base: string, dataDir: string): Promise<Setup> {
  const email = `admin-${randomUUID().slice(0, 8)}@faults.test`;
  must(await api(base, 'POST', '/membership/users/register', { email, firstName: 'Fay', lastName: 'Ult' }), 'register');
  let guid: string | undefined;
  for (let i = 0; i < 100 && !guid; i++) {
    const mail = mailbox(dataDir).find((m) => m.to === email);
    guid = mail?.text.match(/auth=([A-Za-z0-9_-]+)/)?.[1];
    if (!guid) await sleep(100);
  }
  if (!guid) throw new Error('no welcome mail with a link arrived');
  const first = must<{ user: { jwt: string } }>(await api(base, 'POST', '/membership/users/login', { authGuid: guid }), 'login');
  const church = must<{ id: string }>(
    await api(base, 'POST', '/membership/churches/add', { name: 'Fault Chapel', address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' }, first.user.jwt),
    'churches/add',
  );
  const selected = must<{ token: string }>(await api(base, 'POST', '/membership/churches/select', { churchId: church.id }, first.user.jwt), 'select');
  const token = selected.token;
  // Accounts to send reset links to, and donors with addresses to receipt.
  const forgotUsers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const e = `reset-${i}-${randomUUID().slice(0, 6)}@faults.test`;
    must(await api(base, 'POST', '/membership/users/register', { email: e, firstName: 'Reset', lastName: String(i) }), 'register');
    forgotUsers.push(e);
  }
  const donorRows = Array.from({ length: 400 }, (_, i) => ({ firstName: 'Donor', lastName: String(i), contactInfo: { email: `donor-${i}-${randomUUID().slice(0, 6)}@faults.test` } }));
  const donors = must<Array<{ id: string; contactInfo: { email: string } }>>(await api(base, 'POST', '/membership/people', donorRows, token), 'people').map((p) => ({ id: p.id, email: p.contactInfo.email }));
  const kids = must<Array<{ id: string }>>(await api(base, 'POST', '/membership/people', Array.from({ length: 5 }, (_, i) => ({ firstName: 'Kid', lastName: String(i) })), token), 'people').map((p) => p.id);
  const [group] = must<Array<{ id: string }>>(await api(base, 'POST', '/membership/groups', [{ name: 'Nursery', trackAttendance: true }], token), 'groups');
  const [campus] = must<Array<{ id: string }>>(await api(base, 'POST', '/attendance/campuses', [{ name: 'Main' }], token), 'campuses');
  const [service] = must<Array<{ id: string }>>(await api(base, 'POST', '/attendance/services', [{ campusId: campus!.id, name: 'Sunday' }], token), 'services');
  const [time] = must<Array<{ id: string }>>(await api(base, 'POST', '/attendance/servicetimes', [{ serviceId: service!.id, name: '9am' }], token), 'servicetimes');
  const [conversation] = must<Array<{ id: string }>>(
    await api(base, 'POST', '/messaging/conversations', [{ contentType: 'streamingLive', contentId: 'faults', title: 'Live', allowAnonymousPosts: true }], token),
    'conversations',
  );
  return { token, churchId: church.id, forgotUsers, donors, conversationId: conversation!.id, serviceId: service!.id, serviceTimeId: time!.id, groupId: group!.id, kids };
}

/** Sockets on the live chat, recording every message id they are sent. */
async function openSockets(bases: string[], setup: Setup, count: number) {
  // How many times each socket received each message: exactly once is the guarantee, more is a duplicate.
  const seen = Array.from({ length: count }, () => new Map<string, number>());
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    // spread over the gateways, so with replicas the sockets sit on every messaging replica
    const base = bases[i % bases.length]!;
    const ws = new WebSocket(`${base.replace('http', 'ws')}/messaging/ws`);
    const id = await new Promise<string>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { action: string; data: { id?: string } | string };
        if (frame.action === 'socketId') resolve(frame.data as string);
        else if (frame.action === 'message' && typeof frame.data === 'object' && frame.data.id) seen[i]!.set(frame.data.id, (seen[i]!.get(frame.data.id) ?? 0) + 1);
      });
    });
    must(await api(base, 'POST', '/messaging/connections', { churchId: setup.churchId, conversationId: setup.conversationId, socketId: id, displayName: `Viewer ${i}` }), 'connections');
    sockets.push(ws);
  }
  return { seen, close: () => sockets.forEach((s) => s.close()) };
}

/** One request of a kind; what the effect check needs is in `key`. */
async function send(base: string, setup: Setup, kind: Kind, n: number): Promise<Sent> {
  const at = Date.now();
  let res: { status: number; json: unknown; ms: number };
  let key: string | undefined;
  switch (kind) {
    case 'register':
      key = `new-${n}-${randomUUID().slice(0, 8)}@faults.test`;
      res = await api(base, 'POST', '/membership/users/register', { email: key, firstName: 'New', lastName: String(n) });
      break;
    case 'forgot':
      key = setup.forgotUsers[n % setup.forgotUsers.length]!;
      res = await api(base, 'POST', '/membership/users/forgot', { userEmail: key });
      break;
    case 'donation': {
      const donor = setup.donors[n % setup.donors.length]!;
      key = donor.email;
      res = await api(base, 'POST', '/giving/donations', [{ personId: donor.id, amount: 25, method: 'cash', donationDate: new Date().toISOString() }], setup.token);
      break;
    }
    case 'chat':
      res = await api(base, 'POST', '/messaging/messages/send', [{ churchId: setup.churchId, conversationId: setup.conversationId, content: `fault ${n}`, displayName: 'Load' }]);
      key = Array.isArray(res.json) ? (res.json[0] as { id?: string } | undefined)?.id : undefined;
      break;
    case 'checkin': {
      const kid = setup.kids[n % setup.kids.length]!;
      res = await api(base, 'POST', `/attendance/visits/checkin?serviceId=${setup.serviceId}&peopleIds=${kid}`, [{ personId: kid, visitSessions: [{ session: { serviceTimeId: setup.serviceTimeId, groupId: setup.groupId } }] }], setup.token);
      break;
    }
  }
  return { kind, at, ms: res.ms, status: res.status, key };
}

// ---- phases -------------------------------------------------------------------------------------------------

interface Phase {
  name: string;
  /** breaks something; answers the function that mends it */
  fault: () => Promise<() => Promise<void>>;
}

interface PhaseResult {
  name: string;
  faultStart: number;
  faultEnd: number;
  rows: Array<{ kind: Kind; sent: number; ok: number; statuses: string; slowestMs: number; recoveryS: string; lost: number; duplicated: number }>;
  settledS: number;
}

/** What the effect check counts of one kind: effects missing, and effects beyond the one each request was owed. */
interface EffectCount {
  lost: number;
  duplicated: number;
}

function summarize(name: string, sent: Sent[], faultStart: number, faultEnd: number, effectsOf: (kind: Kind) => EffectCount, settledS: number): PhaseResult {
  const rows = KINDS.map((kind) => {
    const mine = sent.filter((s) => s.kind === kind);
    const counts = new Map<number, number>();
    for (const s of mine) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
    const statuses = [...counts].sort((a, b) => a[0] - b[0]).map(([st, n]) => `${n}×${st || 'no answer'}`).join(', ');
    const firstOk = mine.filter((s) => s.at >= faultEnd && s.status >= 200 && s.status < 300).sort((a, b) => a.at - b.at)[0];
    return {
      kind,
      sent: mine.length,
      ok: mine.filter((s) => s.status >= 200 && s.status < 300).length,
      statuses,
      slowestMs: Math.round(Math.max(0, ...mine.map((s) => s.ms))),
      recoveryS: firstOk ? ((firstOk.at - faultEnd) / 1000).toFixed(1) : 'none',
      ...effectsOf(kind),
    };
  });
  return { name, faultStart, faultEnd, rows, settledS };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(path.join(os.tmpdir(), 'church-faults-'));
  // Every line of every process, kept after the run (the work folder is removed): what a failed phase is read from.
  const wholeLog = path.join(os.tmpdir(), `church-faults-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
  log(`whole logs of every process: ${wholeLog}`);
  if (asRoot) spawnSync('chmod', ['755', work]);
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir, { recursive: true });
  const pgPort = await freePort();
  const redisPort = await freePort();
  const pg = await startPostgres(path.join(work, 'pg'), pgPort);
  const redisDir = path.join(work, 'redis');
  let persistent = false;
  let redis = startRedis(redisDir, redisPort, persistent);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  let deployment: Deployment | undefined;
  let sockets: Awaited<ReturnType<typeof openSockets>> | undefined;
  try {
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    const databaseUrls: Record<string, string> = {};
    for (const m of MODULES) {
      await admin.query(`create database "${m}"`);
      databaseUrls[m] = databaseUrl(pg.url, m);
    }
    await admin.end();
    const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), INTERNAL_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    log('applying migrations ...');
    for (const m of MODULES) {
      const res = spawnSync(process.execPath, ['--import', 'tsx', `services/${m}/src/migrate.ts`], { cwd: path.resolve(__dirname, '..'), env: { ...process.env, ...secrets, DATABASE_URL: databaseUrls[m], LOG_LEVEL: 'warn' }, encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`${m} migrations failed: ${res.stderr}`);
    }
    log('starting seven APIs, seven workers and the gateway ...');
    deployment = await startDeployment({
      databaseUrls,
      redisUrl,
      secrets,
      dataDir,
      log,
      wholeLog: (line) => appendFileSync(wholeLog, `${line}\n`),
      workers: true,
      // --replicas=N: N of every API, every worker and the gateway (requests and sockets spread over the gateways)
      replicas: Object.fromEntries(MODULES.map((m) => [m, opts.replicas])),
      gateways: opts.replicas,
      // Receipts a few seconds after the gift, so a phase sees them due during its fault.
      env: { giving: { RECEIPT_DELAY_MS: '3000' } },
    });
    const base = deployment.url;
    const bases = deployment.urls;
    const setup = await setUp(base, dataDir);
    sockets = await openSockets(bases, setup, 10);
    log(`church ${setup.churchId} ready; ${KINDS.length} kinds of request at ${opts.rate}/s each`);

    const phases: Phase[] = [
      { name: 'no fault', fault: async () => async () => undefined },
      {
        name: 'Redis killed, restarted empty (no persistence)',
        fault: async () => {
          redis.kill('SIGKILL');
          return async () => {
            rmSync(redisDir, { recursive: true, force: true });
            redis = startRedis(redisDir, redisPort, false);
          };
        },
      },
      {
        name: 'Redis killed, restarted from its append-only file',
        fault: async () => {
          // A persistent Redis first (its file then holds the queue), killed without warning.
          redis.kill('SIGTERM');
          await sleep(500);
          persistent = true;
          redis = startRedis(redisDir, redisPort, persistent);
          await sleep(2000);
          redis.kill('SIGKILL');
          return async () => {
            redis = startRedis(redisDir, redisPort, persistent);
          };
        },
      },
      {
        name: 'PostgreSQL stopped',
        fault: async () => {
          pg.stop();
          return async () => pg.start();
        },
      },
    ];

    const results: PhaseResult[] = [];
    let n = 0;
    // The mails the set-up sent (the forgot-password users' welcome mails) are owed already: counted, not duplicates.
    for (const m of mailbox(dataDir)) expectedTotal.set(m.to, (expectedTotal.get(m.to) ?? 0) + 1);
    for (const phase of phases) {
      log(`phase: ${phase.name}`);
      const sent: Sent[] = [];
      const inFlight: Array<Promise<void>> = [];
      const mailsBefore = mailbox(dataDir).length;
      const leadMs = 3000;
      const tailMs = 10_000;
      const started = Date.now();
      let faultStart = 0;
      let faultEnd = 0;
      let mend: (() => Promise<void>) | undefined;
      const total = leadMs + opts.outage * 1000 + tailMs;
      const interval = 1000 / opts.rate;
      for (let t = 0; Date.now() - started < total; t++) {
        const elapsed = Date.now() - started;
        if (!faultStart && elapsed >= leadMs) {
          mend = await phase.fault();
          faultStart = Date.now();
        }
        if (faultStart && !faultEnd && Date.now() - faultStart >= opts.outage * 1000) {
          await mend!();
          faultEnd = Date.now();
        }
        for (const kind of KINDS) {
          const i = n++;
          inFlight.push(send(bases[i % bases.length]!, setup, kind, i).then((s) => void sent.push(s)));
        }
        const next = started + (t + 1) * interval;
        await sleep(Math.max(0, next - Date.now()));
      }
      if (!faultEnd) {
        await mend?.();
        faultEnd = Date.now();
      }
      await Promise.all(inFlight);
      // Settle: wait until every acknowledged request has its effect, or the time is up.
      const settleStart = Date.now();
      const effects = () => {
        const mails = mailbox(dataDir);
        const mailsTo = new Map<string, number>();
        for (const m of mails) mailsTo.set(m.to, (mailsTo.get(m.to) ?? 0) + 1);
        const acked = (kind: Kind) => sent.filter((s) => s.kind === kind && s.status >= 200 && s.status < 300);
        const mailEffects = (kind: Kind): EffectCount => {
          // mails are counted per recipient across the whole run (a recipient's earlier phases' mails are its own),
          // exactly: fewer than owed is lost, more is duplicated
          const keys = new Set(acked(kind).map((s) => s.key!));
          const count = { lost: 0, duplicated: 0 };
          for (const key of keys) {
            const owed = expectedTotal.get(key) ?? 0;
            const got = mailsTo.get(key) ?? 0;
            count.lost += Math.max(0, owed - got);
            count.duplicated += Math.max(0, got - owed);
          }
          return count;
        };
        const chatIds = acked('chat').map((s) => s.key).filter((k): k is string => !!k);
        const pushes: EffectCount = {
          lost: chatIds.filter((id) => sockets!.seen.some((s) => !s.has(id))).length,
          duplicated: chatIds.reduce((n, id) => n + sockets!.seen.reduce((m, s) => m + Math.max(0, (s.get(id) ?? 0) - 1), 0), 0),
        };
        return (kind: Kind): EffectCount => (kind === 'chat' ? pushes : kind === 'checkin' ? { lost: 0, duplicated: 0 } : mailEffects(kind));
      };
      for (const s of sent) if (s.status >= 200 && s.status < 300 && s.key && s.kind !== 'chat' && s.kind !== 'checkin') expectedTotal.set(s.key, (expectedTotal.get(s.key) ?? 0) + 1);
      let check = effects();
      while (KINDS.some((k) => check(k).lost > 0) && Date.now() - settleStart < opts.settle * 1000) {
        await sleep(1000);
        check = effects();
      }
      // A duplicate can arrive after the last owed effect (a job handed over again by the sweep): look once more
      // after the outbox's confirmation window.
      await sleep(2000);
      check = effects();
      const settledS = (Date.now() - settleStart) / 1000;
      const result = summarize(phase.name, sent, faultStart, faultEnd, check, settledS);
      results.push(result);
      log(`  ${mailbox(dataDir).length - mailsBefore} mails; settled in ${settledS.toFixed(1)} s; lost: ${result.rows.map((r) => `${r.kind} ${r.lost}`).join(', ')}; duplicated: ${result.rows.map((r) => `${r.kind} ${r.duplicated}`).join(', ')}`);
    }
    writeReport(results, opts);
    const failed = results.flatMap((r) => r.rows.filter((row) => row.lost > 0 || row.duplicated > 0).map((row) => `${r.name}: ${row.kind} lost ${row.lost}, duplicated ${row.duplicated}`));
    if (failed.length) {
      log(`effects lost or duplicated:\n  ${failed.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    sockets?.close();
    await deployment?.stop();
    redis.kill('SIGKILL');
    try {
      pg.stop();
    } catch {
      // already stopped
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** Mails each recipient should have by now, over the whole run (a reset user is mailed in several phases). */
const expectedTotal = new Map<string, number>();

function writeReport(results: PhaseResult[], opts: Options) {
  const lines = [
    '# Fault test (`npx tsx bench/faults.ts`)',
    '',
    `${new Date().toISOString()}. ${opts.replicas === 1 ? 'Seven APIs, seven workers and the gateway' : `${opts.replicas} replicas of each of the seven APIs, of each worker and of the gateway (requests and sockets spread over the gateways)`}, each its own process, on a private PostgreSQL and Redis. ` +
      `Each phase: 3 s of traffic, the fault for ${opts.outage} s, 10 s more; ${opts.rate} requests/s of each kind (registration, forgot-password, ` +
      `manual donation, chat message to 10 listening sockets, check-in). "Lost" counts acknowledged (2xx) requests whose effect (the welcome ` +
      `mail, the reset mail, the receipt, the push at every socket) had not happened ${opts.settle} s after the phase at the latest; ` +
      `"duplicated" counts effects beyond the one each acknowledged request was owed (a mail twice, a socket given the same message twice). ` +
      `The run exits 1 when any phase lost or duplicated an effect.`,
    '',
  ];
  for (const r of results) {
    lines.push(`## ${r.name}`, '', `Effects settled ${r.settledS.toFixed(1)} s after the phase.`, '');
    lines.push('| request | sent | 2xx | statuses | slowest answer (ms) | first 2xx after the fault ended (s) | lost effects | duplicated effects |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const row of r.rows) lines.push(`| ${row.kind} | ${row.sent} | ${row.ok} | ${row.statuses} | ${row.slowestMs} | ${row.recoveryS} | ${row.lost} | ${row.duplicated} |`);
    lines.push('');
  }
  const file = path.resolve(__dirname, 'results', opts.replicas === 1 ? 'faults-postgres.md' : `faults-postgres-${opts.replicas}-replicas.md`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
