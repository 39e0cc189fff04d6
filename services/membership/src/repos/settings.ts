import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { notFound } from '@church/common';
import { settings } from '../db/schema';

export type SettingRow = typeof settings.$inferSelect;

export function listSettings(db: DbOrTx, churchId: string, onlyPublic = false): Promise<SettingRow[]> {
  return db
    .select()
    .from(settings)
    .where(and(eq(settings.churchId, churchId), onlyPublic ? eq(settings.public, true) : undefined))
    .orderBy(asc(settings.keyName));
}

/**
 * Saves one setting: by id when given (404 for another church's), otherwise by keyName, inserting or
 * updating the church's row for that key (settings_church_key_uq).
 */
export async function upsertSetting(
  db: DbOrTx,
  churchId: string,
  s: { id?: string; keyName: string; value: string | null; public?: boolean },
  newId: string,
): Promise<SettingRow> {
  if (s.id) {
    const [row] = await db
      .update(settings)
      .set({ keyName: s.keyName, value: s.value, ...(s.public !== undefined ? { public: s.public } : {}), updatedAt: new Date() })
      .where(and(eq(settings.churchId, churchId), eq(settings.id, s.id)))
      .returning();
    if (!row) throw notFound('Setting');
    return row;
  }
  const [row] = await db
    .insert(settings)
    .values({ id: newId, churchId, keyName: s.keyName, value: s.value, public: s.public ?? false })
    .onConflictDoUpdate({
      target: [settings.churchId, settings.keyName],
      set: { value: s.value, ...(s.public !== undefined ? { public: s.public } : {}), updatedAt: sql`now()` },
    })
    .returning();
  return row!;
}

/** One setting of the church by key name. */
export async function findSetting(db: DbOrTx, churchId: string, keyName: string): Promise<SettingRow | undefined> {
  const [row] = await db.select().from(settings).where(and(eq(settings.churchId, churchId), eq(settings.keyName, keyName))).limit(1);
  return row;
}

/** Deletes a setting of the church; false when it has none with that id. */
export async function deleteSetting(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const rows = await db.delete(settings).where(and(eq(settings.churchId, churchId), eq(settings.id, id))).returning({ id: settings.id });
  return rows.length > 0;
}
