import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import type { ModuleName } from './config';

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

/**
 * A job's contract apart from its handler: the name `<module>.<job>` (the module that owns and runs it), the
 * payload schema and the retry policy. Any module may import a contract and enqueue it; only the owner
 * registers a handler (`handle`). Contracts other modules enqueue live in `contracts.ts` of this package.
 */
export interface JobContract<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly module: ModuleName;
  readonly schema: S;
  readonly attempts?: number;
  readonly backoffMs?: number;
  readonly repeat?: { everyMs: number } | { cron: string };
}

export function jobContract<S extends z.ZodType>(def: Omit<JobContract<S>, 'module'>): JobContract<S> {
  const module = def.name.split('.')[0] as ModuleName;
  if (!module || !def.name.includes('.')) throw new Error(`job name ${def.name} is not <module>.<job>`);
  if (def.repeat && 'cron' in def.repeat) CronExpressionParser.parse(def.repeat.cron); // a bad pattern fails at import
  return { ...def, module };
}

/** The owner's handler for a contract: the job definition its service registers. */
export function handle<S extends z.ZodType>(contract: JobContract<S>, handler: JobDefinition<S>['handler']): JobDefinition<S> {
  return { name: contract.name, schema: contract.schema, attempts: contract.attempts, backoffMs: contract.backoffMs, repeat: contract.repeat, handler };
}

export interface EnqueueOptions {
  /** a deterministic id makes a repeat enqueue of the same job a no-op (webhook events, digests) */
  jobId?: string;
  delayMs?: number;
}

export interface Queue {
  readonly kind: 'bullmq' | 'in-process';
  /**
   * Enqueues a job: by contract (typed, and onto the owning module's queue, which may be another module's), or
   * by the name of one of this module's own jobs. Call it after the transaction that the job depends on has
   * committed, so a worker never reads a state that was rolled back.
   */
  enqueue<S extends z.ZodType>(contract: JobContract<S>, data: z.input<S>, opts?: EnqueueOptions): Promise<void>;
  enqueue(name: string, data: unknown, opts?: EnqueueOptions): Promise<void>;
  /**
   * Jobs this in-process queue handed to another module that has no queue in this process (a test app alone):
   * what a test asserts for cross-module work. Always empty on BullMQ.
   */
  readonly handedOff: Array<{ name: string; data: unknown; jobId?: string }>;
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

/** Checks that a service registers a handler for every contract it owns, and none twice (at startup). */
export function checkHandlers(module: string, owned: JobContract[], jobs: JobDefinition[]): void {
  const names = new Map<string, number>();
  for (const job of jobs) names.set(job.name, (names.get(job.name) ?? 0) + 1);
  for (const contract of owned) {
    if (contract.module !== module) throw new Error(`${module} lists ${contract.name}, a job of ${contract.module}`);
    const n = names.get(contract.name) ?? 0;
    if (n !== 1) throw new Error(`job ${contract.name} has ${n} handlers in ${module}; it needs exactly one`);
  }
}

type Validate = (name: string, data: unknown) => { job: JobDefinition; data: unknown };

/** The in-process queues of this process by module: the embedded fleet hands cross-module jobs to their owner. */
const inProcessQueues = new Map<string, Queue & { accept(name: string, data: unknown, opts?: EnqueueOptions): void }>();

/** Milliseconds until a cron pattern next fires (UTC). */
export function nextCronDelay(pattern: string, from = new Date()): number {
  const next = CronExpressionParser.parse(pattern, { currentDate: from, tz: 'UTC' }).next().toDate();
  return Math.max(0, next.getTime() - from.getTime());
}

function splitEnqueue(target: JobContract | string, data: unknown, module: string) {
  if (typeof target === 'string') return { module, name: target, data };
  return { module: target.module, name: target.name, data: target.schema.parse(data) };
}

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
  let closed = false;
  for (const job of jobs.values()) {
    if (job.repeat && 'everyMs' in job.repeat) {
      const t = setInterval(() => track(run(job, {})), job.repeat.everyMs);
      t.unref();
      timers.push(t);
    } else if (job.repeat && 'cron' in job.repeat) {
      const pattern = job.repeat.cron;
      const schedule = () => {
        if (closed) return;
        const t = setTimeout(() => {
          track(run(job, {}));
          schedule();
        }, nextCronDelay(pattern));
        t.unref();
        timers.push(t);
      };
      schedule();
    }
  }
  const handedOff: Queue['handedOff'] = [];
  const accept = (name: string, raw: unknown, opts?: EnqueueOptions) => {
    const { job, data } = validate(name, raw);
    if (opts?.jobId) {
      if (seen.has(opts.jobId)) return;
      seen.add(opts.jobId);
    }
    const delay = opts?.delayMs ?? 0;
    track(new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => run(job, data)));
  };
  const queue = {
    kind: 'in-process' as const,
    handedOff,
    accept,
    async enqueue(target: JobContract | string, raw: unknown, opts?: EnqueueOptions) {
      const { module, name, data } = splitEnqueue(target, raw, options.module);
      if (module === options.module) return accept(name, data, opts);
      const owner = inProcessQueues.get(module);
      if (owner) owner.accept(name, data, opts);
      else handedOff.push({ name, data, ...(opts?.jobId ? { jobId: opts.jobId } : {}) });
    },
    async startWorker() {},
    async drain() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    async close() {
      closed = true;
      timers.forEach((t) => clearTimeout(t));
      if (inProcessQueues.get(options.module) === queue) inProcessQueues.delete(options.module);
      await Promise.allSettled([...pending]);
    },
  };
  // The embedded fleet runs one queue per module in this process; the latest one of a module receives.
  inProcessQueues.set(options.module, queue);
  return queue;
}

async function createBullQueue(options: QueueOptions, jobs: Map<string, JobDefinition>, validate: Validate): Promise<Queue> {
  const { Queue: BullQueue, Worker } = await import('bullmq');
  const { Redis: IORedis } = await import('ioredis');
  // BullMQ workers need maxRetriesPerRequest null; one connection for producing, one per worker.
  const connection = new IORedis(options.redisUrl!, { maxRetriesPerRequest: null });
  const queue = new BullQueue(options.module, { connection });
  let worker: InstanceType<typeof Worker> | undefined;
  let workerConnection: InstanceType<typeof IORedis> | undefined;
  // Queues of other modules this one hands jobs to, opened on first use over the same connection.
  const others = new Map<string, InstanceType<typeof BullQueue>>();
  const queueOf = (module: string) => {
    if (module === options.module) return queue;
    let other = others.get(module);
    if (!other) others.set(module, (other = new BullQueue(module, { connection })));
    return other;
  };
  return {
    kind: 'bullmq',
    handedOff: [],
    async enqueue(target: JobContract | string, raw: unknown, opts?: EnqueueOptions) {
      // Own jobs by name are checked against their handler; a contract carries its schema and policy.
      const { module, name, data, policy } =
        typeof target === 'string'
          ? { module: options.module, name: target, ...(({ job, data }) => ({ data, policy: job }))(validate(target, raw)) }
          : { ...splitEnqueue(target, raw, options.module), policy: target };
      await queueOf(module).add(name, data, {
        jobId: opts?.jobId,
        delay: opts?.delayMs,
        attempts: policy.attempts ?? 5,
        backoff: { type: 'exponential', delay: policy.backoffMs ?? 1000 },
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
      for (const other of others.values()) await other.close();
      await queue.close();
      await connection.quit();
    },
  };
}
