import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { blockedIps } from '../db/schema';

/** Removes the blocks of these services (each in its church); answers the rows removed. */
export async function clearBlockedIps(db: DbOrTx, items: Array<{ serviceId: string; churchId: string }>) {
  const removed: Array<typeof blockedIps.$inferSelect> = [];
  for (const item of items) removed.push(...(await db.delete(blockedIps).where(and(eq(blockedIps.churchId, item.churchId), eq(blockedIps.serviceId, item.serviceId))).returning()));
  return removed;
}
