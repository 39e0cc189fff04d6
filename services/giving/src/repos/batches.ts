import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { donationBatches } from '../db/schema';
import { batchTotals } from './donations';

export type BatchRow = typeof donationBatches.$inferSelect;

/** Batches as the API answers them: with their donations' count and total. */
export async function withTotals(db: DbOrTx, churchId: string, rows: BatchRow[]) {
  const totals = await batchTotals(db, churchId, rows.map((r) => r.id));
  return rows.map((r) => ({ id: r.id, name: r.name, batchDate: r.batchDate, donationCount: totals.get(r.id)?.count ?? 0, totalAmount: totals.get(r.id)?.total ?? 0 }));
}

/** The church's batches (or one), newest first, with their totals. */
export async function listBatches(db: DbOrTx, churchId: string, id?: string) {
  const rows = await db
    .select()
    .from(donationBatches)
    .where(and(eq(donationBatches.churchId, churchId), id ? eq(donationBatches.id, id) : undefined))
    .orderBy(desc(donationBatches.batchDate), desc(donationBatches.createdAt));
  return withTotals(db, churchId, rows);
}

/** Deletes a batch of the church; answers it as it was, or undefined. */
export async function deleteBatch(tx: DbOrTx, churchId: string, id: string): Promise<BatchRow | undefined> {
  const [row] = await tx.delete(donationBatches).where(and(eq(donationBatches.churchId, churchId), eq(donationBatches.id, id))).returning();
  return row;
}
