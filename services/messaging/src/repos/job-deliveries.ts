import { and, eq, inArray, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { jobDeliveries } from '../db/schema';

/** Which of these recipients the job has served already. */
export async function servedOf(db: DbOrTx, jobKey: string, recipients: string[]): Promise<Set<string>> {
  if (!recipients.length) return new Set();
  const rows = await db
    .select({ recipient: jobDeliveries.recipient })
    .from(jobDeliveries)
    .where(and(eq(jobDeliveries.jobKey, jobKey), inArray(jobDeliveries.recipient, recipients)));
  return new Set(rows.map((r) => r.recipient));
}

/**
 * Records that the job served these recipients; answers those it had not served before. In a transaction, a second
 * run that records the same recipient at the same moment waits for the first to commit and then finds it served.
 */
export async function markServed(db: DbOrTx, jobKey: string, recipients: string[]): Promise<Set<string>> {
  if (!recipients.length) return new Set();
  const rows = await db
    .insert(jobDeliveries)
    .values(recipients.map((recipient) => ({ jobKey, recipient })))
    .onConflictDoNothing()
    .returning({ recipient: jobDeliveries.recipient });
  return new Set(rows.map((r) => r.recipient));
}

/** Forgets what jobs served before `before` (a job is not handed over again after that long). */
export async function purgeServed(db: DbOrTx, before: Date): Promise<void> {
  await db.delete(jobDeliveries).where(lt(jobDeliveries.servedAt, before));
}
