import { and, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { apiKeys } from '../db/schema';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function listApiKeys(db: DbOrTx, churchId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.churchId, churchId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

export async function insertApiKey(db: DbOrTx, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [saved] = await db.insert(apiKeys).values(row).returning();
  return saved!;
}

export async function deleteApiKey(db: DbOrTx, churchId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [gone] = await db.delete(apiKeys).where(and(eq(apiKeys.churchId, churchId), eq(apiKeys.id, id))).returning();
  return gone;
}

/** The key a presented `cak_<prefix>.<secret>` names (any church: nobody is authenticated yet). */
export async function apiKeyByPrefix(db: DbOrTx, prefix: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.prefix, prefix)).limit(1);
  return row;
}

/** Marks a key used, at most once per 5 minutes (no write on every exchange). */
export async function touchApiKey(db: DbOrTx, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '5 minutes'`))));
}

/** The keys of these users (in `churchId` only, when set): their tokens fall with their users' rights. */
export async function keysOfUsers(db: DbOrTx, userIds: string[], churchId?: string | null): Promise<Array<{ id: string; churchId: string }>> {
  if (!userIds.length) return [];
  return db
    .select({ id: apiKeys.id, churchId: apiKeys.churchId })
    .from(apiKeys)
    .where(and(inArray(apiKeys.userId, userIds), churchId ? eq(apiKeys.churchId, churchId) : undefined));
}
