import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { playlists, sermons } from '../../db/media';

export type SermonRow = typeof sermons.$inferSelect;

/** Sermons of the church that the public sees: those not in a private playlist, published by `at` (now). */
export async function publicSermons(db: DbOrTx, churchId: string, at = new Date()): Promise<SermonRow[]> {
  const rows = await db
    .select({ s: sermons })
    .from(sermons)
    .leftJoin(playlists, and(eq(playlists.id, sermons.playlistId), eq(playlists.churchId, churchId)))
    .where(and(eq(sermons.churchId, churchId), or(isNull(playlists.id), eq(playlists.isPublic, true)), or(isNull(sermons.publishDate), lte(sermons.publishDate, at))))
    .orderBy(desc(sermons.publishDate));
  return rows.map((r) => r.s);
}

/** The church's public playlists, newest first. */
export const publicPlaylists = (db: DbOrTx, churchId: string) => listRows(db, playlists, churchId, { where: eq(playlists.isPublic, true), orderBy: desc(playlists.publishDate) });

/** Publish times (epoch ms, rounded up) of the church's sermons scheduled after `after`, earliest first. */
export async function scheduledSermons(db: DbOrTx, churchId: string, after: Date): Promise<number[]> {
  // epoch milliseconds as text: a timestamp's microseconds would be lost in a JS Date, and the step must not
  // come before the sermon's real time
  const rows = await db
    .select({ at: sql<string>`ceil(extract(epoch from ${sermons.publishDate}) * 1000)::text` })
    .from(sermons)
    .where(and(eq(sermons.churchId, churchId), gt(sermons.publishDate, after)))
    .orderBy(asc(sermons.publishDate));
  return rows.map((r) => Number(r.at));
}

/** The church's sermons among `ids`, newest first. */
export const sermonsByIds = (db: DbOrTx, churchId: string, ids: string[]) => listRows(db, sermons, churchId, { where: inArray(sermons.id, ids), orderBy: desc(sermons.publishDate) });

/** The video ids the church already has sermons of, for a host (its spec name and its own name). */
export async function knownVideoIds(db: DbOrTx, churchId: string, names: string[]): Promise<Set<string | null>> {
  const rows = await db
    .select({ videoData: sermons.videoData })
    .from(sermons)
    .where(and(eq(sermons.churchId, churchId), inArray(sql`lower(${sermons.videoType})`, names.map((n) => n.toLowerCase()))));
  return new Set(rows.map((r) => r.videoData));
}

/** The list order of `GET /content/sermons`. */
export const sermonOrder = [desc(sermons.publishDate), sermons.title];

/** The list order of `GET /content/playlists`: newest first, then by title. */
export const newestPlaylistsFirst = [desc(playlists.publishDate), playlists.title];

/** The sermons of a (deleted) playlist leave it. */
export async function detachSermons(db: DbOrTx, churchId: string, playlistId: string): Promise<void> {
  await db.update(sermons).set({ playlistId: null }).where(and(eq(sermons.churchId, churchId), eq(sermons.playlistId, playlistId)));
}

/** The church's newest `count` sermons, scheduled ones included. */
export const newestSermons = async (db: DbOrTx, churchId: string, count: number) => (await listRows(db, sermons, churchId, { orderBy: desc(sermons.publishDate) })).slice(0, count);
