import { and, asc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { settings } from '../../db/website';

export type SettingRow = typeof settings.$inferSelect;

/** The church's own settings (`userId` null) or one user's. */
const scope = (churchId: string, userId: string | null) => and(eq(settings.churchId, churchId), userId ? eq(settings.userId, userId) : isNull(settings.userId));

/** The church's settings (`userId` null) or a user's, by key name. */
export const settingsOf = (db: DbOrTx, churchId: string, userId: string | null): Promise<SettingRow[]> =>
  db.select().from(settings).where(scope(churchId, userId)).orderBy(asc(settings.keyName));

/** The church's public settings as key and value. */
export const publicSettings = (db: DbOrTx, churchId: string) =>
  db.select({ keyName: settings.keyName, value: settings.value }).from(settings).where(and(scope(churchId, null), eq(settings.public, true)));

/** A setting of the church's (`userId` null) or a user's, by id or by key name. */
export async function findSetting(db: DbOrTx, churchId: string, userId: string | null, by: { id: string } | { keyName: string }): Promise<SettingRow | undefined> {
  const [row] = await db
    .select()
    .from(settings)
    .where(and(scope(churchId, userId), 'id' in by ? eq(settings.id, by.id) : eq(settings.keyName, by.keyName)));
  return row;
}

/** Deletes one of a user's settings; false when the user has none with that id. */
export async function deleteUserSetting(db: DbOrTx, churchId: string, userId: string, id: string): Promise<boolean> {
  const gone = await db.delete(settings).where(and(scope(churchId, userId), eq(settings.id, id))).returning({ id: settings.id });
  return gone.length > 0;
}
