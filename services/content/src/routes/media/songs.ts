import type { FastifyInstance } from 'fastify';
import { and, asc, eq, ilike, inArray, or } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, crud, getRow, listRows, type ZodTypeProvider } from '@church/common';
import { arrangementKeys, arrangements, songDetails, songs } from '../../db/media';
import { deleteSong } from '../../repos/media/songs';
import { findOrCreateDetail } from '../../repos/media/song-details';
import { Song, SongSave } from './schemas';

const ImportItem = z.object({
  /** the presentation app's own id of the song */
  presenterAppId: z.string().trim().min(1, 'is required').max(200),
  title: z.string().trim().min(1, 'is required').max(500),
  artist: z.string().trim().max(500).nullish(),
  lyrics: z.string().max(100_000).nullish(),
  keySignature: z.string().trim().max(20).nullish(),
  bpm: z.coerce.number().int().min(0).max(1000).nullish(),
  seconds: z.coerce.number().int().min(0).max(100_000).nullish(),
  arrangementName: z.string().trim().max(200).nullish(),
});
const ImportResult = z.object({ presenterAppId: z.string(), songId: z.string(), arrangementId: z.string(), songDetailId: z.string(), created: z.boolean() });
const edit = requires('Content.Edit');

/** `/content/songs`: a church's songs; search and the presentation-app import. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/songs/search', { config: { access: anyUser }, schema: { querystring: z.object({ q: z.string().trim().min(1, 'is required').max(200) }) } }, async (req) => {
    const churchId = req.auth.churchId;
    const pattern = `%${req.query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await app.db
      .select({ song: songs, arrangement: arrangements, detail: songDetails })
      .from(songs)
      .leftJoin(arrangements, and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songs.id)))
      .leftJoin(songDetails, eq(songDetails.id, arrangements.songDetailId))
      .where(and(eq(songs.churchId, churchId), or(ilike(songs.name, pattern), ilike(songDetails.title, pattern), ilike(songDetails.artist, pattern))))
      .orderBy(asc(songs.name))
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
  });

  app.post('/content/songs/import', { config: { access: anyUser }, schema: { body: z.array(ImportItem).min(1).max(2000), response: { 200: z.array(ImportResult) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const by = `${req.auth.id}@${churchId}`;
    return app.db.transaction(async (tx) => {
      const known = await tx
        .select()
        .from(arrangements)
        .where(and(eq(arrangements.churchId, churchId), inArray(arrangements.presenterAppId, req.body.map((i) => i.presenterAppId))));
      const byId = new Map(known.map((a) => [a.presenterAppId, a]));
      const out = [];
      for (const item of req.body) {
        const existing = byId.get(item.presenterAppId);
        if (existing) {
          if (item.lyrics !== undefined) await tx.update(arrangements).set({ lyrics: item.lyrics, updatedAt: new Date() }).where(eq(arrangements.id, existing.id));
          out.push({ presenterAppId: item.presenterAppId, songId: existing.songId, arrangementId: existing.id, songDetailId: existing.songDetailId ?? '', created: false });
          continue;
        }
        const detail = await findOrCreateDetail(tx, churchId, item, by);
        const [song] = await tx.insert(songs).values({ id: crypto.randomUUID(), churchId, name: item.title }).returning();
        const [arrangement] = await tx
          .insert(arrangements)
          .values({ id: crypto.randomUUID(), churchId, songId: song!.id, songDetailId: detail.id, name: item.arrangementName ?? 'Default', lyrics: item.lyrics ?? null, presenterAppId: item.presenterAppId })
          .returning();
        if (item.keySignature) await tx.insert(arrangementKeys).values({ id: crypto.randomUUID(), churchId, arrangementId: arrangement!.id, keySignature: item.keySignature, shortDescription: 'Default' });
        byId.set(item.presenterAppId, arrangement!);
        out.push({ presenterAppId: item.presenterAppId, songId: song!.id, arrangementId: arrangement!.id, songDetailId: detail.id, created: true });
      }
      return out;
    });
  });

  app.get('/content/songs/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Song } } }, async (req) => getRow(app.db, songs, req.auth.churchId, req.params.id, 'Song') as never);
  app.get('/content/songs', { config: { access: edit }, schema: { response: { 200: z.array(Song) } } }, async (req) => listRows(app.db, songs, req.auth.churchId, { orderBy: asc(songs.name) }) as never);
  crud(app, { path: '/content/songs', table: songs, item: Song, save: SongSave, view: edit, edit, only: ['save'] });
  app.delete('/content/songs/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await getRow(app.db, songs, req.auth.churchId, req.params.id, 'Song');
    await app.db.transaction((tx) => deleteSong(tx, req.auth.churchId, req.params.id));
    return {};
  });
}
