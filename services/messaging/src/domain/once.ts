import { createHash } from 'node:crypto';
import type { JobContext, Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { markServed } from '../repos/job-deliveries';

/**
 * The identity of one job across its runs, for the log of whom it served (`repos/job-deliveries.ts`): the outbox
 * hands a job it cannot confirm over again (a Redis that restarted forgot it had finished), with the same id and
 * payload. The id is the job's own when the runner gives it (`ctx.jobId`); until it does, the payload's digest: every
 * payload messaging's delivering jobs carry names something written once (fresh notifications, a delivery log, a
 * mail's own `key`), so two jobs never share it; a `templateEmail` or `notifyPeople` other modules enqueue twice with
 * the same payload within the log's two days counts as one.
 */
export function jobKeyOf(name: string, data: unknown, ctx: JobContext): string {
  const id = 'jobId' in ctx && typeof ctx.jobId === 'string' && ctx.jobId ? ctx.jobId : undefined;
  return `${name}:${id ?? createHash('sha256').update(canonical(data)).digest('base64url')}`;
}

/** JSON with every object's keys sorted: the same payload reads the same after a trip through jsonb or Redis. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** How long what a job served is remembered: far longer than the outbox takes to confirm a job (seconds to minutes). */
export const SERVED_KEPT_MS = 2 * 24 * 3600 * 1000;

/**
 * Runs `work` in one transaction with the record that job `key` served `recipient`, unless it has already: what
 * `work` writes or enqueues (with `tx`) then exists exactly once per job and recipient. Jobs enqueued to run locally
 * (a socket push) run as soon as it commits. Answers whether it ran.
 */
export async function onceInTx(deps: Pick<MessagingDeps, 'db' | 'queue'>, key: string, recipient: string, work: (tx: Tx) => Promise<unknown>): Promise<boolean> {
  return deps.queue.transaction(deps.db, async (tx) => {
    if (!(await markServed(tx, key, [recipient])).size) return false;
    await work(tx);
    return true;
  });
}
