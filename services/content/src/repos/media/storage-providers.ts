import { randomUUID } from 'node:crypto';
import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { files, storageProviders } from '../../db/media';

export type StorageProviderRow = typeof storageProviders.$inferSelect;
type Fields = Omit<Partial<typeof storageProviders.$inferInsert>, 'id' | 'churchId'>;

export const listProviders = (db: DbOrTx, churchId: string) => db.select().from(storageProviders).where(eq(storageProviders.churchId, churchId)).orderBy(storageProviders.provider);

export async function providerById(db: DbOrTx, churchId: string, id: string): Promise<StorageProviderRow | undefined> {
  const [row] = await db.select().from(storageProviders).where(and(eq(storageProviders.churchId, churchId), eq(storageProviders.id, id)));
  return row;
}

export async function enabledProvider(db: DbOrTx, churchId: string): Promise<StorageProviderRow | undefined> {
  const [row] = await db.select().from(storageProviders).where(and(eq(storageProviders.churchId, churchId), eq(storageProviders.enabled, true))).limit(1);
  return row;
}

/** Saves the church's row of a provider (one per provider), answering it. */
export async function upsertProvider(db: DbOrTx, churchId: string, provider: string, fields: Fields): Promise<StorageProviderRow> {
  const [row] = await db
    .insert(storageProviders)
    .values({ ...fields, id: randomUUID(), churchId, provider })
    .onConflictDoUpdate({ target: [storageProviders.churchId, storageProviders.provider], set: { ...fields, updatedAt: new Date() } })
    .returning();
  return row!;
}

/** At most one provider is enabled: the others are switched off. */
export async function disableOthers(db: DbOrTx, churchId: string, keepId: string): Promise<void> {
  await db.update(storageProviders).set({ enabled: false, updatedAt: new Date() }).where(and(eq(storageProviders.churchId, churchId), ne(storageProviders.id, keepId), eq(storageProviders.enabled, true)));
}

export async function setEnabled(db: DbOrTx, churchId: string, id: string, enabled: boolean): Promise<void> {
  await db.update(storageProviders).set({ enabled, updatedAt: new Date() }).where(and(eq(storageProviders.churchId, churchId), eq(storageProviders.id, id)));
}

export async function deleteProvider(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(storageProviders).where(and(eq(storageProviders.churchId, churchId), eq(storageProviders.id, id)));
}

/** How many of the church's files live in a provider's storage. */
export async function filesIn(db: DbOrTx, churchId: string, providerId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(files).where(and(eq(files.churchId, churchId), eq(files.providerId, providerId)));
  return row?.n ?? 0;
}

/** Bytes of the church's stored files (not the direct uploads still waiting). */
export async function usedBytes(db: DbOrTx, churchId: string): Promise<number> {
  const [row] = await db.select({ n: sql<string>`coalesce(sum(${files.size}), 0)::text` }).from(files).where(and(eq(files.churchId, churchId), eq(files.uploaded, true)));
  return Number(row?.n ?? 0);
}
