import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { z } from 'zod';
import { createQueue, defineJob, type JobDefinition } from '../src/queue';

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
