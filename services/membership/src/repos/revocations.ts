import { gte, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { tokenRevocations } from '../db/schema';

export type RevocationRow = typeof tokenRevocations.$inferSelect;

/** Writes revocation stamps (in the caller's transaction: they count once it commits). */
export async function insertRevocations(db: DbOrTx, rows: Array<typeof tokenRevocations.$inferInsert>): Promise<void> {
  await db.insert(tokenRevocations).values(rows);
}

/** Drops the stamps written before `beforeMs` (no token they could refuse is still alive). */
export async function pruneRevocations(db: DbOrTx, beforeMs: number): Promise<void> {
  await db.delete(tokenRevocations).where(lt(tokenRevocations.atMs, beforeMs));
}

/** The stamps written at or after `sinceMs`. */
export function revocationsFrom(db: DbOrTx, sinceMs: number): Promise<RevocationRow[]> {
  return db.select().from(tokenRevocations).where(gte(tokenRevocations.atMs, sinceMs));
}
