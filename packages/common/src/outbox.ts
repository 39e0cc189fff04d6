import { sql } from 'drizzle-orm';
// Types only: db.ts applies this module's migrations folder, so a value import here would make a cycle.
import type { Database, DbOrTx } from './db';

/**
 * The job outbox: every job a module enqueues is first a row of its own database (`job_outbox`), written in the
 * transaction of the change that causes it when the caller passes one. A relay hands rows to BullMQ (or runs them
 * in-process) and a sweeper re-sends what was lost, so Redis carries work but never holds its only copy, and a
 * request never waits on Redis. The table comes with every module's migrations (`OUTBOX_MIGRATIONS` in db.ts,
 * applied before the module's own).
 *
 * A row is `pending` until it is handed over, then `sent` (in BullMQ, or running in the process that claimed it),
 * then `done` (kept while it has a `job_key`, so the same key is not run twice, and purged after a week) or
 * `failed` (its attempts spent: kept a week for inspection). A `sent` row whose job Redis no longer knows goes back
 * to `pending`.
 *
 * The module that runs a job records its end in its own database (`job_runs`, by the job's id, kept a week): a
 * job handed over again (Redis restarted empty before the sweep confirmed it, a crash between the end and the
 * confirmation) is seen finished there and not run twice. `job_runs` is the owner's record, `job_outbox` the
 * enqueuer's: a job one module enqueues for another has its row in the first and its end in the second.
 */
/** A job as the outbox keeps it. */
export interface OutboxJob {
  id: string;
  /** the module whose queue runs it */
  queue: string;
  name: string;
  data: unknown;
  /** when it may run (a delayed job) */
  runAt: Date;
  attempts: number;
  backoffMs: number;
  /** the process that claimed it (unconfirmed rows only) */
  claimedBy?: string | null;
}

export interface NewOutboxJob extends OutboxJob {
  /** a caller's deterministic id: a second job with the same key is dropped while the first is kept */
  jobKey?: string;
}

interface Row {
  id: string;
  queue: string;
  name: string;
  data: unknown;
  run_at: Date | string;
  attempts: number;
  backoff_ms: number;
  claimed_by?: string | null;
}

const toJob = (r: Row): OutboxJob => ({ id: r.id, queue: r.queue, name: r.name, data: r.data, runAt: new Date(r.run_at), attempts: r.attempts, backoffMs: r.backoff_ms, claimedBy: r.claimed_by });

const COLUMNS = 'id, queue, name, data, run_at, attempts, backoff_ms';

/** The outbox statements over one module's database. */
export function outboxStore(database: Database) {
  const { rows } = database;
  return {
    /**
     * Writes a job, in `tx` when given (it then commits, or not, with the caller's change), claimed already by
     * `claimedBy` when given (a local job its own process runs). False when a job with the same key is kept.
     */
    async add(job: NewOutboxJob, tx?: DbOrTx, claimedBy?: string): Promise<boolean> {
      const statement = sql`insert into job_outbox (id, queue, name, data, job_key, run_at, attempts, backoff_ms, state, claimed_by, sent_at)
        values (${job.id}, ${job.queue}, ${job.name}, ${JSON.stringify(job.data ?? null)}::jsonb, ${job.jobKey ?? null}, ${job.runAt.toISOString()}::timestamptz, ${job.attempts}, ${job.backoffMs},
          ${claimedBy ? 'sent' : 'pending'}, ${claimedBy ?? null}, ${claimedBy ? sql`now()` : null})
        on conflict (job_key) do nothing returning id`;
      const result = (await (tx ?? database.db).execute(statement)) as unknown as { rows: unknown[] };
      return result.rows.length > 0;
    },

    /**
     * Claims pending rows for `owner` (marks them `sent`), the given ids only when `ids` is set, and only rows due
     * by `dueBy` when it is set. Rows another process claims at the same moment are skipped, never taken twice.
     */
    async claim(owner: string, limit: number, opts: { ids?: string[]; dueBy?: Date } = {}): Promise<OutboxJob[]> {
      const found = await rows<Row>(
        `update job_outbox set state = 'sent', claimed_by = $1, sent_at = now()
         where id in (select id from job_outbox where state = 'pending'
           and ($3::uuid[] is null or id = any($3::uuid[])) and ($4::timestamptz is null or run_at <= $4::timestamptz)
           order by run_at limit $2 for update skip locked)
         returning ${COLUMNS}`,
        [owner, limit, opts.ids ?? null, opts.dueBy?.toISOString() ?? null],
      );
      return found.map(toJob);
    },

    /** Which of these rows exist (their transaction has committed). */
    async committed(ids: string[]): Promise<string[]> {
      return (await rows<{ id: string }>(`select id from job_outbox where id = any($1::uuid[])`, [ids])).map((r) => r.id);
    },

    /** Puts claimed rows back (the hand-over failed, or Redis lost them). */
    async release(ids: string[]): Promise<void> {
      if (ids.length) await rows(`update job_outbox set state = 'pending', claimed_by = null where id = any($1::uuid[]) and state = 'sent'`, [ids]);
    },

    /** Rows handed over at least `olderThanMs` ago and not yet confirmed, oldest check first; their check time moves on. */
    async unconfirmed(olderThanMs: number, limit: number): Promise<OutboxJob[]> {
      const found = await rows<Row>(
        `update job_outbox set sent_at = now()
         where id in (select id from job_outbox where state = 'sent' and sent_at < now() - ($1::int * interval '1 millisecond')
           order by sent_at limit $2 for update skip locked)
         returning ${COLUMNS}, claimed_by`,
        [olderThanMs, limit],
      );
      return found.map(toJob);
    },

    /** A job finished: gone, or kept as `done` while its key must stay taken. */
    async done(ids: string[]): Promise<void> {
      if (!ids.length) return;
      await rows(`delete from job_outbox where id = any($1::uuid[]) and job_key is null`, [ids]);
      await rows(`update job_outbox set state = 'done', claimed_by = null where id = any($1::uuid[])`, [ids]);
    },

    /** A job spent its attempts: kept a week as `failed`, with the last error. */
    async failed(id: string, error: string): Promise<void> {
      // The key is let go: a later job with the same key (a redelivered webhook) runs again.
      await rows(`update job_outbox set state = 'failed', job_key = null, last_error = $2 where id = $1`, [id, error.slice(0, 2000)]);
    },

    /** Rows claimed by processes other than `owner` go back to pending (the in-process runner at start). */
    async reclaimOrphans(owner: string): Promise<number> {
      const found = await rows<{ id: string }>(`update job_outbox set state = 'pending', claimed_by = null where state = 'sent' and claimed_by is distinct from $1 returning id`, [owner]);
      return found.length;
    },

    /** Removes finished rows older than a week, and the record of runs as old. */
    async purge(): Promise<void> {
      await rows(`delete from job_outbox where state in ('done', 'failed') and created_at < now() - interval '7 days'`, []);
      await rows(`delete from job_runs where finished_at < now() - interval '7 days'`, []);
    },

    /** True when this module has run the job with this id to its end already. */
    async finished(id: string): Promise<boolean> {
      return (await rows(`select 1 from job_runs where id = $1`, [id])).length > 0;
    },

    /** Records that this module ran the job with this id to its end. */
    async recordRun(id: string, name: string): Promise<void> {
      await rows(`insert into job_runs (id, name) values ($1, $2) on conflict (id) do nothing`, [id, name]);
    },

    /** How many rows are in each state (the queue-depth metric). */
    async depth(): Promise<Record<'pending' | 'sent' | 'failed', number>> {
      const found = await rows<{ state: string; n: number }>(`select state, count(*)::int as n from job_outbox where state <> 'done' group by state`, []);
      const of = (s: string) => found.find((r) => r.state === s)?.n ?? 0;
      return { pending: of('pending'), sent: of('sent'), failed: of('failed') };
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
