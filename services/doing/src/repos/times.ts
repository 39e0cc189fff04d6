import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { planItemTimes } from '../db/schema';

/** The service order's standings at a time go with it. */
export async function deleteTimeParts(tx: DbOrTx, churchId: string, timeId: string): Promise<void> {
  await tx.delete(planItemTimes).where(and(eq(planItemTimes.churchId, churchId), eq(planItemTimes.timeId, timeId)));
}
