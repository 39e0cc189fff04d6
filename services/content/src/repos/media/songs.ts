import { randomUUID } from 'node:crypto';
import { and, asc, eq, ilike, inArray, or } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { arrangementKeys, arrangements, songDetails, songs } from '../../db/media';
import { findOrCreateDetail } from './song-details';

/** Deletes an arrangement with its keys, then its song when no arrangement of it remains. */
export async function deleteArrangement(tx: DbOrTx, churchId: string, arrangement: { id: string; songId: string }): Promise<{ songDeleted: boolean }> {
  await tx.delete(arrangementKeys).where(and(eq(arrangementKeys.churchId, churchId), eq(arrangementKeys.arrangementId, arrangement.id)));
  await tx.delete(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.id, arrangement.id)));
  const [left] = await tx.select({ id: arrangements.id }).from(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, arrangement.songId))).limit(1);
  if (left) return { songDeleted: false };
  await tx.delete(songs).where(and(eq(songs.churchId, churchId), eq(songs.id, arrangement.songId)));
  return { songDeleted: true };
}

/** Deletes a song with its arrangements and their keys. */
export async function deleteSong(tx: DbOrTx, churchId: string, songId: string): Promise<void> {
  const arr = await tx.select({ id: arrangements.id }).from(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songId)));
  if (arr.length) await tx.delete(arrangementKeys).where(and(eq(arrangementKeys.churchId, churchId), inArray(arrangementKeys.arrangementId, arr.map((a) => a.id))));
  await tx.delete(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songId)));
  await tx.delete(songs).where(and(eq(songs.churchId, churchId), eq(songs.id, songId)));
}

/** Songs, arrangements and their keys are listed by name (keys by key signature); arrangements of one name by id. */
export const songsByName = asc(songs.name);
export const arrangementsByName = [asc(arrangements.name), asc(arrangements.id)];
export const keysBySignature = asc(arrangementKeys.keySignature);

/** The church's songs by name. */
export const songsOf = (db: DbOrTx, churchId: string) => listRows(db, songs, churchId, { orderBy: songsByName });

/** The church's arrangements of a song, or of a song detail, by name. */
export const arrangementsOf = (db: DbOrTx, churchId: string, of: { songId: string } | { songDetailId: string }) =>
  listRows(db, arrangements, churchId, { where: 'songId' in of ? eq(arrangements.songId, of.songId) : eq(arrangements.songDetailId, of.songDetailId), orderBy: arrangementsByName });

/** The keys of an arrangement of the church, by key signature. */
export const keysOf = (db: DbOrTx, churchId: string, arrangementId: string) => listRows(db, arrangementKeys, churchId, { where: eq(arrangementKeys.arrangementId, arrangementId), orderBy: keysBySignature });

/** An arrangement key of the church with its arrangement, song and song detail (when it has one). */
export async function keyWithSong(db: DbOrTx, churchId: string, id: string) {
  const [row] = await db
    .select({ arrangementKey: arrangementKeys, arrangement: arrangements, song: songs, songDetail: songDetails })
    .from(arrangementKeys)
    .innerJoin(arrangements, and(eq(arrangements.id, arrangementKeys.arrangementId), eq(arrangements.churchId, churchId)))
    .innerJoin(songs, and(eq(songs.id, arrangements.songId), eq(songs.churchId, churchId)))
    .leftJoin(songDetails, eq(songDetails.id, arrangements.songDetailId))
    .where(and(eq(arrangementKeys.churchId, churchId), eq(arrangementKeys.id, id)));
  return row;
}

/** Of these presentation-app ids, those the church's arrangements have. */
export async function presentPresenterIds(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string | null>> {
  const rows = await db
    .select({ id: arrangements.presenterAppId })
    .from(arrangements)
    .where(and(eq(arrangements.churchId, churchId), inArray(arrangements.presenterAppId, ids)));
  return new Set(rows.map((r) => r.id));
}

/**
 * Songs of the church whose name, or whose arrangements' detail title or artist, holds `q` (case-insensitive,
 * taken literally): a row per arrangement (one with nulls for a song without any), by name, at most 200.
 */
export async function searchSongs(db: DbOrTx, churchId: string, q: string) {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .select({ song: songs, arrangement: arrangements, detail: songDetails })
    .from(songs)
    .leftJoin(arrangements, and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songs.id)))
    .leftJoin(songDetails, eq(songDetails.id, arrangements.songDetailId))
    .where(and(eq(songs.churchId, churchId), or(ilike(songs.name, pattern), ilike(songDetails.title, pattern), ilike(songDetails.artist, pattern))))
    .orderBy(songsByName)
    .limit(200);
  return rows.map((r) => ({
    id: r.song.id,
    name: r.song.name,
    dateAdded: r.song.dateAdded,
    arrangementId: r.arrangement?.id ?? null,
    arrangementName: r.arrangement?.name ?? null,
    songDetailId: r.detail?.id ?? null,
    title: r.detail?.title ?? r.song.name,
    artist: r.detail?.artist ?? null,
    thumbnail: r.detail?.thumbnail ?? null,
  }));
}

export interface SongImport {
  presenterAppId: string;
  title: string;
  artist?: string | null;
  lyrics?: string | null;
  keySignature?: string | null;
  bpm?: number | null;
  seconds?: number | null;
  arrangementName?: string | null;
}

/**
 * The presentation-app import: an item whose id an arrangement of the church already has updates its lyrics
 * (when sent); any other becomes a song with an arrangement (and its key, when sent) on the church's or the
 * global detail of that title and artist, or a new detail of the church.
 */
export async function importSongs(tx: DbOrTx, churchId: string, items: SongImport[], by: string) {
  const known = await tx
    .select()
    .from(arrangements)
    .where(and(eq(arrangements.churchId, churchId), inArray(arrangements.presenterAppId, items.map((i) => i.presenterAppId))));
  const byId = new Map(known.map((a) => [a.presenterAppId, a]));
  const out = [];
  for (const item of items) {
    const existing = byId.get(item.presenterAppId);
    if (existing) {
      if (item.lyrics !== undefined) await tx.update(arrangements).set({ lyrics: item.lyrics, updatedAt: new Date() }).where(eq(arrangements.id, existing.id));
      out.push({ presenterAppId: item.presenterAppId, songId: existing.songId, arrangementId: existing.id, songDetailId: existing.songDetailId ?? '', created: false });
      continue;
    }
    const detail = await findOrCreateDetail(tx, churchId, item, by);
    const [song] = await tx.insert(songs).values({ id: randomUUID(), churchId, name: item.title }).returning();
    const [arrangement] = await tx
      .insert(arrangements)
      .values({ id: randomUUID(), churchId, songId: song!.id, songDetailId: detail.id, name: item.arrangementName ?? 'Default', lyrics: item.lyrics ?? null, presenterAppId: item.presenterAppId })
      .returning();
    if (item.keySignature) await tx.insert(arrangementKeys).values({ id: randomUUID(), churchId, arrangementId: arrangement!.id, keySignature: item.keySignature, shortDescription: 'Default' });
    byId.set(item.presenterAppId, arrangement!);
    out.push({ presenterAppId: item.presenterAppId, songId: song!.id, arrangementId: arrangement!.id, songDetailId: detail.id, created: true });
  }
  return out;
}
