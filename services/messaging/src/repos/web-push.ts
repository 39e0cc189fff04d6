import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { webPushSubscriptions } from '../db/schema';

export type WebPushSubscriptionRow = typeof webPushSubscriptions.$inferSelect;

export interface NewWebPushSubscription {
  churchId: string;
  personId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  appName: string | null;
  deviceInfo: string | null;
}

/**
 * Saves a browser's subscription for the caller. One statement on the unique endpoint: a browser enrolled again
 * (new keys, another login, another church's) moves to this login and keeps its first registration date, and two
 * enrolments of one browser at once never make two rows.
 */
export async function saveSubscription(db: DbOrTx, values: NewWebPushSubscription): Promise<WebPushSubscriptionRow> {
  const { endpoint, ...rest } = values;
  const [row] = await db
    .insert(webPushSubscriptions)
    .values({ id: randomUUID(), endpoint, ...rest })
    // the database's clock (microseconds), as the insert's default: the newest enrolment is the last one made
    .onConflictDoUpdate({ target: webPushSubscriptions.endpoint, set: { ...rest, lastActiveDate: sql`now()` } })
    .returning();
  return row!;
}

/** Keeps the person's `keep` most recently enrolled browsers, removing older ones. */
export async function trimSubscriptions(db: DbOrTx, churchId: string, personId: string, keep: number): Promise<void> {
  const stale = await db
    .select({ id: webPushSubscriptions.id })
    .from(webPushSubscriptions)
    .where(and(eq(webPushSubscriptions.churchId, churchId), eq(webPushSubscriptions.personId, personId)))
    .orderBy(desc(webPushSubscriptions.lastActiveDate), desc(webPushSubscriptions.id))
    .offset(keep);
  if (stale.length) await db.delete(webPushSubscriptions).where(inArray(webPushSubscriptions.id, stale.map((s) => s.id)));
}

/** Removes the church's subscription with this endpoint; answers how many rows went (0 or 1). */
export async function removeByEndpoint(db: DbOrTx, churchId: string, endpoint: string): Promise<number> {
  const gone = await db
    .delete(webPushSubscriptions)
    .where(and(eq(webPushSubscriptions.churchId, churchId), eq(webPushSubscriptions.endpoint, endpoint)))
    .returning({ id: webPushSubscriptions.id });
  return gone.length;
}

/** A subscription the push service reports gone (404/410). */
export async function removeSubscription(db: DbOrTx, id: string): Promise<void> {
  await db.delete(webPushSubscriptions).where(eq(webPushSubscriptions.id, id));
}

/** The person's browsers, oldest first. */
export async function subscriptionsOf(db: DbOrTx, churchId: string, personId: string): Promise<WebPushSubscriptionRow[]> {
  return db
    .select()
    .from(webPushSubscriptions)
    .where(and(eq(webPushSubscriptions.churchId, churchId), eq(webPushSubscriptions.personId, personId)))
    .orderBy(asc(webPushSubscriptions.registrationDate));
}
