import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { streamingServices } from '../../db/media';
import { links } from '../../db/website';

export type StreamingServiceRow = typeof streamingServices.$inferSelect;
export type StreamingLinkRow = typeof links.$inferSelect;

/** The church's streaming services, earliest first. */
export const servicesOf = (db: DbOrTx, churchId: string) => listRows(db, streamingServices, churchId, { orderBy: asc(streamingServices.serviceTime) });

/** The church's streaming tabs and links (the live page's), in their order. */
export const streamingLinks = (db: DbOrTx, churchId: string) =>
  db
    .select()
    .from(links)
    .where(and(eq(links.churchId, churchId), inArray(links.category, ['streamingTab', 'streamingLink'])))
    .orderBy(asc(links.sort));

/** Services over by `now`: their start, length and chat time after (seconds) have passed. */
const expiredBy = (now: Date) => sql`${streamingServices.serviceTime} + make_interval(secs => ${streamingServices.duration} + ${streamingServices.chatAfter}) < ${now}`;
const ofChurch = (churchId: string | null) => (churchId ? eq(streamingServices.churchId, churchId) : undefined);

/** Removes the one-time services over by `now`, of a church or (null) of every church. */
export async function removeExpiredOneTime(db: DbOrTx, churchId: string | null, now: Date): Promise<void> {
  await db.delete(streamingServices).where(and(ofChurch(churchId), eq(streamingServices.recurring, false), expiredBy(now)));
}

/** The recurring services over by `now`, of a church or (null) of every church. */
export const expiredRecurring = (db: DbOrTx, churchId: string | null, now: Date) =>
  db
    .select()
    .from(streamingServices)
    .where(and(ofChurch(churchId), eq(streamingServices.recurring, true), expiredBy(now)));

export async function moveService(db: DbOrTx, id: string, serviceTime: Date, now: Date): Promise<void> {
  await db.update(streamingServices).set({ serviceTime, updatedAt: now }).where(eq(streamingServices.id, id));
}
