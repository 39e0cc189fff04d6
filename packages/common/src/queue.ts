import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { randomUUID } from 'node:crypto';
import type { ModuleName } from './config';
import type { Database, Db, DbOrTx, Tx } from './db';
import { outboxStore, type OutboxJob, type OutboxStore } from './outbox';
import { outsideTransaction } from './tx-scope';

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
  /** runs in the process that enqueued it, right after commit, never through Redis' queue (see `JobContract.local`) */
  local?: boolean;
}

export interface JobContext {
  log: FastifyBaseLogger;
  attempt: number;
  /**
   * The id the job runs under (its outbox row, or the key it was enqueued with), the same on every run of it: a
   * handler whose effect leaves the database (an email, a push, a provider call) keys its delivery log by it and
   * sends nothing a second time. Absent for repeating jobs.
   */
  jobId?: string;
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
  /**
   * An effect of a change rather than work: it runs in the process that made the change as soon as the change
   * commits (a real-time push), kept in the outbox until it has run, so an outage of Redis delays it and a
   * crash hands it to another process, but it never waits in Redis' queue. Only the owning module enqueues it.
   */
  readonly local?: boolean;
}

export function jobContract<S extends z.ZodType>(def: Omit<JobContract<S>, 'module'>): JobContract<S> {
  const module = def.name.split('.')[0] as ModuleName;
  if (!module || !def.name.includes('.')) throw new Error(`job name ${def.name} is not <module>.<job>`);
  if (def.repeat && 'cron' in def.repeat) CronExpressionParser.parse(def.repeat.cron); // a bad pattern fails at import
  return { ...def, module };
}

/** The owner's handler for a contract: the job definition its service registers. */
export function handle<S extends z.ZodType>(contract: JobContract<S>, handler: JobDefinition<S>['handler']): JobDefinition<S> {
  return { name: contract.name, schema: contract.schema, attempts: contract.attempts, backoffMs: contract.backoffMs, repeat: contract.repeat, local: contract.local, handler };
}

export interface EnqueueOptions {
  /** a deterministic id makes a repeat enqueue of the same job a no-op (webhook events, digests) */
  jobId?: string;
  delayMs?: number;
  /**
   * the transaction of the change that causes the job: the job is written in it and exists only if it commits
   * (the outbox). Without it the job is written at once, after the caller's commit.
   */
  tx?: DbOrTx;
}

export interface Queue {
  readonly kind: 'bullmq' | 'in-process';
  /**
   * Enqueues a job: by contract (typed, and onto the owning module's queue, which may be another module's), or
   * by the name of one of this module's own jobs. The job is a row of this module's database first (the outbox):
   * pass the change's transaction as `tx`, or call it after the commit. It never waits on Redis.
   */
  enqueue<S extends z.ZodType>(contract: JobContract<S>, data: z.input<S>, opts?: EnqueueOptions): Promise<void>;
  enqueue(name: string, data: unknown, opts?: EnqueueOptions): Promise<void>;
  /**
   * Jobs this in-process queue handed to another module that has no queue in this process (a test app alone):
   * what a test asserts for cross-module work. Always empty on BullMQ.
   */
  readonly handedOff: Array<{ name: string; data: unknown; jobId?: string }>;
  /**
   * Runs `work` in a transaction of `db` and, once it has committed, hands over at once the jobs enqueued in it
   * with `{ tx }` (a local job runs right then): the way to enqueue with a transaction on a hot path. Jobs
   * enqueued with a transaction opened elsewhere are found a moment after their commit instead.
   */
  transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T>;
  /** starts consuming (the worker side); in-process queues consume as soon as they are created */
  startWorker(): Promise<void>;
  /** starts the outbox's periodic sweep (an API or worker process once its database is migrated) */
  startRelay(): Promise<void>;
  /** one pass of the sweep: hands over what is pending, re-sends what Redis lost, confirms what finished */
  sweep(): Promise<void>;
  /** outstanding jobs of this module's outbox by state (the queue-depth metric) */
  depth(): Promise<Record<'pending' | 'sent' | 'failed', number>>;
  /** resolves when every job enqueued so far has finished (in-process only; tests use it) */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface QueueOptions {
  module: string;
  jobs: JobDefinition[];
  log: FastifyBaseLogger;
  redisUrl?: string;
  /** the module's database, which holds its outbox; without it jobs go straight to the queue (tests of the queue) */
  database?: Database;
  /** the longest wait between two attempts of a job run in-process (tests keep it short) */
  retryMaxDelayMs?: number;
  /** how often the sweep runs */
  sweepMs?: number;
}

/**
 * Attempts and backoff of jobs that deliver something to a person (an email, a receipt, a reset link, a
 * notification): exponential from 2 s over 11 retries, about 68 minutes in all, so an outage of Redis, the
 * database or the provider delays the delivery rather than losing it.
 */
export const DELIVERY_RETRIES = { attempts: 12, backoffMs: 2000 } as const;

/** How long a hand-over to Redis (or a question to it) may take before the outbox tries again later. */
const HAND_OVER_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** How long a job handed to BullMQ may go unconfirmed before the sweep asks Redis whether it still has it. */
const CONFIRM_AFTER_MS = 30_000;

/**
 * A worker's hold on a job, renewed every half of it while the job runs: a worker that crashed loses it after at
 * most this long, and the stalled-job check (every `STALLED_CHECK_MS`) hands the job to another worker, so a
 * crashed worker's jobs run again within 15 s (BullMQ's defaults, 30 s each, made it about 73 s).
 */
export const JOB_LOCK_MS = 10_000;
export const STALLED_CHECK_MS = 5_000;

/**
 * Runs a job at most once to its end in this module: skipped when `job_runs` says it finished, recorded there
 * when it does. A record that cannot be written is logged, not retried: running the job again would be worse.
 */
async function once(store: OutboxStore | undefined, id: string | undefined, name: string, log: FastifyBaseLogger, job: () => Promise<void>): Promise<void> {
  const work = () => outsideTransaction(job);
  if (!store || !id) return work();
  if (await store.finished(id)) {
    log.info({ job: name, jobId: id }, 'job finished before; not run again');
    return;
  }
  await work();
  await store.recordRun(id, name).catch((err: unknown) => log.warn({ err, job: name, jobId: id }, 'job finished but its end could not be recorded'));
}

/**
 * Records that a job's effect outside the database happened (a mail sent, a webhook answered 2xx). The effect cannot
 * be taken back, so a record that fails (PostgreSQL restarting) is tried again for a while instead of failing the
 * job, whose retry would repeat the effect; past `withinMs` the failure is logged and the job ends as done.
 */
export async function recordEffect(
  record: () => Promise<unknown>,
  opts: { what: string; log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void }; withinMs?: number },
): Promise<void> {
  const deadline = Date.now() + (opts.withinMs ?? 60_000);
  for (let wait = 200; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      await record();
      return;
    } catch (err) {
      if (Date.now() + wait > deadline) {
        opts.log?.error({ err }, `${opts.what} happened but could not be recorded; the job ends as done`);
        return;
      }
      opts.log?.warn({ err }, `${opts.what} happened; recording it again in ${wait} ms`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * The module's queue: BullMQ on Redis when `redisUrl` is set, an in-process runner otherwise. Both validate
 * the payload at enqueue time, so a bad job fails its caller rather than a worker later, and both go through
 * the module's outbox when it has a database.
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
const inProcessQueues = new Map<string, Queue & { accept(name: string, data: unknown, jobId?: string): Promise<void> }>();

/** Milliseconds until a cron pattern next fires (UTC). */
export function nextCronDelay(pattern: string, from = new Date()): number {
  const next = CronExpressionParser.parse(pattern, { currentDate: from, tz: 'UTC' }).next().toDate();
  return Math.max(0, next.getTime() - from.getTime());
}

/** A job to enqueue, checked: its queue (module), name, payload and retry policy. */
function resolve(target: JobContract | string, raw: unknown, module: string, validate: Validate) {
  if (typeof target !== 'string') return { module: target.module, name: target.name, data: target.schema.parse(raw), policy: target as Pick<JobContract, 'attempts' | 'backoffMs'> };
  const { job, data } = validate(target, raw);
  return { module, name: target, data, policy: job as Pick<JobDefinition, 'attempts' | 'backoffMs'> };
}

/**
 * The outbox side every queue shares: writing a job, and handing rows over (`hand`) when they are written
 * (at once, or shortly after the caller's transaction) and on every sweep.
 */
function outboxRelay(
  options: QueueOptions,
  validate: Validate,
  hand: (jobs: OutboxJob[]) => Promise<void>,
  due: 'now' | 'any',
  local: { is: (name: string) => boolean; run: (job: OutboxJob) => void },
) {
  const store = options.database ? outboxStore(options.database) : undefined;
  const pending = new Set<Promise<unknown>>();
  /** relays due later, each with what settles its tracked promise (a close settles them unrun) */
  const timers = new Map<NodeJS.Timeout, () => void>();
  const owner = randomUUID();
  let closed = false;
  const track = <T>(p: Promise<T>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p)).catch(() => undefined);
    return p;
  };
  // Said once when hand-overs start failing and once when they work again, not on every try in between.
  let failing = false;
  const relay = async (ids?: string[]) => {
    if (!store || closed) return;
    try {
      const claimed = await store.claim(owner, 200, { ids, dueBy: due === 'now' ? new Date() : undefined });
      if (claimed.length) await hand(claimed);
      if (failing) options.log.info('job outbox: hand-overs work again');
      failing = false;
    } catch (err) {
      // The database or Redis is away: the rows stay pending, and the next sweep tries again.
      if (!failing) options.log.warn({ err: { message: (err as Error).message } }, 'job outbox: hand-overs deferred until the queue answers');
      failing = true;
    }
  };
  /** Relays soon: at `delays` ms (a transaction's commit is a moment away), tracked so `drain` waits for it. */
  const later = (delays: number[], ids?: string[]) => {
    for (const ms of delays) {
      track(
        new Promise<void>((done) => {
          const t = setTimeout(() => {
            timers.delete(t);
            void relay(ids).finally(done);
          }, ms);
          timers.set(t, done);
        }),
      );
    }
  };
  /** Jobs enqueued in the transactions `transaction` runs, handed over when each commits. */
  const ofTransaction = new WeakMap<object, OutboxJob[]>();
  /** Local jobs of transactions opened elsewhere: run once their row is seen committed. */
  const localLater = (job: OutboxJob) => {
    let started = false;
    for (const ms of [5, 100, 1000]) {
      track(
        new Promise<void>((done) => {
          const t = setTimeout(() => {
            timers.delete(t);
            if (started || closed) return done();
            void store!
              .committed([job.id])
              .then((ids) => {
                if (ids.length && !started) {
                  started = true;
                  local.run(job);
                }
              })
              .catch(() => undefined)
              .finally(done);
          }, ms);
          timers.set(t, done);
        }),
      );
    }
  };
  return {
    store,
    owner,
    track,
    relay,
    async transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
      const jobs: OutboxJob[] = [];
      const result = await db.transaction(async (tx) => {
        ofTransaction.set(tx, jobs);
        return work(tx);
      });
      const others = jobs.filter((j) => !local.is(j.name));
      for (const job of jobs) if (local.is(job.name)) local.run(job);
      if (others.length) track(relay(others.map((j) => j.id)));
      return result;
    },
    async enqueue(target: JobContract | string, raw: unknown, opts: EnqueueOptions | undefined, direct: (job: OutboxJob, jobKey?: string) => Promise<void>) {
      const { module, name, data, policy } = resolve(target, raw, options.module, validate);
      const delayMs = opts?.delayMs ?? 0;
      const job: OutboxJob = { id: randomUUID(), queue: module, name, data, runAt: new Date(Date.now() + delayMs), attempts: policy.attempts ?? 5, backoffMs: policy.backoffMs ?? 1000 };
      if (!store) return direct(job, opts?.jobId);
      // A local job is written claimed by this process: no other replica takes it while it may still run here.
      const isLocal = local.is(name) && module === options.module && delayMs === 0;
      if (!(await store.add({ ...job, jobKey: opts?.jobId }, opts?.tx, isLocal ? owner : undefined))) return;
      const tracked = opts?.tx ? ofTransaction.get(opts.tx) : undefined;
      if (tracked) tracked.push(job);
      else if (isLocal && opts?.tx) localLater(job);
      else if (isLocal) local.run(job);
      else if (opts?.tx) later([5, 100, 1000]);
      else if (due === 'now' && delayMs > 0) later([delayMs], [job.id]);
      // In-process, the claim is one local query and the job starts before the caller goes on (as a direct run
      // would); a hand-over to Redis is never waited for.
      else if (due === 'now') await track(relay([job.id]));
      else track(relay([job.id]));
    },
    async sweepPending() {
      await relay();
    },
    drain: async () => {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    close() {
      closed = true;
      for (const [t, done] of timers) {
        clearTimeout(t);
        done();
      }
      timers.clear();
    },
  };
}

/** Runs a job in this process with its retries, at most once to its end by `jobId`; true when it succeeded, else the last error. */
function runner(options: QueueOptions, store: () => OutboxStore | undefined) {
  const maxDelay = options.retryMaxDelayMs ?? 60_000;
  return async (job: JobDefinition, data: unknown, attempts = job.attempts ?? 5, backoffMs = job.backoffMs ?? 1000, jobId?: string): Promise<true | Error> => {
    let last: Error = new Error('not run');
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await once(store(), jobId, job.name, options.log, () => job.handler(data, { log: options.log, attempt, jobId }));
        return true;
      } catch (err) {
        last = err as Error;
        options.log.warn({ err, job: job.name, attempt }, 'job failed');
        if (attempt < attempts) await new Promise((r) => setTimeout(r, Math.min(backoffMs * 2 ** (attempt - 1), maxDelay)));
      }
    }
    options.log.error({ job: job.name, err: last }, 'job gave up after its last attempt');
    return last;
  };
}

/** Runs claimed rows in this process and records how each ended in the outbox. */
function runClaimed(store: OutboxStore, track: (p: Promise<unknown>) => unknown, execute: (job: OutboxJob) => Promise<true | Error>, isClosed: () => boolean) {
  return (job: OutboxJob) =>
    track(
      execute(job).then(async (result) => {
        if (isClosed()) return;
        if (result === true) await store.done([job.id]);
        else await store.failed(job.id, result.message);
      }),
    );
}

function createInProcessQueue(options: QueueOptions, jobs: Map<string, JobDefinition>, validate: Validate): Queue {
  const seen = new Set<string>();
  const timers: NodeJS.Timeout[] = [];
  const run = runner(options, () => outbox.store);
  let closed = false;
  const handedOff: Queue['handedOff'] = [];
  // A job of this module runs here; another module's runs in that module's queue when this process has one.
  const runHere = async (queueName: string, name: string, data: unknown, attempts?: number, backoffMs?: number, jobKey?: string, jobId?: string): Promise<true | Error> => {
    if (queueName === options.module) {
      const { job, data: parsed } = validate(name, data);
      return run(job, parsed, attempts, backoffMs, jobId ?? jobKey);
    }
    const owner = inProcessQueues.get(queueName);
    if (!owner) {
      handedOff.push({ name, data, ...(jobKey ? { jobId: jobKey } : {}) });
      return true;
    }
    return owner.accept(name, data, jobId ?? jobKey).then(
      () => true as const,
      (err: Error) => err,
    );
  };
  const outbox = outboxRelay(
    options,
    validate,
    async (claimed) => claimed.forEach(runOne()),
    'now',
    { is: (name) => jobs.get(name)?.local === true, run: (job) => runOne()(job) },
  );
  function runOne() {
    return runClaimed(outbox.store!, outbox.track, (job) => runHere(job.queue, job.name, job.data, job.attempts, job.backoffMs, undefined, job.id), () => closed);
  }
  for (const job of jobs.values()) {
    if (job.repeat && 'everyMs' in job.repeat) {
      const t = setInterval(() => outbox.track(run(job, {})), job.repeat.everyMs);
      t.unref();
      timers.push(t);
    } else if (job.repeat && 'cron' in job.repeat) {
      const pattern = job.repeat.cron;
      const schedule = () => {
        if (closed) return;
        const t = setTimeout(() => {
          outbox.track(run(job, {}));
          schedule();
        }, nextCronDelay(pattern));
        t.unref();
        timers.push(t);
      };
      schedule();
    }
  }
  // Runs a job another module's queue in this process accepted for us (its outbox keeps the row).
  const accept = async (name: string, raw: unknown, jobId?: string) => {
    const { job, data } = validate(name, raw);
    const result = await run(job, data, undefined, undefined, jobId);
    if (result !== true) throw result;
  };
  let sweeping: NodeJS.Timeout | undefined;
  const queue = {
    kind: 'in-process' as const,
    handedOff,
    accept,
    async enqueue(target: JobContract | string, raw: unknown, opts?: EnqueueOptions) {
      await outbox.enqueue(target, raw, opts, async (job, jobKey) => {
        // No database (a queue on its own): the job runs in this process only.
        if (jobKey) {
          if (seen.has(jobKey)) return;
          seen.add(jobKey);
        }
        const wait = job.runAt.getTime() - Date.now();
        const start = wait > 0 ? new Promise<void>((r) => setTimeout(r, wait)) : undefined;
        outbox.track(start ? start.then(() => runHere(job.queue, job.name, job.data, job.attempts, job.backoffMs, jobKey)) : runHere(job.queue, job.name, job.data, job.attempts, job.backoffMs, jobKey));
      });
    },
    transaction: outbox.transaction,
    async startWorker() {},
    async startRelay() {
      if (!outbox.store || sweeping) return;
      // This process is the only runner of its in-process jobs: what another (gone) process had claimed runs again.
      const orphans = await outbox.store.reclaimOrphans(outbox.owner);
      if (orphans) options.log.info({ orphans }, 'job outbox: jobs of a previous run taken up again');
      await outbox.sweepPending();
      sweeping = setInterval(() => void queue.sweep(), options.sweepMs ?? 5_000);
      sweeping.unref();
    },
    async sweep() {
      await outbox.sweepPending();
      await outbox.store?.purge().catch(() => undefined);
    },
    async depth() {
      return outbox.store ? outbox.store.depth() : { pending: 0, sent: 0, failed: 0 };
    },
    drain: outbox.drain,
    async close() {
      closed = true;
      if (sweeping) clearInterval(sweeping);
      timers.forEach((t) => clearTimeout(t));
      outbox.close();
      if (inProcessQueues.get(options.module) === queue) inProcessQueues.delete(options.module);
      await outbox.drain();
    },
  };
  // The embedded fleet runs one queue per module in this process; the latest one of a module receives.
  inProcessQueues.set(options.module, queue);
  return queue;
}

async function createBullQueue(options: QueueOptions, jobs: Map<string, JobDefinition>, validate: Validate): Promise<Queue> {
  const { Queue: BullQueue, Worker } = await import('bullmq');
  const { Redis: IORedis } = await import('ioredis');
  // Producing fails fast while Redis is away (the outbox keeps the job); a worker waits for it (BullMQ needs
  // maxRetriesPerRequest null there).
  const connection = new IORedis(options.redisUrl!, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, commandTimeout: 5_000 });
  connection.on('error', () => undefined);
  const queue = new BullQueue(options.module, { connection });
  queue.on('error', () => undefined);
  let worker: InstanceType<typeof Worker> | undefined;
  let workerConnection: InstanceType<typeof IORedis> | undefined;
  // Queues of other modules this one hands jobs to, opened on first use over the same connection.
  const others = new Map<string, InstanceType<typeof BullQueue>>();
  const queueOf = (module: string) => {
    if (module === options.module) return queue;
    let other = others.get(module);
    if (!other) {
      others.set(module, (other = new BullQueue(module, { connection })));
      other.on('error', () => undefined);
    }
    return other;
  };
  // BullMQ waits for its connection before it sends anything, whatever the client's options: a hand-over gives
  // up after a few seconds (the row stays pending; the same job id makes a late second add a no-op).
  const add = (job: OutboxJob) => withTimeout(addNow(job), HAND_OVER_TIMEOUT_MS, 'Redis did not take the job in time');
  const addNow = (job: OutboxJob) =>
    queueOf(job.queue).add(job.name, job.data, {
      jobId: job.id,
      delay: Math.max(0, job.runAt.getTime() - Date.now()),
      attempts: job.attempts,
      backoff: { type: 'exponential', delay: job.backoffMs },
      // Kept long enough for the outbox's sweep to see how each job ended.
      removeOnComplete: { age: 24 * 3600, count: 100_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  const run = runner(options, () => outbox.store);
  let closed = false;
  const isLocal = (name: string) => jobs.get(name)?.local === true;
  const runLocal = (job: OutboxJob) =>
    runClaimed(outbox.store!, outbox.track, (j) => run(jobs.get(j.name)!, validate(j.name, j.data).data, j.attempts, j.backoffMs, j.id), () => closed)(job);
  const outbox = outboxRelay(
    options,
    validate,
    async (claimed) => {
      const failed: string[] = [];
      for (const job of claimed) {
        if (isLocal(job.name)) {
          runLocal(job);
          continue;
        }
        try {
          await add(job);
        } catch {
          failed.push(job.id);
        }
      }
      if (failed.length) {
        await outbox.store!.release(failed);
        throw new Error(`Redis refused ${failed.length} job(s)`);
      }
    },
    'any',
    { is: isLocal, run: runLocal },
  );
  /** Asks Redis how the jobs handed over a while ago ended: finished rows are confirmed, lost ones sent again. */
  const confirm = async () => {
    const store = outbox.store;
    if (!store) return;
    const rows = await store.unconfirmed(CONFIRM_AFTER_MS, 500);
    const finished: string[] = [];
    const lost: string[] = [];
    for (const row of rows) {
      // A local job still claimed here is running; one claimed by a process that is gone runs again.
      if (isLocal(row.name)) {
        if (row.claimedBy !== outbox.owner) lost.push(row.id);
        continue;
      }
      const state = await withTimeout(queueOf(row.queue).getJobState(row.id), HAND_OVER_TIMEOUT_MS, 'Redis did not answer in time');
      if (state === 'completed') finished.push(row.id);
      else if (state === 'unknown') lost.push(row.id);
      else if (state === 'failed') {
        const job = await queueOf(row.queue).getJob(row.id);
        await store.failed(row.id, job?.failedReason ?? 'failed');
      }
    }
    await store.done(finished);
    await store.release(lost);
    if (lost.length) options.log.warn({ lost: lost.length }, 'job outbox: jobs Redis no longer had are sent again');
  };
  const schedulers = async () => {
    for (const job of jobs.values()) {
      if (!job.repeat) continue;
      const repeat = 'everyMs' in job.repeat ? { every: job.repeat.everyMs } : { pattern: job.repeat.cron };
      await queue.upsertJobScheduler(job.name, repeat, { name: job.name, data: {} });
    }
  };
  let sweeping: NodeJS.Timeout | undefined;
  let sweepFailing = false;
  const self: Queue = {
    kind: 'bullmq',
    handedOff: [],
    async enqueue(target: JobContract | string, raw: unknown, opts?: EnqueueOptions) {
      await outbox.enqueue(target, raw, opts, async (job, jobKey) => {
        await add({ ...job, id: jobKey ?? job.id });
      });
    },
    transaction: outbox.transaction,
    async startWorker() {
      await schedulers();
      worker = new Worker(
        options.module,
        async (bullJob) => {
          const job = jobs.get(bullJob.name);
          if (!job) throw new Error(`no handler for job ${bullJob.name}`);
          const data = job.schema.parse(bullJob.data);
          // A repeating job's every firing is new; any other job runs to its end once, however often it is handed over.
          const jobId = job.repeat ? undefined : bullJob.id;
          await once(outbox.store, jobId, job.name, options.log, () => job.handler(data, { log: options.log, attempt: bullJob.attemptsMade + 1, jobId }));
        },
        {
          connection: (workerConnection = new IORedis(options.redisUrl!, { maxRetriesPerRequest: null })),
          concurrency: 8,
          lockDuration: JOB_LOCK_MS,
          stalledInterval: STALLED_CHECK_MS,
        },
      );
      worker.on('failed', (j, err) => options.log.warn({ err, job: j?.name }, 'job failed'));
      worker.on('error', (err) => options.log.warn({ err: { message: err.message } }, 'queue worker: Redis error'));
    },
    async startRelay() {
      if (!outbox.store || sweeping) return;
      sweeping = setInterval(() => void self.sweep(), options.sweepMs ?? 5_000);
      sweeping.unref();
    },
    async sweep() {
      try {
        // What Redis lost goes back to pending first, so this same pass sends it again.
        await confirm();
        await outbox.sweepPending();
        // A Redis that restarted empty has lost the repeat schedules too: set again (idempotent) by the worker.
        if (worker) await schedulers();
        await outbox.store?.purge();
      } catch (err) {
        if (!sweepFailing) options.log.warn({ err: { message: (err as Error).message } }, 'job outbox: sweep deferred until the database and Redis answer');
        sweepFailing = true;
        return;
      }
      sweepFailing = false;
    },
    async depth() {
      return outbox.store ? outbox.store.depth() : { pending: 0, sent: 0, failed: 0 };
    },
    drain: outbox.drain,
    async close() {
      closed = true;
      if (sweeping) clearInterval(sweeping);
      outbox.close();
      await outbox.drain();
      await worker?.close();
      await workerConnection?.quit().catch(() => undefined);
      for (const other of others.values()) await other.close();
      await queue.close();
      await connection.quit().catch(() => undefined);
    },
  };
  return self;
}
