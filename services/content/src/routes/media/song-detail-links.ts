import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { HttpError, IdParams, Id, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { songDetailLinks, songDetails } from '../../db/media';
import { mediaDeps } from '../../domain/media/deps';
import { SongDetailLink, SongDetailLinkSave } from './schemas';

/** Services whose key is a sheet-music provider id: linking one fills in the detail's missing metadata. */
const SHEET_MUSIC_SERVICES = new Set(['sheetmusicprovider', 'praisecharts']);

/** `/content/songDetailLinks`: a global song detail's links to outside services. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/songDetailLinks/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: SongDetailLink } } }, async (req) => {
    const [row] = await app.db.select().from(songDetailLinks).where(eq(songDetailLinks.id, req.params.id));
    if (!row) throw notFound('Song detail link');
    return row;
  });

  app.get('/content/songDetailLinks/songDetail/:songDetailId', { config: { access: anyUser }, schema: { params: z.object({ songDetailId: Id }), response: { 200: z.array(SongDetailLink) } } }, async (req) =>
    app.db.select().from(songDetailLinks).where(eq(songDetailLinks.songDetailId, req.params.songDetailId)).orderBy(asc(songDetailLinks.service)),
  );

  app.post('/content/songDetailLinks', { config: { access: anyUser }, schema: { body: batchOf(SongDetailLinkSave), response: { 200: z.array(SongDetailLink) } } }, async (req) => {
    const by = `${req.auth.id}@${req.auth.churchId}`;
    const saved = await app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, { id, ...fields }] of req.body.entries()) {
        const [detail] = await tx.select({ id: songDetails.id }).from(songDetails).where(eq(songDetails.id, fields.songDetailId));
        if (!detail) throw new HttpError(400, [{ msg: 'no such song detail', param: itemParam(req, i, 'songDetailId'), location: 'body' }]);
        if (id) {
          const [row] = await tx.update(songDetailLinks).set({ ...fields, updatedBy: by, updatedAt: new Date() }).where(eq(songDetailLinks.id, id)).returning();
          if (!row) throw notFound('Song detail link');
          out.push(row);
        } else {
          const [row] = await tx.insert(songDetailLinks).values({ ...fields, id: randomUUID(), createdBy: by, updatedBy: by }).returning();
          out.push(row!);
        }
      }
      return out;
    });
    // Metadata is fetched when a detail is linked to the sheet-music provider and the detail has none yet.
    for (const link of saved) {
      if (!link.serviceKey || !SHEET_MUSIC_SERVICES.has(link.service.toLowerCase())) continue;
      const [detail] = await app.db.select().from(songDetails).where(eq(songDetails.id, link.songDetailId));
      if (!detail || detail.sheetMusicId) continue;
      try {
        const song = await mediaDeps(app).providers.sheetMusic.song(link.serviceKey);
        if (!song) continue;
        await app.db
          .update(songDetails)
          .set({
            sheetMusicId: link.serviceKey,
            artist: detail.artist ?? song.artist,
            album: detail.album ?? song.album,
            thumbnail: detail.thumbnail ?? song.thumbnail,
            bpm: detail.bpm ?? song.bpm,
            keySignature: detail.keySignature ?? song.keySignature,
            meter: detail.meter ?? song.meter,
            seconds: detail.seconds ?? song.seconds,
            updatedAt: new Date(),
          })
          .where(eq(songDetails.id, detail.id));
      } catch (err) {
        req.log.warn({ err }, 'could not fetch song metadata for a new link');
      }
    }
    return saved;
  });

  app.delete('/content/songDetailLinks/:id', { config: { access: anyUser }, schema: { params: IdParams } }, async (req) => {
    const rows = await app.db.delete(songDetailLinks).where(eq(songDetailLinks.id, req.params.id)).returning({ id: songDetailLinks.id });
    if (!rows.length) throw notFound('Song detail link');
    return {};
  });
}
