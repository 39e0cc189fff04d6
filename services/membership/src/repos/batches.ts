import { and, desc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { batchItems, batches, people } from '../db/schema';

export type BatchRow = typeof batches.$inferSelect;
export type BatchItemRow = typeof batchItems.$inferSelect;

export async function insertBatch(db: DbOrTx, row: typeof batches.$inferInsert, items: Array<typeof batchItems.$inferInsert>): Promise<BatchRow> {
  const [saved] = await db.insert(batches).values(row).returning();
  for (let i = 0; i < items.length; i += 1000) await db.insert(batchItems).values(items.slice(i, i + 1000));
  return saved!;
}

export function listBatches(db: DbOrTx, churchId: string): Promise<BatchRow[]> {
  return db.select().from(batches).where(eq(batches.churchId, churchId)).orderBy(desc(batches.createdAt), desc(batches.id)).limit(500);
}

export async function findBatch(db: DbOrTx, churchId: string, id: string, lock = false): Promise<BatchRow | undefined> {
  const query = db.select().from(batches).where(and(eq(batches.churchId, churchId), eq(batches.id, id))).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export function itemsOf(db: DbOrTx, churchId: string, batchId: string): Promise<BatchItemRow[]> {
  return db.select().from(batchItems).where(and(eq(batchItems.churchId, churchId), eq(batchItems.batchId, batchId))).orderBy(batchItems.entityId);
}

export async function setBatchStatus(db: DbOrTx, churchId: string, id: string, status: BatchRow['status']): Promise<BatchRow> {
  const [row] = await db.update(batches).set({ status, undoneAt: new Date() }).where(and(eq(batches.churchId, churchId), eq(batches.id, id))).returning();
  return row!;
}

/** The people of the church among `ids`, removed or not, as they are now (undo compares and restores them). */
export function peopleNow(db: DbOrTx, churchId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db.select().from(people).where(and(eq(people.churchId, churchId), inArray(people.id, ids)));
}

export async function restorePerson(db: DbOrTx, churchId: string, id: string, values: Record<string, unknown>) {
  const [row] = await db
    .update(people)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(people.churchId, churchId), eq(people.id, id)))
    .returning();
  return row;
}

/** Sets the same values on the church's live people among `ids` in one statement; the rows as they are after. */
export function updateMany(db: DbOrTx, churchId: string, ids: string[], values: Record<string, unknown>) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .update(people)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(people.churchId, churchId), inArray(people.id, ids), eq(people.removed, false)))
    .returning();
}
