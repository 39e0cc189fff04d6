import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { jobDeliveries } from '../db/schema';

export type DeliveryClaim = 'claimed' | 'done' | 'busy';

/**
 * Claims the delivery of a job's effect by its key: `claimed` when this run is to deliver it (a new key, or a claim
 * older than `staleMs`, whose handler stopped mid-delivery), `done` when it was delivered, `busy` while another run
 * delivers it. One statement: two runs at once never both claim.
 */
export async function claimDelivery(db: DbOrTx, churchId: string, jobKey: string, staleMs: number): Promise<DeliveryClaim> {
  const [claimed] = await db
    .insert(jobDeliveries)
    .values({ jobKey, churchId, state: 'sending' })
    .onConflictDoUpdate({
      target: jobDeliveries.jobKey,
      set: { claimedAt: sql`now()` },
      setWhere: sql`${jobDeliveries.state} = 'sending' and ${jobDeliveries.claimedAt} < now() - ${staleMs} * interval '1 millisecond'`,
    })
    .returning({ state: jobDeliveries.state });
  if (claimed) return 'claimed';
  const [kept] = await db.select({ state: jobDeliveries.state }).from(jobDeliveries).where(eq(jobDeliveries.jobKey, jobKey));
  return kept?.state === 'done' ? 'done' : 'busy';
}

/** The effect was delivered: every later run of the job finds it done. */
export async function finishDelivery(db: DbOrTx, jobKey: string): Promise<void> {
  await db.update(jobDeliveries).set({ state: 'done', doneAt: sql`now()` }).where(eq(jobDeliveries.jobKey, jobKey));
}

/** The delivery failed: the claim is let go, so the job's retry delivers it. */
export async function releaseDelivery(db: DbOrTx, jobKey: string): Promise<void> {
  await db.delete(jobDeliveries).where(and(eq(jobDeliveries.jobKey, jobKey), eq(jobDeliveries.state, 'sending')));
}
