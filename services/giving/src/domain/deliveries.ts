import { recordEffect, type DbOrTx, type JobContext } from '@church/common';
import { claimDelivery, finishDelivery, releaseDelivery } from '../repos/deliveries';

/** How long a claimed delivery may run before another run of the job takes it over (its handler stopped). */
export const DELIVERY_STALE_MS = 10 * 60_000;

/**
 * Runs a job's outside effect (a mail, a call to a gateway) at most once per job key, whatever the queue does: the
 * outbox hands a job to Redis again when Redis lost it, including one that already ran (a restart between the run
 * and its confirmation). The key is claimed before the effect and marked done after it; a run that finds it done
 * does nothing, one that finds it claimed by a run in progress fails and is retried later (by then done, or stale).
 * A failed effect lets the claim go, so the retry delivers it. Only a handler that stops between the effect and
 * its "done" (a crash in those milliseconds) can deliver twice, once the claim is stale.
 */
export async function deliverOnce(db: DbOrTx, churchId: string, jobKey: string, effect: () => Promise<void>, log?: JobContext['log']): Promise<'delivered' | 'already delivered'> {
  const claim = await claimDelivery(db, churchId, jobKey, DELIVERY_STALE_MS);
  if (claim === 'done') return 'already delivered';
  if (claim === 'busy') throw new Error(`${jobKey} is being delivered by another run; retried later`);
  try {
    await effect();
  } catch (err) {
    await releaseDelivery(db, jobKey);
    throw err;
  }
  // done, however long the database is away: a failed "done" would let the claim go stale and deliver it again
  await recordEffect(() => finishDelivery(db, jobKey), { what: `delivery ${jobKey}`, log });
  return 'delivered';
}
