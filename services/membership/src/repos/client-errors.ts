import { and, count, eq, gt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { clientErrors } from '../db/schema';

export type ClientErrorRow = typeof clientErrors.$inferSelect;

/** How many reports the user sent in the church after `since`. */
export async function countClientErrorsSince(db: DbOrTx, churchId: string, userId: string, since: Date): Promise<number> {
  const [recent] = await db
    .select({ n: count() })
    .from(clientErrors)
    .where(and(eq(clientErrors.churchId, churchId), gt(clientErrors.createdAt, since), eq(clientErrors.userId, userId)));
  return Number(recent?.n ?? 0);
}

export async function insertClientError(db: DbOrTx, values: typeof clientErrors.$inferInsert): Promise<ClientErrorRow> {
  const [row] = await db.insert(clientErrors).values(values).returning();
  return row!;
}
