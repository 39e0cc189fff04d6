import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { prepared, type DbOrTx } from '@church/common';
import { notificationPreferences, notifications, privateMessages } from '../db/schema';

export type NotificationRow = typeof notifications.$inferSelect;
export type PreferencesRow = typeof notificationPreferences.$inferSelect;

export interface NewNotification {
  churchId: string;
  personId: string;
  message: string;
  contentType?: string | null;
  contentId?: string | null;
  link?: string | null;
  triggeredByPersonId?: string | null;
  deliveryMethod?: string | null;
}

/** Writes notifications (one row each) and answers them. */
export async function insertNotifications(db: DbOrTx, rows: NewNotification[]): Promise<NotificationRow[]> {
  if (!rows.length) return [];
  return db
    .insert(notifications)
    .values(
      rows.map((r) => ({
        id: randomUUID(),
        churchId: r.churchId,
        personId: r.personId,
        contentType: r.contentType ?? null,
        contentId: r.contentId ?? null,
        message: r.message,
        link: r.link ?? null,
        triggeredByPersonId: r.triggeredByPersonId ?? null,
        deliveryMethod: r.deliveryMethod ?? null,
      })),
    )
    .returning();
}

export async function notificationsByIds(db: DbOrTx, churchId: string, ids: string[]): Promise<NotificationRow[]> {
  if (!ids.length) return [];
  return db.select().from(notifications).where(and(eq(notifications.churchId, churchId), inArray(notifications.id, ids)));
}

export async function findNotification(db: DbOrTx, churchId: string, id: string): Promise<NotificationRow | undefined> {
  const [row] = await db.select().from(notifications).where(and(eq(notifications.churchId, churchId), eq(notifications.id, id)));
  return row;
}

/** A person's notifications, newest first. */
export async function notificationsOf(db: DbOrTx, churchId: string, personId: string, limit = 500): Promise<NotificationRow[]> {
  return db
    .select()
    .from(notifications)
    .where(and(eq(notifications.churchId, churchId), eq(notifications.personId, personId)))
    .orderBy(desc(notifications.timeSent))
    .limit(limit);
}

/** Marks a person's unread notifications read (of one content type, or one content, when given); answers how many. */
export async function markRead(db: DbOrTx, churchId: string, personId: string, content?: { contentType: string; contentId?: string }): Promise<number> {
  const rows = await db
    .update(notifications)
    .set({ isNew: false })
    .where(
      and(
        eq(notifications.churchId, churchId),
        eq(notifications.personId, personId),
        eq(notifications.isNew, true),
        content ? eq(notifications.contentType, content.contentType) : undefined,
        content?.contentId ? eq(notifications.contentId, content.contentId) : undefined,
      ),
    )
    .returning({ id: notifications.id });
  return rows.length;
}

export async function updateNotification(db: DbOrTx, churchId: string, id: string, values: Partial<NewNotification> & { isNew?: boolean }): Promise<NotificationRow | undefined> {
  const [row] = await db.update(notifications).set(values).where(and(eq(notifications.churchId, churchId), eq(notifications.id, id))).returning();
  return row;
}

export async function deleteNotification(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(notifications).where(and(eq(notifications.churchId, churchId), eq(notifications.id, id)));
}

/** Removes every notification of a person; answers how many. */
export async function deleteNotificationsOf(db: DbOrTx, churchId: string, personId: string): Promise<number> {
  const rows = await db.delete(notifications).where(and(eq(notifications.churchId, churchId), eq(notifications.personId, personId))).returning({ id: notifications.id });
  return rows.length;
}

/** Marks notifications as carried by an email (the digest, or an email at once). */
export async function markEmailed(db: DbOrTx, ids: string[]): Promise<void> {
  if (ids.length) await db.update(notifications).set({ emailedAt: new Date() }).where(inArray(notifications.id, ids));
}

/** Unread notifications no email has carried yet, by church and person (the daily digest). */
export async function unreadNotEmailed(db: DbOrTx, limit: number): Promise<NotificationRow[]> {
  return db
    .select()
    .from(notifications)
    .where(and(eq(notifications.isNew, true), isNull(notifications.emailedAt)))
    .orderBy(asc(notifications.churchId), asc(notifications.personId), asc(notifications.timeSent))
    .limit(limit);
}

/**
 * A person's unread counts, asked on every page a member opens: `count` every unread notification, `notificationCount`
 * those that are not about a private message (those are counted as `pmCount`, the private conversations waiting for
 * the person). Rendered once; both counts read a partial index of what is unread (index-only: the notifications'
 * carries their content type), not every notification the person ever had. `is_new` is written as a literal so the
 * prepared statement's generic plan can still prove the partial index applies.
 */
const countUnread = prepared<{ count: number; notification_count: number; pm_count: number }>(sql`
  select count(*)::int as count,
         (count(*) filter (where ${notifications.contentType} is distinct from 'privateMessage'))::int as notification_count,
         (select count(*) from ${privateMessages}
           where ${privateMessages.churchId} = ${sql.placeholder('churchId')} and ${privateMessages.notifyPersonId} = ${sql.placeholder('personId')})::int as pm_count
    from ${notifications}
   where ${notifications.churchId} = ${sql.placeholder('churchId')} and ${notifications.personId} = ${sql.placeholder('personId')} and ${notifications.isNew}`);

export interface UnreadCounts {
  count: number;
  notificationCount: number;
  pmCount: number;
}

export async function unreadCounts(db: DbOrTx, churchId: string, personId: string): Promise<UnreadCounts> {
  const [row] = await countUnread(db, { churchId, personId });
  return { count: row?.count ?? 0, notificationCount: row?.notification_count ?? 0, pmCount: row?.pm_count ?? 0 };
}

export async function preferencesRows(db: DbOrTx, churchId: string, personIds: string[]): Promise<PreferencesRow[]> {
  if (!personIds.length) return [];
  return db.select().from(notificationPreferences).where(and(eq(notificationPreferences.churchId, churchId), inArray(notificationPreferences.personId, personIds)));
}

/** The person's preferences, written with the defaults first when there are none. */
export async function ensurePreferences(db: DbOrTx, churchId: string, personId: string, defaults: { allowPush: boolean; emailFrequency: string }): Promise<PreferencesRow> {
  await db.insert(notificationPreferences).values({ id: randomUUID(), churchId, personId, ...defaults }).onConflictDoNothing();
  const [row] = await db.select().from(notificationPreferences).where(and(eq(notificationPreferences.churchId, churchId), eq(notificationPreferences.personId, personId)));
  return row!;
}

export async function updatePreferences(db: DbOrTx, churchId: string, id: string, values: Partial<Omit<PreferencesRow, 'id' | 'churchId' | 'personId'>>): Promise<PreferencesRow> {
  const [row] = await db.update(notificationPreferences).set(values).where(and(eq(notificationPreferences.churchId, churchId), eq(notificationPreferences.id, id))).returning();
  return row!;
}
