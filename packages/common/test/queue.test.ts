import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { z } from 'zod';
import { createQueue, defineJob, type JobDefinition } from '../src/queue';
import type { Database } from '../src/db';
import { testDatabase } from '../src/testing';

const log = pino({ level: 'silent' });
const redisUrl = process.env.TEST_REDIS_URL;

function recorder() {
  const seen: Array<{ n: number }> = [];
  let failuresLeft = 0;
  const job = defineJob({
    name: 'test.record',
    schema: z.object({ n: z.number().int() }),
    attempts: 3,
    backoffMs: 10,
    handler: async (data) => {
      if (failuresLeft > 0) {
        failuresLeft--;
        throw new Error('transient');
      }
      seen.push(data);
    },
  });
  return { job: job as JobDefinition, seen, failOnce: () => (failuresLeft = 1) };
}

describe('in-process queue', () => {
  it('runs jobs, retries failures, and skips a repeated job id', async () => {
    const r = recorder();
    const queue = await createQueue({ module: 'test', jobs: [r.job], log });
    r.failOnce();
    await queue.enqueue('test.record', { n: 1 });
    await queue.enqueue('test.record', { n: 2 }, { jobId: 'once' });
    await queue.enqueue('test.record', { n: 3 }, { jobId: 'once' });
    await queue.drain();
    expect(r.seen.map((d) => d.n).sort()).toEqual([1, 2]);
    await queue.close();
  });

  it('refuses a payload that does not match the job schema and an unknown job', async () => {
    const r = recorder();
    const queue = await createQueue({ module: 'test', jobs: [r.job], log });
    await expect(queue.enqueue('test.record', { n: 'one' })).rejects.toThrow();
    await expect(queue.enqueue('test.nothing', {})).rejects.toThrow(/no handler/);
    await queue.close();
  });

  it('refuses two handlers for one job at start', async () => {
    const r = recorder();
    await expect(createQueue({ module: 'test', jobs: [r.job, r.job], log })).rejects.toThrow(/more than one handler/);
  });
});

(redisUrl ? describe : describe.skip)('BullMQ queue on Redis (TEST_REDIS_URL)', () => {
  it('delivers jobs to the worker, retries, and de-duplicates by job id', async () => {
    const r = recorder();
    const module = `test-${randomUUID().slice(0, 8)}`;
    const queue = await createQueue({ module, jobs: [r.job], log, redisUrl });
    expect(queue.kind).toBe('bullmq');
    await queue.startWorker();
    r.failOnce();
    await queue.enqueue('test.record', { n: 1 });
    await queue.enqueue('test.record', { n: 2 }, { jobId: 'same' });
    await queue.enqueue('test.record', { n: 3 }, { jobId: 'same' });
    const deadline = Date.now() + 15_000;
    while (r.seen.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(r.seen.map((d) => d.n).sort()).toEqual([1, 2]);
    await queue.close();
  });
});

if (!redisUrl) console.log('BullMQ tests skipped: TEST_REDIS_URL is not set (they need a real Redis).');

describe('the job outbox (a module database keeps every job until it has run)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase('giving', []);
  });
  afterAll(async () => database.close());
  const count = async (state: string) => (await database.rows<{ n: number }>(`select count(*)::int as n from job_outbox where state = $1`, [state]))[0]!.n;

  it('runs a job written in a transaction once it commits, and never one whose transaction rolled back', async () => {
    const r = recorder();
    const queue = await createQueue({ module: 'test', jobs: [r.job], log, database, retryMaxDelayMs: 5 });
    await database.db.transaction(async (tx) => queue.enqueue('test.record', { n: 1 }, { tx }));
    await expect(
      database.db.transaction(async (tx) => {
        await queue.enqueue('test.record', { n: 2 }, { tx });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await queue.drain();
    expect(r.seen).toEqual([{ n: 1 }]);
    expect(await count('pending')).toBe(0);
    await queue.close();
  });

  it('keeps a job key taken after its job ran, and records a job that spent its attempts', async () => {
    const r = recorder();
    const broken = defineJob({ name: 'test.broken', schema: z.object({}), attempts: 2, backoffMs: 1, handler: async () => { throw new Error('provider down'); } });
    const queue = await createQueue({ module: 'test', jobs: [r.job, broken as JobDefinition], log, database, retryMaxDelayMs: 5 });
    const key = `receipt-${randomUUID()}`;
    await queue.enqueue('test.record', { n: 7 }, { jobId: key });
    await queue.drain();
    await queue.enqueue('test.record', { n: 8 }, { jobId: key });
    await queue.enqueue('test.broken', {});
    await queue.drain();
    expect(r.seen).toEqual([{ n: 7 }]);
    const [failed] = await database.rows<{ name: string; last_error: string }>(`select name, last_error from job_outbox where state = 'failed'`, []);
    expect(failed).toEqual({ name: 'test.broken', last_error: 'provider down' });
    await queue.close();
  });

  it('runs again, at start, what a process that went away had claimed', async () => {
    const r = recorder();
    await database.rows(`insert into job_outbox (id, queue, name, data, state, claimed_by, sent_at) values ($1, 'test', 'test.record', '{"n":9}', 'sent', 'a-gone-process', now())`, [randomUUID()]);
    const queue = await createQueue({ module: 'test', jobs: [r.job], log, database, retryMaxDelayMs: 5 });
    await queue.startRelay();
    await queue.drain();
    expect(r.seen).toEqual([{ n: 9 }]);
    await queue.close();
  });

  it('does not run again a job that finished before its row was confirmed (a crash between the two)', async () => {
    const r = recorder();
    const queue = await createQueue({ module: 'test', jobs: [r.job], log, database, retryMaxDelayMs: 5 });
    await queue.enqueue('test.record', { n: 31 });
    await queue.drain();
    expect(r.seen).toEqual([{ n: 31 }]);
    const [run] = await database.rows<{ id: string }>(`select id from job_runs where name = 'test.record' order by finished_at desc limit 1`, []);
    // The process died after the job's end and before the outbox heard of it: the row is still claimed.
    await database.rows(`insert into job_outbox (id, queue, name, data, state, claimed_by, sent_at) values ($1, 'test', 'test.record', '{"n":31}', 'sent', 'a-gone-process', now())`, [run!.id]);
    await queue.close();
    const again = await createQueue({ module: 'test', jobs: [r.job], log, database, retryMaxDelayMs: 5 });
    await again.startRelay();
    await again.drain();
    expect(r.seen).toEqual([{ n: 31 }]);
    expect(await database.rows(`select 1 from job_outbox where id = $1`, [run!.id])).toEqual([]);
    await again.close();
  });

  it('answers an enqueue at once while Redis is unreachable, and hands the job over once it is back', async () => {
    const r = recorder();
    const module = `test-${randomUUID().slice(0, 8)}`;
    const down = await createQueue({ module, jobs: [r.job], log, database, redisUrl: 'redis://127.0.0.1:1' });
    const started = Date.now();
    await down.enqueue('test.record', { n: 11 });
    expect(Date.now() - started).toBeLessThan(1000);
    await down.drain();
    const [row] = await database.rows<{ state: string }>(`select state from job_outbox where name = 'test.record' and data = '{"n":11}'`, []);
    expect(row!.state).toBe('pending');
    await down.close();
    if (!redisUrl) return;
    const up = await createQueue({ module, jobs: [r.job], log, database, redisUrl });
    await up.startWorker();
    await up.sweep();
    await waitFor(() => r.seen.length === 1);
    expect(r.seen).toEqual([{ n: 11 }]);
    await up.close();
  });

  (redisUrl ? it : it.skip)('sends again a job Redis lost (a restart without persistence), and confirms what finished', async () => {
    const r = recorder();
    const module = `test-${randomUUID().slice(0, 8)}`;
    const queue = await createQueue({ module, jobs: [r.job], log, database, redisUrl });
    // A delayed job (a receipt due in a minute) sits in Redis; then Redis forgets everything.
    await queue.enqueue('test.record', { n: 21 }, { delayMs: 60_000 });
    await queue.drain();
    const { Queue: Bull } = await import('bullmq');
    const raw = new Bull(module, { connection: { url: redisUrl } });
    await raw.obliterate({ force: true });
    await database.rows(`update job_outbox set sent_at = now() - interval '1 minute', run_at = now() where data = '{"n":21}'`, []);
    await queue.sweep();
    const [row] = await database.rows<{ id: string; state: string }>(`select id, state from job_outbox where data = '{"n":21}'`, []);
    expect(row!.state).toBe('sent');
    expect(await raw.getJobState(row!.id)).toBe('waiting');
    await queue.startWorker();
    await waitFor(() => r.seen.some((d) => d.n === 21));
    // Once the worker has run it, the next sweep confirms it: the row leaves the outbox.
    await database.rows(`update job_outbox set sent_at = now() - interval '1 minute' where data = '{"n":21}'`, []);
    await waitFor(async () => {
      await queue.sweep();
      return (await database.rows(`select 1 from job_outbox where data = '{"n":21}'`, [])).length === 0;
    });
    await raw.close();
    await queue.close();
  });
});

describe('exactly once across a Redis that restarts empty (TEST_REDIS_URL)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase('giving', []);
  });
  afterAll(async () => database.close());

  (redisUrl ? it : it.skip)('runs a finished job no second time when Redis forgot it before the sweep confirmed it', async () => {
    const r = recorder();
    const module = `test-${randomUUID().slice(0, 8)}`;
    const queue = await createQueue({ module, jobs: [r.job], log, database, redisUrl });
    await queue.startWorker();
    for (let n = 1; n <= 20; n++) await queue.enqueue('test.record', { n: 100 + n });
    await queue.drain();
    await waitFor(() => r.seen.length === 20);
    // Redis restarts empty: every job it had finished is unknown to it now.
    const { Queue: Bull } = await import('bullmq');
    const raw = new Bull(module, { connection: { url: redisUrl } });
    await raw.obliterate({ force: true });
    await database.rows(`update job_outbox set sent_at = now() - interval '1 minute' where queue = $1`, [module]);
    // The sweep sends them all again; the worker finds each finished in job_runs and runs none of them.
    await queue.sweep();
    await database.rows(`update job_outbox set sent_at = now() - interval '1 minute' where queue = $1`, [module]);
    await waitFor(async () => {
      await queue.sweep();
      await database.rows(`update job_outbox set sent_at = now() - interval '1 minute' where queue = $1`, [module]);
      return (await database.rows(`select 1 from job_outbox where queue = $1`, [module])).length === 0;
    }, 30_000);
    expect(r.seen.map((d) => d.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i));
    await raw.close();
    await queue.close();
  }, 60_000);
});

async function waitFor(done: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('queue.transaction (jobs handed over as their transaction commits)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase('giving', []);
  });
  afterAll(async () => database.close());

  it('runs the jobs of a committed transaction, local ones included, and none of one that rolled back', async () => {
    const r = recorder();
    const pushed: number[] = [];
    const push = defineJob({ name: 'test.push', schema: z.object({ n: z.number() }), local: true, handler: async ({ n }) => void pushed.push(n) });
    const queue = await createQueue({ module: 'test', jobs: [r.job, push as JobDefinition], log, database, retryMaxDelayMs: 5 });
    const answer = await queue.transaction(database.db, async (tx) => {
      await queue.enqueue('test.record', { n: 1 }, { tx });
      await queue.enqueue('test.push', { n: 1 }, { tx });
      return 'saved';
    });
    expect(answer).toBe('saved');
    await expect(
      queue.transaction(database.db, async (tx) => {
        await queue.enqueue('test.push', { n: 2 }, { tx });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    // a local job in a transaction opened elsewhere runs once its row is committed
    await database.db.transaction(async (tx) => queue.enqueue('test.push', { n: 3 }, { tx }));
    await queue.drain();
    expect(r.seen).toEqual([{ n: 1 }]);
    expect(pushed.sort()).toEqual([1, 3]);
    expect((await database.rows<{ n: number }>(`select count(*)::int as n from job_outbox where name = 'test.push'`, []))[0]!.n).toBe(0);
    await queue.close();
  });

  (redisUrl ? it : it.skip)('runs a local job in the process that made the change, with Redis away', async () => {
    const pushed: number[] = [];
    const push = defineJob({ name: 'test.push', schema: z.object({ n: z.number() }), local: true, handler: async ({ n }) => void pushed.push(n) });
    const queue = await createQueue({ module: `test-${randomUUID().slice(0, 8)}`, jobs: [push as JobDefinition], log, database, redisUrl: 'redis://127.0.0.1:1', retryMaxDelayMs: 5 });
    const started = Date.now();
    await queue.transaction(database.db, async (tx) => queue.enqueue('test.push', { n: 7 }, { tx }));
    await queue.drain();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pushed).toEqual([7]);
    await queue.close();
  });
});
