import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { MODULES } from '@church/common';
import type { Webhook as WebhookVerifier } from '../services/membership/node_modules/standardwebhooks';
import { fakeStripe, type FakeStripe } from '../services/giving/test/fake-stripe';
import { api, mailbox, must } from './lib/client';
import { databaseUrl } from './lib/databases';
import { freePort, startDeployment, type Deployment } from './lib/deployment';

/*
 * The fault test (issue 32): the fleet as it is deployed — seven APIs, seven workers and the gateway, each its own
 * process, on PostgreSQL and Redis of their own — under steady mixed traffic, while Redis is killed (restarted
 * empty, then restarted from its append-only file) and PostgreSQL is stopped. For each fault it reports what the
 * clients were told (statuses, the slowest answer, how long after the fault ended the first success came) and
 * whether every acknowledged request had its effect exactly once once things settled (issue 42): a welcome mail per
 * registration, a reset mail per forgot-password, a receipt per manual donation, every chat message at every listening
 * socket, one charge and one confirmed registration per paid event registration (content → giving → giving's loopback
 * Stripe fake), one mail per member of a group email, one accepted person.created delivery per new member at a webhook
 * receiver on loopback, one workflow card per new visitor. Two more phases: Stripe and the receiver answering 500,
 * and Redis restarted empty right after a group email to 100 people was acknowledged.
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

// ---- outside systems on loopback --------------------------------------------------------------------------

/**
 * The church's webhook receiver: verifies each delivery's Standard Webhooks signature with the secret the webhook
 * was saved with and keeps every delivery it accepted (answered 2xx). While `failing`, it answers 500 to all of
 * them (the receiver's outage of the issue's campaign); a delivery it refused is not delivered yet, so a retry of
 * it is owed, not a duplicate.
 */
async function webhookReceiver() {
  // bench has no dependency on standardwebhooks: the library membership signs with verifies here.
  const { Webhook } = createRequire(path.resolve(__dirname, '../services/membership/package.json'))('standardwebhooks') as { Webhook: typeof WebhookVerifier };
  const state = { secret: '', failing: false, refused: 0, badSignatures: 0 };
  /** deliveries answered 2xx: the message id and the person the event is about */
  const accepted: Array<{ webhookId: string; event: string; personId: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (state.failing) {
        state.refused++;
        res.writeHead(500).end('receiver down');
        return;
      }
      let payload: { event?: string; data?: { id?: string } };
      try {
        payload = new Webhook(state.secret).verify(body, req.headers as Record<string, string>) as typeof payload;
      } catch {
        state.badSignatures++;
        res.writeHead(400).end('bad signature');
        return;
      }
      accepted.push({ webhookId: String(req.headers['webhook-id']), event: String(payload.event), personId: String(payload.data?.id) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, state, accepted, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

// ---- traffic ----------------------------------------------------------------------------------------------

type Kind = 'register' | 'forgot' | 'donation' | 'chat' | 'checkin' | 'paid-registration' | 'webhook' | 'workflow-card' | 'group-email';
const KINDS: Kind[] = ['register', 'forgot', 'donation', 'chat', 'checkin', 'paid-registration', 'webhook', 'workflow-card', 'group-email'];
/** Seconds between two group emails (each is 40 mails): the other kinds are sent `rate` times a second. */
const GROUP_EMAIL_EVERY_S = 5;
const CARD = { provider: 'stripe', token: 'pm_card_visa', type: 'card' };

interface Sent {
  kind: Kind;
  at: number;
  ms: number;
  status: number;
  /**
   * whose effect to look for: the mail recipient, the chat message id, the registration id (also of a 503 that
   * named one), the new person's id (webhook, workflow card), the group email's subject
   */
  key?: string;
  /** a group email's recipients */
  recipients?: string[];
  /** a paid registration refused with 503 + Retry-After: the one retry of its payment */
  retry?: { status: number; ms: number; afterS: number };
}

/** Whether a request's effect is owed: a 2xx, or (a paid registration) a 2xx of its retried payment. */
const owed = (s: Sent) => (s.status >= 200 && s.status < 300) || (!!s.retry && s.retry.status >= 200 && s.retry.status < 300);

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
  /** a priced event (one $25 attendee type) guests register for and pay by card */
  eventId: string;
  registrationTypeId: string;
  /** the group the steady group emails go to, and the one of the phase after which Redis is emptied */
  mailGroup: { id: string; emails: string[] };
  bigGroup: { id: string; emails: string[] };
  /** the workflow whose trigger (person.created, membership status Visitor) starts a card per new visitor */
  workflowId: string;
}

/** People with addresses in a new group of the church; answers the group and their addresses. */
async function groupOf(base: string, token: string, name: string, size: number) {
  const rows = Array.from({ length: size }, (_, i) => ({ firstName: name, lastName: String(i), contactInfo: { email: `${name.toLowerCase()}-${i}-${randomUUID().slice(0, 6)}@faults.test` } }));
  const people = must<Array<{ id: string; contactInfo: { email: string } }>>(await api(base, 'POST', '/membership/people', rows, token), 'people');
  const [group] = must<Array<{ id: string }>>(await api(base, 'POST', '/membership/groups', [{ name }], token), 'groups');
  must(await api(base, 'POST', '/membership/groupmembers', people.map((p) => ({ groupId: group!.id, personId: p.id })), token), 'groupmembers');
  return { id: group!.id, emails: people.map((p) => p.contactInfo.email) };
}

/** A church with an admin, donors, a chat, a service with a group for check-in, a paid event, mail groups, a workflow and its webhook, made through the API. */
async function setUp(base: string, dataDir: string, hookUrl: string): Promise<Setup & { webhookSecret: string }> {
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
  // Their welcome mails are owed before the phases start (the run counts each recipient's mails from then on).
  for (let i = 0; i < 600 && !forgotUsers.every((u) => mailbox(dataDir).some((m) => m.to === u)); i++) await sleep(100);
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
  // Paid registrations: the church's Stripe gateway (giving talks to the loopback fake) and a $25 event.
  must(await api(base, 'POST', '/giving/gateways', [{ provider: 'stripe', publicKey: 'pk_test_faults', privateKey: 'sk_test_faults', webhookKey: `whsec_${randomBytes(24).toString('base64')}`, productId: 'prod_faults' }], token), 'gateways');
  const start = new Date(Date.now() + 14 * 86_400_000);
  const [event] = must<Array<{ id: string }>>(
    await api(base, 'POST', '/content/events', [{ groupId: group!.id, title: 'Fault Camp', start: start.toISOString(), end: new Date(start.getTime() + 7_200_000).toISOString(), registrationEnabled: true }], token),
    'events',
  );
  const [type] = must<Array<{ id: string }>>(await api(base, 'POST', '/content/registrations/types', [{ eventId: event!.id, name: 'Adult', price: 25, capacity: null, sort: 1 }], token), 'registration types');
  const mailGroup = await groupOf(base, token, 'Choir', 40);
  const bigGroup = await groupOf(base, token, 'Congregation', 100);
  // The people above are reported (changes, webhook events) by jobs: let them pass before the webhook and the
  // trigger exist, so neither sees the set-up's people.
  await sleep(3000);
  const workflow = must<{ id: string }>(await api(base, 'POST', '/doing/workflows/fromTemplate', { templateKey: 'newVisitor', name: 'Fault visitors' }, token), 'workflow');
  const visitors = JSON.stringify({ type: 'group', conjunction: 'AND', children: [{ type: 'condition', field: 'person.membershipStatus', operator: '=', value: 'Visitor' }] });
  must(await api(base, 'POST', '/doing/workflowTriggers', [{ name: 'New visitors', triggerKind: 'event', eventType: 'person.created', workflowId: workflow.id, conditions: visitors, oncePerSubject: true, active: true }], token), 'workflow trigger');
  const hook = must<{ secret: string }>(await api(base, 'POST', '/membership/webhooks', { name: 'Fault receiver', url: hookUrl, events: ['person.created'], active: true, connectorType: 'standard' }, token), 'webhook');
  return {
    token,
    churchId: church.id,
    forgotUsers,
    donors,
    conversationId: conversation!.id,
    serviceId: service!.id,
    serviceTimeId: time!.id,
    groupId: group!.id,
    kids,
    eventId: event!.id,
    registrationTypeId: type!.id,
    mailGroup,
    bigGroup,
    workflowId: workflow.id,
    webhookSecret: hook.secret,
  };
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

/** A group email with a subject of its own (the key its mails are counted by). */
async function sendGroupEmail(base: string, setup: Setup, group: { id: string; emails: string[] }, n: number): Promise<Sent> {
  const at = Date.now();
  const subject = `Group news ${n} ${randomUUID().slice(0, 8)}`;
  const res = await api(base, 'POST', '/messaging/emailTemplates/send', { groupId: group.id, subject, htmlContent: '<p>Dear {{firstName}}, the choir meets on Thursday.</p>' }, setup.token);
  return { kind: 'group-email', at, ms: res.ms, status: res.status, key: subject, recipients: group.emails };
}

/** One request of a kind; what the effect check needs is in `key`. */
async function send(base: string, setup: Setup, kind: Kind, n: number): Promise<Sent> {
  const at = Date.now();
  let res: { status: number; json: unknown; ms: number; headers?: Headers };
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
    case 'paid-registration': {
      // A guest of the signed-out wizard registers for the $25 event and pays by card at once.
      const guest = { firstName: 'Guest', lastName: String(n), email: `guest-${n}-${randomUUID().slice(0, 6)}@faults.test` };
      res = await api(base, 'POST', '/content/registrations/register', { churchId: setup.churchId, eventId: setup.eventId, guestInfo: guest, members: [{ firstName: guest.firstName, lastName: guest.lastName, registrationTypeId: setup.registrationTypeId }], ...CARD });
      const body = (res.json ?? {}) as { id?: string; registrationId?: string; payKey?: string };
      key = res.status >= 200 && res.status < 300 ? body.id : body.registrationId;
      const retryAfter = Number(res.headers?.get('retry-after'));
      // 503 + Retry-After + the registration: a deliberate refusal. Retried once, after the time it names, as the app does.
      if (res.status === 503 && body.registrationId && Number.isFinite(retryAfter)) {
        await sleep(Math.min(retryAfter, 60) * 1000);
        const again = await api(base, 'POST', `/content/registrations/${body.registrationId}/pay`, { payKey: body.payKey, ...CARD });
        return { kind, at, ms: res.ms, status: res.status, key, retry: { status: again.status, ms: again.ms, afterS: retryAfter } };
      }
      break;
    }
    case 'webhook':
    case 'workflow-card': {
      // A new person: membership reports person.created to the webhook (every new person) and to the workflow's
      // trigger (visitors only): a `webhook` person is a member, a `workflow-card` person a visitor.
      const status = kind === 'webhook' ? 'Member' : 'Visitor';
      res = await api(base, 'POST', '/membership/people', [{ firstName: kind === 'webhook' ? 'Hook' : 'Visitor', lastName: String(n), membershipStatus: status }], setup.token);
      key = Array.isArray(res.json) ? (res.json[0] as { id?: string } | undefined)?.id : undefined;
      break;
    }
    case 'group-email':
      return sendGroupEmail(base, setup, setup.mailGroup, n);
  }
  return { kind, at, ms: res.ms, status: res.status, key };
}

// ---- effects ------------------------------------------------------------------------------------------------

/** What the effect check counts of one kind: effects missing, and effects beyond the one each request was owed. */
interface EffectCount {
  lost: number;
  duplicated: number;
}

/** The dev mailbox, each file parsed once (thousands of mails are read every second while a phase settles). */
function mailReader(dataDir: string) {
  const dir = path.join(dataDir, 'mail');
  const kept = new Map<string, { to: string; subject: string }>();
  return () => {
    let files: string[] = [];
    try {
      files = readdirSync(dir);
    } catch {
      return [...kept.values()];
    }
    for (const f of files) {
      if (kept.has(f)) continue;
      try {
        const m = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { to: string; subject: string };
        kept.set(f, { to: m.to, subject: m.subject });
      } catch {
        // a mail being written this moment
      }
    }
    return [...kept.values()];
  };
}

/** Rows of one module's database, or undefined while it cannot be read. */
async function rowsOf<T>(url: string, sql: string, params: unknown[]): Promise<T[] | undefined> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query(sql, params)).rows as T[];
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface World {
  mails: () => Array<{ to: string; subject: string }>;
  sockets: { seen: Array<Map<string, number>> };
  stripe: FakeStripe;
  receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  databaseUrls: Record<string, string>;
  setup: Setup;
}

/** Counts each kind's lost and duplicated effects for the requests of a phase; notes what a count alone does not say. */
async function countEffects(world: World, sent: Sent[]): Promise<{ counts: Record<Kind, EffectCount>; notes: string[] }> {
  const none = (): EffectCount => ({ lost: 0, duplicated: 0 });
  const counts = Object.fromEntries(KINDS.map((k) => [k, none()])) as Record<Kind, EffectCount>;
  const notes: string[] = [];
  const ofKind = (kind: Kind) => sent.filter((s) => s.kind === kind);
  const acked = (kind: Kind) => ofKind(kind).filter(owed);
  const tally = (count: EffectCount, owes: number, got: number) => {
    count.lost += Math.max(0, owes - got);
    count.duplicated += Math.max(0, got - owes);
  };

  // Mails: welcome, reset and receipt mails per recipient across the whole run (a recipient's earlier phases' mails
  // are its own); a group email's per recipient and subject (each subject is one send's).
  const mails = world.mails();
  const mailsTo = new Map<string, number>();
  const bySubject = new Map<string, number>();
  for (const m of mails) {
    mailsTo.set(m.to, (mailsTo.get(m.to) ?? 0) + 1);
    bySubject.set(`${m.to}\n${m.subject}`, (bySubject.get(`${m.to}\n${m.subject}`) ?? 0) + 1);
  }
  for (const kind of ['register', 'forgot', 'donation'] as const) {
    // A request without a 2xx (no answer in 30 s, a gateway's 502) may have had its effect, once: the recipient is
    // owed at least its acknowledged mails and at most those plus its unacknowledged ones.
    for (const key of new Set(ofKind(kind).filter((s) => s.key).map((s) => s.key!))) {
      const range = expectedTotal.get(key) ?? { min: 0, max: 0 };
      const got = mailsTo.get(key) ?? 0;
      counts[kind].lost += Math.max(0, range.min - got);
      counts[kind].duplicated += Math.max(0, got - range.max);
    }
  }
  for (const s of ofKind('group-email').filter((e) => !owed(e))) {
    // not acknowledged: each member mailed at most once
    for (const to of s.recipients!) counts['group-email'].duplicated += Math.max(0, (bySubject.get(`${to}\n${s.key}`) ?? 0) - 1);
  }
  for (const s of acked('group-email')) {
    const count = s.recipients === world.setup.bigGroup.emails ? none() : counts['group-email'];
    for (const to of s.recipients!) tally(count, 1, bySubject.get(`${to}\n${s.key}`) ?? 0);
    if (count !== counts['group-email']) {
      notes.push(`Group email to ${s.recipients!.length} people sent just before Redis was emptied: ${s.recipients!.filter((to) => bySubject.get(`${to}\n${s.key}`) === 1).length} mailed exactly once, lost ${count.lost}, duplicated ${count.duplicated}.`);
      counts['group-email'].lost += count.lost;
      counts['group-email'].duplicated += count.duplicated;
    }
  }

  // Chat: every acknowledged message at every socket, once.
  const chatIds = acked('chat').map((s) => s.key).filter((k): k is string => !!k);
  counts.chat = {
    lost: chatIds.filter((id) => world.sockets.seen.some((s) => !s.has(id))).length,
    duplicated: chatIds.reduce((n, id) => n + world.sockets.seen.reduce((m, s) => m + Math.max(0, (s.get(id) ?? 0) - 1), 0), 0),
  };

  // Paid registrations: one charge at the gateway (payment intents of the registration that succeeded), one payment
  // recorded, confirmed. A registration refused twice owes nothing, but may not be charged twice either.
  const registrations = ofKind('paid-registration').filter((s) => s.key);
  const charges = new Map<string, number>();
  for (const o of world.stripe.objects.values()) {
    const reg = (o.metadata as { registrationId?: string } | undefined)?.registrationId;
    if (o.object === 'payment_intent' && o.status === 'succeeded' && reg) charges.set(reg, (charges.get(reg) ?? 0) + 1);
  }
  const rows = registrations.length
    ? await rowsOf<{ id: string; status: string; payments: number }>(
        world.databaseUrls.content!,
        'select r.id, r.status, (select count(*)::int from registration_payments p where p.registration_id = r.id) as payments from registrations r where r.id = any($1::uuid[])',
        [registrations.map((s) => s.key)],
      )
    : [];
  if (!rows) {
    counts['paid-registration'].lost = acked('paid-registration').length;
    notes.push('The content database could not be read to check registrations.');
  } else {
    const byId = new Map(rows.map((r) => [r.id, r]));
    let unpaid = 0;
    for (const s of registrations) {
      const row = byId.get(s.key!);
      const charged = charges.get(s.key!) ?? 0;
      const payments = row?.payments ?? 0;
      counts['paid-registration'].duplicated += Math.max(0, charged - 1) + Math.max(0, payments - 1);
      if (owed(s)) {
        if (charged === 0 || payments === 0 || row?.status !== 'confirmed') counts['paid-registration'].lost++;
      } else unpaid++;
      if (!owed(s) && charged > 0) notes.push(`Registration ${s.key} was refused (${s.status}${s.retry ? ` then ${s.retry.status}` : ''}) but charged ${charged}× (${row?.status ?? 'gone'}).`);
    }
    const retried = registrations.filter((s) => s.retry);
    if (retried.length) {
      const statuses = new Map<number, number>();
      for (const s of retried) statuses.set(s.retry!.status, (statuses.get(s.retry!.status) ?? 0) + 1);
      notes.push(
        `Paid registrations refused with 503 + Retry-After (${[...new Set(retried.map((s) => s.retry!.afterS))].join(', ')} s) and a registration id: ${retried.length}, ` +
          `their one retried payment answered ${[...statuses].map(([st, k]) => `${k}×${st || 'no answer'}`).join(', ')}; ${unpaid} left unpaid (owed nothing).`,
      );
    }
  }

  // Webhooks: one accepted (2xx), correctly signed delivery of person.created per new person.
  const deliveries = new Map<string, number>();
  for (const d of world.receiver.accepted) if (d.event === 'person.created') deliveries.set(d.personId, (deliveries.get(d.personId) ?? 0) + 1);
  for (const s of acked('webhook')) if (s.key) tally(counts.webhook, 1, deliveries.get(s.key) ?? 0);

  // Workflow cards: one card per new visitor in the workflow.
  const visitors = acked('workflow-card')
    .map((s) => s.key)
    .filter((k): k is string => !!k);
  if (visitors.length) {
    const cards = await rowsOf<{ person: string; cards: number }>(
      world.databaseUrls.doing!,
      'select associated_with_id as person, count(*)::int as cards from tasks where church_id = $1 and workflow_id = $2 and associated_with_id = any($3::text[]) group by 1',
      [world.setup.churchId, world.setup.workflowId, visitors],
    );
    if (!cards) {
      counts['workflow-card'].lost = visitors.length;
      notes.push('The doing database could not be read to count cards.');
    } else {
      const per = new Map(cards.map((c) => [c.person, c.cards]));
      for (const v of visitors) tally(counts['workflow-card'], 1, per.get(v) ?? 0);
    }
  }
  return { counts, notes };
}

// ---- phases -------------------------------------------------------------------------------------------------

interface Phase {
  name: string;
  /** breaks something (it may send requests of its own into `sent`); answers the function that mends it */
  fault: (sent: Sent[]) => Promise<() => Promise<void>>;
  /** seconds until it is mended (default `--outage`) */
  outageS?: number;
}

interface PhaseResult {
  name: string;
  faultStart: number;
  faultEnd: number;
  rows: Array<{ kind: Kind; sent: number; ok: number; statuses: string; slowestMs: number; recoveryS: string; lost: number; duplicated: number }>;
  settledS: number;
  notes: string[];
}

function summarize(name: string, sent: Sent[], faultStart: number, faultEnd: number, effects: Record<Kind, EffectCount>, settledS: number, notes: string[]): PhaseResult {
  const rows = KINDS.map((kind) => {
    const mine = sent.filter((s) => s.kind === kind);
    const counts = new Map<string, number>();
    for (const s of mine) {
      const label = `${s.status || 'no answer'}${s.retry ? ` → retry ${s.retry.status || 'no answer'}` : ''}`;
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    const statuses = [...counts].sort((a, b) => a[0].localeCompare(b[0])).map(([st, n]) => `${n}×${st}`).join(', ');
    const firstOk = mine.filter((s) => s.at >= faultEnd && s.status >= 200 && s.status < 300).sort((a, b) => a.at - b.at)[0];
    return {
      kind,
      sent: mine.length,
      ok: mine.filter(owed).length,
      statuses,
      slowestMs: Math.round(Math.max(0, ...mine.map((s) => s.ms))),
      recoveryS: firstOk ? ((firstOk.at - faultEnd) / 1000).toFixed(1) : 'none',
      ...effects[kind],
    };
  });
  return { name, faultStart, faultEnd, rows, settledS, notes };
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
  log(`private PostgreSQL on port ${pgPort}, private Redis on port ${redisPort}`);
  const pg = await startPostgres(path.join(work, 'pg'), pgPort);
  const redisDir = path.join(work, 'redis');
  let persistent = false;
  let redis = startRedis(redisDir, redisPort, persistent);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  // The payment gateway (giving's tests' loopback Stripe, driven by the real SDK) and the church's webhook receiver.
  const stripe = await fakeStripe();
  const receiver = await webhookReceiver();
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
      readyTimeoutMs: 300_000,
      // --replicas=N: N of every API, every worker and the gateway (requests and sockets spread over the gateways)
      replicas: Object.fromEntries(MODULES.map((m) => [m, opts.replicas])),
      gateways: opts.replicas,
      env: {
        // Receipts a few seconds after the gift, so a phase sees them due during its fault; Stripe on loopback.
        giving: { RECEIPT_DELAY_MS: '3000', STRIPE_API_BASE: stripe.url },
        // webhook deliveries to the receiver on loopback
        membership: { OUTBOUND_ALLOW_PRIVATE: 'true' },
      },
    });
    const base = deployment.url;
    const bases = deployment.urls;
    const setup = await setUp(base, dataDir, receiver.url);
    receiver.state.secret = setup.webhookSecret;
    sockets = await openSockets(bases, setup, 10);
    log(`church ${setup.churchId} ready; ${KINDS.length - 1} kinds of request at ${opts.rate}/s each, a group email every ${GROUP_EMAIL_EVERY_S} s`);
    const world: World = { mails: mailReader(dataDir), sockets, stripe, receiver, databaseUrls, setup };

    const restartRedisEmpty = () => {
      rmSync(redisDir, { recursive: true, force: true });
      persistent = false;
      redis = startRedis(redisDir, redisPort, false);
    };
    const phases: Phase[] = [
      { name: 'no fault', fault: async () => async () => undefined },
      {
        name: 'Redis killed, restarted empty (no persistence)',
        fault: async () => {
          redis.kill('SIGKILL');
          return async () => restartRedisEmpty();
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
      {
        name: 'Payment gateway and webhook receiver answer 500',
        fault: async () => {
          // Every Stripe call fails (giving answers 502, content 503 + Retry-After); every webhook delivery is refused.
          stripe.state.failNext = Number.MAX_SAFE_INTEGER;
          receiver.state.failing = true;
          return async () => {
            stripe.state.failNext = 0;
            receiver.state.failing = false;
          };
        },
      },
      {
        name: 'Redis restarted empty right after a group email to 100 people',
        outageS: 0,
        fault: async (sent) => {
          const email = await sendGroupEmail(base, setup, setup.bigGroup, -1);
          sent.push(email);
          if (email.status < 200 || email.status > 299) throw new Error(`the group email to 100 answered ${email.status}`);
          // the moment the answer came: its 100 mail jobs are queued, few if any sent yet
          redis.kill('SIGKILL');
          await new Promise((r) => redis.once('exit', r));
          restartRedisEmpty();
          return async () => undefined;
        },
      },
    ];

    const results: PhaseResult[] = [];
    let n = 0;
    // The mails the set-up sent (the forgot-password users' welcome mails) are owed already: counted, not duplicates.
    const owe = (to: string, acknowledged: boolean) => {
      const range = expectedTotal.get(to) ?? { min: 0, max: 0 };
      expectedTotal.set(to, { min: range.min + (acknowledged ? 1 : 0), max: range.max + 1 });
    };
    for (const m of mailbox(dataDir)) owe(m.to, true);
    const groupEmailEvery = Math.max(1, Math.round(GROUP_EMAIL_EVERY_S * opts.rate));
    for (const phase of phases) {
      log(`phase: ${phase.name}`);
      const sent: Sent[] = [];
      const inFlight: Array<Promise<void>> = [];
      const mailsBefore = world.mails().length;
      const leadMs = 3000;
      const tailMs = 10_000;
      const outageMs = (phase.outageS ?? opts.outage) * 1000;
      const started = Date.now();
      let faultStart = 0;
      let faultEnd = 0;
      let mend: (() => Promise<void>) | undefined;
      let faultFailed: unknown;
      const total = leadMs + opts.outage * 1000 + tailMs;
      const interval = 1000 / opts.rate;
      for (let t = 0; Date.now() - started < total; t++) {
        const elapsed = Date.now() - started;
        if (!faultStart && elapsed >= leadMs) {
          faultStart = Date.now();
          // the traffic goes on while the fault is being made (a kill and restart, a group email's answer)
          phase.fault(sent).then(
            (m) => void (mend = m),
            (err: unknown) => void (faultFailed = err),
          );
        }
        if (faultFailed) throw faultFailed;
        if (faultStart && !faultEnd && mend && Date.now() - faultStart >= outageMs) {
          await mend();
          faultEnd = Date.now();
        }
        for (const kind of KINDS) {
          if (kind === 'group-email' && t % groupEmailEvery !== 0) continue;
          const i = n++;
          inFlight.push(send(bases[i % bases.length]!, setup, kind, i).then((s) => void sent.push(s)));
        }
        const next = started + (t + 1) * interval;
        await sleep(Math.max(0, next - Date.now()));
      }
      while (!mend && !faultFailed) await sleep(100);
      if (faultFailed) throw faultFailed;
      if (!faultEnd) {
        await mend!();
        faultEnd = Date.now();
      }
      await Promise.all(inFlight);
      for (const s of sent) if (s.key && (s.kind === 'register' || s.kind === 'forgot' || s.kind === 'donation')) owe(s.key, owed(s));
      // Settle: wait until every acknowledged request has its effect, or the time is up.
      const settleStart = Date.now();
      let check = await countEffects(world, sent);
      while (KINDS.some((k) => check.counts[k].lost > 0) && Date.now() - settleStart < opts.settle * 1000) {
        await sleep(1000);
        check = await countEffects(world, sent);
      }
      // A duplicate can arrive after the last owed effect (a job handed over again by the sweep): look once more
      // after the outbox's confirmation window.
      await sleep(2000);
      check = await countEffects(world, sent);
      const settledS = (Date.now() - settleStart) / 1000;
      const result = summarize(phase.name, sent, faultStart, faultEnd, check.counts, settledS, check.notes);
      results.push(result);
      log(`  ${world.mails().length - mailsBefore} mails; settled in ${settledS.toFixed(1)} s; lost: ${result.rows.map((r) => `${r.kind} ${r.lost}`).join(', ')}; duplicated: ${result.rows.map((r) => `${r.kind} ${r.duplicated}`).join(', ')}`);
      for (const note of check.notes) log(`  ${note}`);
    }
    const hooks = `The webhook receiver refused ${receiver.state.refused} attempts with 500 while it was down and found ${receiver.state.badSignatures} deliveries with a signature that did not verify; it accepted ${receiver.accepted.length} deliveries (${new Set(receiver.accepted.map((d) => d.webhookId)).size} distinct webhook ids).`;
    log(hooks);
    writeReport(results, opts, hooks);
    const failed = results.flatMap((r) => r.rows.filter((row) => row.lost > 0 || row.duplicated > 0).map((row) => `${r.name}: ${row.kind} lost ${row.lost}, duplicated ${row.duplicated}`));
    if (receiver.state.badSignatures) failed.push(`${receiver.state.badSignatures} webhook deliveries with a bad signature`);
    if (failed.length) {
      log(`effects lost or duplicated:\n  ${failed.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    sockets?.close();
    await deployment?.stop();
    await stripe.close();
    await receiver.close();
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
const expectedTotal = new Map<string, { min: number; max: number }>();

function writeReport(results: PhaseResult[], opts: Options, hooks: string) {
  const lines = [
    '# Fault test (`npx tsx bench/faults.ts`)',
    '',
    `${new Date().toISOString()}. ${opts.replicas === 1 ? 'Seven APIs, seven workers and the gateway' : `${opts.replicas} replicas of each of the seven APIs, of each worker and of the gateway (requests and sockets spread over the gateways)`}, each its own process, on a private PostgreSQL and Redis, ` +
      `with giving's loopback Stripe (the real SDK against it) and a webhook receiver on loopback that verifies every signature. ` +
      `Each phase: 3 s of traffic, the fault, 10 s more (${opts.outage + 13} s); ${opts.rate} requests/s of each kind (registration, forgot-password, ` +
      `manual donation, chat message to 10 listening sockets, check-in, a guest's paid event registration, a new member, a new visitor) and a group email to 40 people every ${GROUP_EMAIL_EVERY_S} s. ` +
      `"Lost" counts acknowledged (2xx) requests whose effect had not happened ${opts.settle} s after the phase at the latest: the welcome ` +
      `mail, the reset mail, the receipt, the push at every socket, one charge at the gateway with one payment recorded and the registration confirmed, ` +
      `the member's person.created webhook accepted by the receiver, the visitor's card in the workflow its person.created trigger starts, ` +
      `each group member's mail (counted per member: a group email owes 40). ` +
      `"Duplicated" counts effects beyond the one each was owed (a mail twice, a socket given the same message twice, a registration charged or ` +
      `recorded twice, a second accepted delivery of a person's event, a second card); a request without a 2xx (no answer in 30 s, 5xx) may have had its effect, at most once. A paid registration answered 503 with \`Retry-After\` and its ` +
      `registration id is a deliberate refusal, not a loss: its payment is retried once after the time named, and the retry's 2xx owes the effect ` +
      `(statuses "503 → retry 200"); a registration refused twice owes nothing but may not be charged. The run exits 1 when any phase lost or duplicated an effect.`,
    '',
  ];
  for (const r of results) {
    lines.push(`## ${r.name}`, '', `Effects settled ${r.settledS.toFixed(1)} s after the phase.`, '');
    for (const note of r.notes) lines.push(`- ${note}`);
    if (r.notes.length) lines.push('');
    lines.push('| request | sent | 2xx | statuses | slowest answer (ms) | first 2xx after the fault ended (s) | lost effects | duplicated effects |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const row of r.rows) lines.push(`| ${row.kind} | ${row.sent} | ${row.ok} | ${row.statuses} | ${row.slowestMs} | ${row.recoveryS} | ${row.lost} | ${row.duplicated} |`);
    lines.push('');
  }
  lines.push(hooks, '');
  const file = path.resolve(__dirname, 'results', opts.replicas === 1 ? 'faults-postgres.md' : `faults-postgres-${opts.replicas}-replicas.md`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
