import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import {
  callInternal,
  HttpError,
  membershipInternal,
  badRequest,
  checkHandlers,
  recordEffect,
  createQueue,
  createService,
  handle,
  jobContract,
  nextCronDelay,
  notifyPeople,
  processWebhookEvent,
  webhookIntake,
  WebhookJob,
  notConfigured,
  providerFailed,
  writeOutbox,
  type Database,
  type ServiceDefinition,
} from '../src';
import { fakeServer, readOutbox, testConfig, testDatabase } from '../src/testing';
import { webhookEvents } from '../src/tables';

const silent = { warn() {}, info() {}, error() {}, debug() {} } as never;

describe('job contracts', () => {
  const ping = jobContract({ name: 'giving.ping', schema: z.object({ n: z.number() }), attempts: 2 });

  it('runs an own contract typed, and hands another module’s job to its queue or records it', async () => {
    const seen: number[] = [];
    const giving = await createQueue({ module: 'giving', jobs: [handle(ping, async ({ n }) => void seen.push(n))], log: silent });
    await giving.enqueue(ping, { n: 1 });
    await giving.drain();
    expect(seen).toEqual([1]);
    // doing has no queue in this process: the job is recorded for the test to see
    const doing = await createQueue({ module: 'doing', jobs: [], log: silent });
    const churchId = randomUUID();
    const personIds = [randomUUID()];
    await giving.close();
    await doing.enqueue(notifyPeople, { churchId, personIds, message: 'You are scheduled' });
    expect(doing.handedOff).toEqual([{ name: 'messaging.notifyPeople', data: { churchId, personIds, message: 'You are scheduled' } }]);
    // a queue of the owning module in this process (the embedded fleet) receives it and runs it
    const got: unknown[] = [];
    const messaging = await createQueue({ module: 'messaging', jobs: [handle(notifyPeople, async (d) => void got.push(d))], log: silent });
    await doing.enqueue(notifyPeople, { churchId, personIds, message: 'Again' }, { jobId: 'x1' });
    await doing.enqueue(notifyPeople, { churchId, personIds, message: 'Again' }, { jobId: 'x1' });
    await messaging.drain();
    expect(got).toHaveLength(1);
    // a payload that breaks the contract fails its caller
    await expect(doing.enqueue(notifyPeople, { churchId, personIds: [], message: '' } as never)).rejects.toThrow();
    await doing.close();
    await messaging.close();
  });

  it('checks at startup that every owned contract has exactly one handler', () => {
    expect(() => checkHandlers('giving', [ping], [])).toThrow(/0 handlers/);
    expect(() => checkHandlers('giving', [ping], [handle(ping, async () => {}), handle(ping, async () => {})])).toThrow(/2 handlers/);
    expect(() => checkHandlers('doing', [ping], [handle(ping, async () => {})])).toThrow(/a job of giving/);
    expect(() => checkHandlers('giving', [ping], [handle(ping, async () => {})])).not.toThrow();
  });

  it('honours cron schedules in the in-process runner', () => {
    const from = new Date('2026-11-25T10:59:30Z');
    expect(nextCronDelay('0 11 * * *', from)).toBe(30_000);
    expect(nextCronDelay('0 3 * * *', from)).toBe((16 * 3600 + 30) * 1000); // 03:00 the next day
    expect(() => jobContract({ name: 'giving.bad', schema: z.object({}), repeat: { cron: 'not a cron' } })).toThrow();
  });
});

describe('providers', () => {
  it('names the missing setting, says what failed, and writes development messages to the outbox', async () => {
    const err = notConfigured('Texting', 'TWILIO_ACCOUNT_SID');
    expect(err.statusCode).toBe(400);
    expect(err.errors[0]).toEqual({ msg: 'Texting is not configured: set TWILIO_ACCOUNT_SID', param: 'TWILIO_ACCOUNT_SID', location: 'config' });
    expect(providerFailed('Stripe', 'card_declined').statusCode).toBe(502);
    const dir = testConfig().DATA_DIR;
    const id = await writeOutbox(dir, 'sms', { to: '+15550100', body: 'Hi' });
    expect(await readOutbox(dir, 'sms')).toEqual([{ id, to: '+15550100', body: 'Hi' }]);
  });

  it('fakes a provider on loopback and records what it was sent', async () => {
    const fake = await fakeServer((req) => (req.path === '/v1/ok' ? { body: { ok: true } } : { status: 500, body: 'down' }));
    const res = await fetch(`${fake.url}/v1/ok?x=1`, { method: 'POST', body: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(await res.json()).toEqual({ ok: true });
    expect(fake.seen[0]).toMatchObject({ method: 'POST', path: '/v1/ok', body: 'a=1&b=2' });
    expect(fake.seen[0]!.form.get('b')).toBe('2');
    expect(fake.seen[0]!.query.get('x')).toBe('1');
    expect((await fetch(`${fake.url}/other`)).status).toBe(500);
    await fake.close();
  });
});

describe('webhook intake', () => {
  const effect = jobContract({ name: 'giving.webhookEffect', schema: WebhookJob });
  const applied: string[] = [];
  const settled: string[] = [];
  let app: FastifyInstance;
  let database: Database;
  const churchId = randomUUID();
  const migrations = path.join(__dirname, '../../../services/attendance/drizzle');

  beforeAll(async () => {
    database = await testDatabase('giving', migrations);
    // The table every module includes from `@church/common/tables` (its own migration creates it there).
    await database.db.execute(sql`create table webhook_events (id uuid primary key, church_id uuid not null, provider text not null, event_id text not null, type text not null, payload jsonb not null, received_at timestamptz not null default now(), processed_at timestamptz, outcome text)`);
    await database.db.execute(sql`create unique index webhook_events_church_provider_event_idx on webhook_events (church_id, provider, event_id)`);
    const def: ServiceDefinition = {
      module: 'giving',
      migrationsFolder: migrations,
      owns: [effect],
      jobs: (deps) => [
        handle(effect, async ({ webhookEventId }) => {
          await processWebhookEvent(deps.db, webhookEventId, async (event) => {
            applied.push(event.eventId);
            return 'applied';
          });
        }),
      ],
      routes: [
        // `settle` applies what it can within the delivery: events of type `settle` (marking them processed
        // itself); `defer` it declines (false) and `boom` fails: both go to the job.
        async (a) =>
          webhookIntake(a, {
            path: '/giving/settled/:provider',
            provider: (req) => (req.params as { provider: string }).provider,
            job: effect,
            verify: (_req, raw) => {
              const event = JSON.parse(raw.toString('utf8')) as { id: string; type: string };
              return { churchId, eventId: event.id, type: event.type, payload: event };
            },
            settle: async (event) => {
              settled.push(event.eventId);
              if (event.type === 'boom') throw new Error('database went away');
              if (event.type !== 'settle') return false;
              expect(event.receivedAt).toBeInstanceOf(Date);
              await database.db.update(webhookEvents).set({ processedAt: new Date(), outcome: 'settled' }).where(eq(webhookEvents.id, event.id));
              return true;
            },
          }),
        async (a) =>
          webhookIntake(a, {
            path: '/giving/hooks/:provider',
            provider: (req) => (req.params as { provider: string }).provider,
            job: effect,
            verify: (req, raw) => {
              // the signature covers the exact bytes: a test provider signs with a reversed body
              if (req.headers['x-sig'] !== raw.toString('utf8').split('').reverse().join('')) throw badRequest('x-sig', 'Bad signature', 'headers');
              const event = JSON.parse(raw.toString('utf8')) as { id: string; type: string };
              return { churchId, eventId: event.id, type: event.type, payload: event };
            },
          }),
      ],
    };
    app = await createService(def, testConfig(), { overrides: { database }, logger: false });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const deliver = (body: string, sig = body.split('').reverse().join('')) =>
    app.inject({ method: 'POST', url: '/giving/hooks/test', headers: { 'content-type': 'application/json', 'x-sig': sig }, payload: body });

  it('refuses a wrong signature before parsing and records nothing', async () => {
    const res = await deliver('{"id":"evt_bad","type":"x"}', 'forged');
    expect(res.statusCode).toBe(400);
    expect(await database.db.select().from(webhookEvents)).toHaveLength(0);
  });

  it('verifies the bytes as sent (white space and key order kept)', async () => {
    const res = await deliver('{ "type":"charge",   "id":"evt_spaced" }');
    expect(res.statusCode).toBe(200);
    await app.deps.queue.drain();
    expect(applied).toContain('evt_spaced');
  });

  it('records and applies an event once when 100 copies arrive at the same time', async () => {
    const body = JSON.stringify({ id: 'evt_many', type: 'charge.succeeded' });
    const answers = await Promise.all(Array.from({ length: 100 }, () => deliver(body)));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    expect(answers.filter((r) => r.json().duplicate === false)).toHaveLength(1);
    await app.deps.queue.drain();
    expect(applied.filter((id) => id === 'evt_many')).toHaveLength(1);
    const rows = await database.db.select().from(webhookEvents);
    const row = rows.find((r) => r.eventId === 'evt_many')!;
    expect(row.outcome).toBe('applied');
    expect(row.processedAt).toBeInstanceOf(Date);
    // redelivered after processing: acknowledged, nothing applied again
    expect((await deliver(body)).json()).toEqual({ received: true, duplicate: true });
    await app.deps.queue.drain();
    expect(applied.filter((id) => id === 'evt_many')).toHaveLength(1);
  });

  it('settles an event within its delivery when the module can, once, and hands the rest to the job', async () => {
    const post = (id: string, type: string) => app.inject({ method: 'POST', url: '/giving/settled/test', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ id, type }) });
    const row = async (eventId: string) => (await database.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, eventId)))[0]!;

    // settled: processed when the delivery is answered, no job runs for it, and its 100 copies settle it once
    const answers = await Promise.all(Array.from({ length: 100 }, () => post('evt_settle', 'settle')));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    expect((await row('evt_settle')).outcome).toBe('settled');
    expect(settled.filter((id) => id === 'evt_settle')).toHaveLength(1);
    await app.deps.queue.drain();
    expect(applied).not.toContain('evt_settle');
    expect((await row('evt_settle')).outcome).toBe('settled');

    // declined or failed: the job applies it
    expect((await post('evt_defer', 'defer')).statusCode).toBe(200);
    expect((await post('evt_boom', 'boom')).statusCode).toBe(200);
    await app.deps.queue.drain();
    expect(applied).toEqual(expect.arrayContaining(['evt_defer', 'evt_boom']));
    expect((await row('evt_defer')).outcome).toBe('applied');
    expect((await row('evt_boom')).outcome).toBe('applied');
  });
});

describe('callInternal (one typed call per cross-module contract)', () => {
  const churchId = randomUUID();
  const fake = (answer: () => unknown) => ({ request: async () => answer(), get: async () => answer(), post: async () => answer() }) as never;
  const failing = (status: number) => fake(() => { throw new HttpError(status, [{ msg: 'x' }], status === 503 ? { 'retry-after': '4' } : {}); });

  it('parses the answer, and refuses a body that breaks the contract before sending it', async () => {
    const answer = { id: churchId, name: 'Grace', subDomain: 'grace', extra: 'dropped' };
    expect(await callInternal(fake(() => answer), membershipInternal.church, { churchId })).toEqual({ id: churchId, name: 'Grace', subDomain: 'grace' });
    await expect(callInternal(fake(() => answer), membershipInternal.church, { churchId: 'nope' } as never)).rejects.toThrow();
  });

  it('passes a callee’s 503 on, and answers 502 naming the callee for everything else', async () => {
    const status = (err: unknown) => [(err as HttpError).statusCode, (err as HttpError).errors[0]!.msg, (err as HttpError).headers['retry-after']];
    expect(status(await callInternal(failing(503), membershipInternal.church, { churchId }).catch((e) => e))).toEqual([503, 'x', '4']);
    expect(status(await callInternal(failing(404), membershipInternal.church, { churchId }).catch((e) => e))).toEqual([502, 'membership answered 404', undefined]);
    expect(status(await callInternal(failing(502), membershipInternal.church, { churchId }).catch((e) => e))).toEqual([502, 'membership is unreachable', undefined]);
    expect(status(await callInternal(fake(() => [{ nope: 1 }]), membershipInternal.church, { churchId }).catch((e) => e))).toEqual([502, 'membership answered an unexpected shape', undefined]);
    expect(status(await callInternal(failing(400), membershipInternal.updatePerson, { churchId, personId: churchId, changes: {} }, { passClientErrors: true }).catch((e) => e))).toEqual([400, 'x', undefined]);
  });

  it('parses a kept (revalidated) answer once, answering the same result while it is unchanged', async () => {
    const kept = [{ id: churchId, name: 'Youth', extra: 1 }];
    const client = fake(() => kept);
    const first = await callInternal(client, membershipInternal.groupsList, { churchId }, { revalidate: true });
    expect(first).toEqual([{ id: churchId, name: 'Youth', extra: 1 }]);
    expect(await callInternal(client, membershipInternal.groupsList, { churchId }, { revalidate: true })).toBe(first);
  });
});

describe('recordEffect', () => {
  it('records an effect that happened once the database answers again, and never fails the job for it', async () => {
    let tries = 0;
    await recordEffect(
      async () => {
        if (++tries < 3) throw new Error('Connection terminated unexpectedly');
      },
      { what: 'a mail' },
    );
    expect(tries).toBe(3);
    const logged: string[] = [];
    const log = { warn: (_o: unknown, msg: string) => void logged.push(`warn ${msg}`), error: (_o: unknown, msg: string) => void logged.push(`error ${msg}`) };
    await expect(recordEffect(() => Promise.reject(new Error('down')), { what: 'a webhook delivery', log, withinMs: 300 })).resolves.toBeUndefined();
    expect(logged.at(-1)).toBe('error a webhook delivery happened but could not be recorded; the job ends as done');
  });
});
