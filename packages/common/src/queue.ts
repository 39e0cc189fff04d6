import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';

/** One kind of background job: a name `<module>.<job>`, a payload schema and exactly one handler. */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  schema: S;
  handler: (data: z.output<S>, ctx: JobContext) => Promise<void>;
  /** attempts including the first (default 5) with exponential backoff from `backoffMs` */
  attempts?: number;
  backoffMs?: number;
  /** a repeating job: every N milliseconds, or a cron pattern */
  repeat?: { everyMs: number } | { cron: string };
}

export interface JobContext {
  log: FastifyBaseLogger;
  attempt: number;
}

/** Declares a job; the startup check in `createQueue` requires exactly one definition per name. */
export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

export interface EnqueueOptions {
  /** a deterministic id makes a repeat enqueue of the same job a no-op (webhook events, digests) */
  jobId?: string;
  delayMs?: number;
}

export interface Queue {
  readonly kind: 'bullmq' | 'in-process';
  enqueue(name: string, data: unknown, opts?: EnqueueOptions): Promise<void>;
  /** starts consuming (the worker side); in-process queues consume as soon as they are created */
  startWorker(): Promise<void>;
  /** resolves when every job enqueued so far has finished (in-process only; tests use it) */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface QueueOptions {
  module: string;
  jobs: JobDefinition[];
  log: FastifyBaseLogger;
  redisUrl?: string;
}

/**
 * The module's queue: BullMQ on Redis when `redisUrl` is set, an in-process runner otherwise. Both validate
 * the payload at enqueue time, so a bad job fails its caller rather than a worker later.
 */
export async function createQueue(options: QueueOptions): Promise<Queue> {
  const jobs = new Map<string, JobDefinition>();
  for (const job of options.jobs) {
    if (jobs.has(job.name)) throw new Error(`job ${job.name} has more than one handler`);
    jobs.set(job.name, job);
  }
  const validate = (name: string, data: unknown) => {
    const job = jobs.get(name);
    if (!job) throw new Error(`no handler for job ${name}`);
    return { job, data: job.schema.parse(data) };
  };
  return options.redisUrl ? createBullQueue(options, jobs, validate) : createInProcessQueue(options, jobs, validate);
}

type Validate = (name: string, data: unknown) => { job: JobDefinition; data: unknown };

function createInProcessQueue(options: QueueOptions, jobs: Map<string, JobDefinition>, validate: Validate): Queue {
  const pending = new Set<Promise<void>>();
  const seen = new Set<string>();
  const timers: NodeJS.Timeout[] = [];
  const run = async (job: JobDefinition, data: unknown) => {
    const attempts = job.attempts ?? 5;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await job.handler(data, { log: options.log, attempt });
        return;
      } catch (err) {
        options.log.warn({ err, job: job.name, attempt }, 'job failed');
        if (attempt < attempts) await new Promise((r) => setTimeout(r, Math.min((job.backoffMs ?? 200) * 2 ** (attempt - 1), 5_000)));
      }
    }
  };
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  for (const job of jobs.values()) {
    if (job.repeat && 'everyMs' in job.repeat) {
      const t = setInterval(() => track(run(job, {})), job.repeat.everyMs);
      t.unref();
      timers.push(t);
    }
  }
  return {
    kind: 'in-process',
    async enqueue(name, raw, opts) {
      const { job, data } = validate(name, raw);
      if (opts?.jobId) {
        if (seen.has(opts.jobId)) return;
        seen.add(opts.jobId);
      }
      const delay = opts?.delayMs ?? 0;
      track(new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => run(job, data)));
    },
    async startWorker() {},
    async drain() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    async close() {
      timers.forEach(clearInterval);
      await Promise.allSettled([...pending]);
    },
  };
}

async function createBullQueue(options: QueueOptions, jobs: Map<string, JobDefinition>, validate: Validate): Promise<Queue> {
  const { Queue: BullQueue, Worker } = await import('bullmq');
  const { Redis: IORedis } = await import('ioredis');
  // BullMQ workers need maxRetriesPerRequest null; one connection for producing, one per worker.
  const connection = new IORedis(options.redisUrl!, { maxRetriesPerRequest: null });
  const queue = new BullQueue(options.module, { connection });
  let worker: InstanceType<typeof Worker> | undefined;
  let workerConnection: InstanceType<typeof IORedis> | undefined;
  return {
    kind: 'bullmq',
    async enqueue(name, raw, opts) {
      const { job, data } = validate(name, raw);
      await queue.add(name, data, {
        jobId: opts?.jobId,
        delay: opts?.delayMs,
        attempts: job.attempts ?? 5,
        backoff: { type: 'exponential', delay: job.backoffMs ?? 1000 },
        removeOnComplete: 1000,
        removeOnFail: 5000,
      });
    },
    async startWorker() {
      for (const job of jobs.values()) {
        if (!job.repeat) continue;
        const repeat = 'everyMs' in job.repeat ? { every: job.repeat.everyMs } : { pattern: job.repeat.cron };
        await queue.upsertJobScheduler(job.name, repeat, { name: job.name, data: {} });
      }
      worker = new Worker(
        options.module,
        async (bullJob) => {
          const job = jobs.get(bullJob.name);
          if (!job) throw new Error(`no handler for job ${bullJob.name}`);
          await job.handler(job.schema.parse(bullJob.data), { log: options.log, attempt: bullJob.attemptsMade + 1 });
        },
        { connection: (workerConnection = new IORedis(options.redisUrl!, { maxRetriesPerRequest: null })), concurrency: 8 },
      );
      worker.on('failed', (j, err) => options.log.warn({ err, job: j?.name }, 'job failed'));
    },
    async drain() {},
    async close() {
      await worker?.close();
      await workerConnection?.quit();
      await queue.close();
      await connection.quit();
    },
  };
}
