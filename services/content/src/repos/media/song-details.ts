import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNotNull, isNull, or } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { arrangements, songDetailLinks, songDetails } from '../../db/media';

export type SongDetailRow = typeof songDetails.$inferSelect;
export type SongDetailLinkRow = typeof songDetailLinks.$inferSelect;
type DetailFields = Omit<Partial<typeof songDetails.$inferInsert>, 'id' | 'churchId'>;
type LinkFields = Omit<Partial<typeof songDetailLinks.$inferInsert>, 'id' | 'churchId'>;

/**
 * A detail as the apps read it: the provider's id also as `praiseChartsId`, the name B1Admin's and B1App's song
 * screens read (links to the provider, lyrics import, charts).
 */
export const withProviderId = <T extends { sheetMusicId: string | null }>(row: T): T & { praiseChartsId: string | null } => ({ ...row, praiseChartsId: row.sheetMusicId });

/** Rows a church sees: the global ones (no church) and its own. */
const seenBy = (column: typeof songDetails.churchId | typeof songDetailLinks.churchId, churchId: string) => or(isNull(column), eq(column, churchId));

/** A song detail the church sees (global or its own), or undefined. */
export async function visibleDetail(db: DbOrTx, churchId: string, id: string): Promise<SongDetailRow | undefined> {
  const [row] = await db.select().from(songDetails).where(and(eq(songDetails.id, id), seenBy(songDetails.churchId, churchId)));
  return row;
}

/**
 * The church's song library: one row per song that has an arrangement with a detail, the detail of its first
 * such arrangement (by name, then id: the one the song's page shows) with the song's id as `songId` (where the
 * staff app's library links to), by title and artist.
 */
export async function detailsInUse(db: DbOrTx, churchId: string): Promise<Array<SongDetailRow & { songId: string }>> {
  const firsts = db
    .selectDistinctOn([arrangements.songId], { songId: arrangements.songId, songDetailId: arrangements.songDetailId })
    .from(arrangements)
    .where(and(eq(arrangements.churchId, churchId), isNotNull(arrangements.songDetailId)))
    .orderBy(arrangements.songId, asc(arrangements.name), asc(arrangements.id))
    .as('firsts');
  const rows = await db
    .select({ detail: songDetails, songId: firsts.songId })
    .from(firsts)
    .innerJoin(songDetails, and(eq(songDetails.id, firsts.songDetailId), seenBy(songDetails.churchId, churchId)))
    .orderBy(asc(songDetails.title), asc(songDetails.artist), asc(firsts.songId));
  return rows.map((r) => ({ ...r.detail, songId: r.songId }));
}

/** The global detail of a provider song. */
export async function globalDetailOf(db: DbOrTx, sheetMusicId: string): Promise<SongDetailRow | undefined> {
  const [row] = await db.select().from(songDetails).where(and(eq(songDetails.sheetMusicId, sheetMusicId), isNull(songDetails.churchId)));
  return row;
}

/** Inserts a detail: `churchId` null for a global row (provider import, server admin). Answers undefined on a provider-id clash. */
export async function insertDetail(db: DbOrTx, churchId: string | null, fields: DetailFields): Promise<SongDetailRow | undefined> {
  const [row] = await db
    .insert(songDetails)
    .values({ ...fields, id: randomUUID(), churchId })
    .onConflictDoNothing()
    .returning();
  return row;
}

export async function updateDetail(db: DbOrTx, id: string, fields: DetailFields): Promise<SongDetailRow> {
  const [row] = await db
    .update(songDetails)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(songDetails.id, id))
    .returning();
  return row!;
}

/**
 * A church's edit of a global detail: its own copy with the changes (and copies of the global links), and its
 * arrangements moved from the global row to the copy. The global row is not changed.
 */
export async function forkDetail(tx: DbOrTx, churchId: string, global: SongDetailRow, fields: DetailFields): Promise<SongDetailRow> {
  const { id: _id, churchId: _c, createdAt: _ca, updatedAt: _ua, ...base } = global;
  const [copy] = await tx
    .insert(songDetails)
    .values({ ...base, ...fields, id: randomUUID(), churchId })
    .returning();
  const links = await tx.select().from(songDetailLinks).where(and(eq(songDetailLinks.songDetailId, global.id), seenBy(songDetailLinks.churchId, churchId)));
  for (const { id: _l, createdAt: _lc, updatedAt: _lu, ...link } of links) {
    await tx.insert(songDetailLinks).values({ ...link, id: randomUUID(), churchId, songDetailId: copy!.id });
  }
  // the church's own links of the global row now belong to its copy only
  await tx.delete(songDetailLinks).where(and(eq(songDetailLinks.songDetailId, global.id), eq(songDetailLinks.churchId, churchId)));
  await tx
    .update(arrangements)
    .set({ songDetailId: copy!.id, updatedAt: new Date() })
    .where(and(eq(arrangements.churchId, churchId), eq(arrangements.songDetailId, global.id)));
  return copy!;
}

/** The church's own detail with this title (and artist), else the global one; a new church row when neither exists. */
export async function findOrCreateDetail(tx: DbOrTx, churchId: string, fields: { title: string; artist?: string | null; keySignature?: string | null; bpm?: number | null; seconds?: number | null }, by: string) {
  const [existing] = await tx
    .select()
    .from(songDetails)
    .where(and(eq(songDetails.title, fields.title), fields.artist ? eq(songDetails.artist, fields.artist) : undefined, seenBy(songDetails.churchId, churchId)))
    // nulls sort last: the church's own row wins over a global one
    .orderBy(asc(songDetails.churchId))
    .limit(1);
  if (existing) return existing;
  const [row] = await tx
    .insert(songDetails)
    .values({ id: randomUUID(), churchId, title: fields.title, artist: fields.artist ?? null, keySignature: fields.keySignature ?? null, bpm: fields.bpm ?? null, seconds: fields.seconds ?? null, createdBy: by, updatedBy: by })
    .returning();
  return row!;
}

/** A link the church sees (global or its own). */
export async function visibleLink(db: DbOrTx, churchId: string, id: string): Promise<SongDetailLinkRow | undefined> {
  const [row] = await db.select().from(songDetailLinks).where(and(eq(songDetailLinks.id, id), seenBy(songDetailLinks.churchId, churchId)));
  return row;
}

/** The links of a detail the church sees, by service. */
export const linksOf = (db: DbOrTx, churchId: string, songDetailId: string) =>
  db
    .select()
    .from(songDetailLinks)
    .where(and(eq(songDetailLinks.songDetailId, songDetailId), seenBy(songDetailLinks.churchId, churchId)))
    .orderBy(asc(songDetailLinks.service));

export async function insertLink(db: DbOrTx, churchId: string | null, fields: LinkFields & { songDetailId: string; service: string }): Promise<SongDetailLinkRow> {
  const [row] = await db
    .insert(songDetailLinks)
    .values({ ...fields, id: randomUUID(), churchId })
    .returning();
  return row!;
}

export async function updateLink(db: DbOrTx, id: string, fields: LinkFields): Promise<SongDetailLinkRow> {
  const [row] = await db
    .update(songDetailLinks)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(songDetailLinks.id, id))
    .returning();
  return row!;
}

export async function deleteLink(db: DbOrTx, id: string): Promise<void> {
  await db.delete(songDetailLinks).where(eq(songDetailLinks.id, id));
}
