import { randomUUID } from 'node:crypto';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { pageHistory } from '../../db/website';
import type { Owner } from './tree';

export type HistoryRow = typeof pageHistory.$inferSelect;

/** A page's or block's history entries, newest first (the last 500). */
export const historyOf = (db: DbOrTx, churchId: string, owner: Owner): Promise<HistoryRow[]> =>
  db
    .select()
    .from(pageHistory)
    .where(and(eq(pageHistory.churchId, churchId), owner.pageId ? eq(pageHistory.pageId, owner.pageId) : eq(pageHistory.blockId, owner.blockId!)))
    .orderBy(desc(pageHistory.createdAt))
    .limit(500);

/** Stores a snapshot of a page's or block's tree; `userId` is kept only when it is a user's UUID. */
export async function recordHistory(db: DbOrTx, churchId: string, owner: Owner, snapshot: Record<string, unknown>, description: string | null, userId: string): Promise<HistoryRow> {
  const [row] = await db
    .insert(pageHistory)
    .values({ id: randomUUID(), churchId, pageId: owner.pageId ?? null, blockId: owner.blockId ?? null, snapshot, description, userId: /^[0-9a-f-]{36}$/i.test(userId) ? userId : null })
    .returning();
  return row!;
}

/** Deletes every church's history entries created before `cutoff`; answers how many went. */
export async function deleteHistoryBefore(db: DbOrTx, cutoff: Date): Promise<number> {
  const gone = await db.delete(pageHistory).where(lt(pageHistory.createdAt, cutoff)).returning({ id: pageHistory.id });
  return gone.length;
}
