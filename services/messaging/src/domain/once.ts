import { randomUUID } from 'node:crypto';
import type { JobContext, Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { markServed } from '../repos/job-deliveries';

/**
 * The identity of one job across its runs, for the log of whom it served (`repos/job-deliveries.ts`): the outbox
 * hands a job it cannot confirm over again (a Redis that restarted forgot it had finished) under the same id, which
 * the runner gives as `ctx.jobId`. A job run with no outbox row (a queue without a database) is never handed over
 * again: its run is its own identity.
 */
export function jobKeyOf(name: string, ctx: JobContext): string {
  return `${name}:${ctx.jobId ?? randomUUID()}`;
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
