import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { IdParams, batchOf, notFound, type ZodTypeProvider } from '@church/common';
import { arrangements, songDetails } from '../../db/media';
import { mediaDeps } from '../../domain/media/deps';
import { SongDetail, SongDetailSave } from './schemas';

/** `/content/songDetails`: global song details (shared by every church; any signed-in user may edit). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/songDetails/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: SongDetail } } }, async (req) => {
    const [row] = await app.db.select().from(songDetails).where(eq(songDetails.id, req.params.id));
    if (!row) throw notFound('Song detail');
    return row;
  });

  app.get('/content/songDetails', { config: { access: anyUser }, schema: { response: { 200: z.array(SongDetail) } } }, async (req) => {
    const used = app.db.select({ id: arrangements.songDetailId }).from(arrangements).where(eq(arrangements.churchId, req.auth.churchId));
    return app.db.select().from(songDetails).where(inArray(songDetails.id, used)).orderBy(asc(songDetails.title));
  });

  app.post(
    '/content/songDetails/create',
    { config: { access: anyUser }, schema: { body: z.object({ sheetMusicId: z.string().trim().min(1, 'is required').max(100) }), response: { 200: SongDetail } } },
    async (req) => {
      const id = req.body.sheetMusicId;
      const [existing] = await app.db.select().from(songDetails).where(eq(songDetails.sheetMusicId, id));
      if (existing) return existing;
      const song = await mediaDeps(app).providers.sheetMusic.song(id);
      if (!song) throw notFound('Song at the sheet-music provider');
      const by = `${req.auth.id}@${req.auth.churchId}`;
      const releaseDate = song.releaseDate && !Number.isNaN(Date.parse(song.releaseDate)) ? new Date(song.releaseDate) : null;
      const [row] = await app.db
        .insert(songDetails)
        .values({ id: randomUUID(), sheetMusicId: id, title: song.title, artist: song.artist, album: song.album, thumbnail: song.thumbnail, bpm: song.bpm, keySignature: song.keySignature, meter: song.meter, seconds: song.seconds, releaseDate, createdBy: by, updatedBy: by })
        .onConflictDoNothing()
        .returning();
      if (row) return row;
      const [raced] = await app.db.select().from(songDetails).where(eq(songDetails.sheetMusicId, id));
      return raced!;
    },
  );

  app.post('/content/songDetails', { config: { access: anyUser }, schema: { body: batchOf(SongDetailSave), response: { 200: z.array(SongDetail) } } }, async (req) => {
    const by = `${req.auth.id}@${req.auth.churchId}`;
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const { id, ...fields } of req.body) {
        if (id) {
          const [row] = await tx.update(songDetails).set({ ...fields, updatedBy: by, updatedAt: new Date() }).where(eq(songDetails.id, id)).returning();
          if (!row) throw notFound('Song detail');
          out.push(row);
        } else {
          const [row] = await tx.insert(songDetails).values({ ...fields, id: randomUUID(), createdBy: by, updatedBy: by }).returning();
          out.push(row!);
        }
      }
      return out;
    });
  });
}
