import { keptPer } from '@church/common';
import type { GivingDeps } from '../deps';
import { receiptsJob } from '../jobs/contracts';

/** Receipts are gathered for this long before a `giving.receipts` job sends them. */
const GATHER_MS = 100;
/** The tenth each church's job was last asked for, per process. */
const scheduled = keptPer<object, number>({ max: 10_000 });

/**
 * Makes sure a `giving.receipts` job runs for the church after the receipts pending now: one job per church and
 * tenth of a second (its id names the tenth, and it runs once the tenth is over, so it finds every receipt
 * committed before this call), asked of the queue once per tenth by this process. A webhook burst of hundreds of
 * gifts a second then costs a few jobs a second rather than a job per gift.
 */
export async function scheduleReceipts(deps: Pick<GivingDeps, 'queue'>, churchId: string): Promise<void> {
  const last = scheduled(deps.queue);
  const now = Date.now();
  const tenth = Math.floor(now / GATHER_MS);
  if (last.get(churchId) === tenth) return;
  await deps.queue.enqueue(receiptsJob, { churchId }, { jobId: `receipts-${churchId}-${tenth}`, delayMs: (tenth + 1) * GATHER_MS - now });
  last.set(churchId, tenth);
}
