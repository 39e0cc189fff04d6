import type { FastifyInstance } from 'fastify';
import { anyUser, isServerAdmin } from '@church/auth';
import { IdParams, batchOf, notFound, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { detailsInUse, forkDetail, globalDetailOf, insertDetail, updateDetail, visibleDetail, withProviderId } from '../../repos/media/song-details';
import { SheetMusicCreateBody, SongDetail, SongDetails, SongDetailSave, SongLibrary } from '../../schemas/media-songs';

const base = '/content/songDetails';

/**
 * `/content/songDetails`: song details, global (the sheet-music provider's, changed only by its import or a
 * server admin) or a church's own (its entries and its edits of global rows, which no other church sees).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: SongDetail } } }, async (req) => {
    const row = await visibleDetail(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Song detail');
    return withProviderId(row);
  });

  app.get(base, { config: { access: anyUser }, schema: { response: { 200: SongLibrary } } }, async (req) => (await detailsInUse(app.db, req.auth.churchId)).map(withProviderId));

  // The provider import: a global row per provider song, created once (the first church to pick the song).
  app.post(
    `${base}/create`,
    { config: { access: anyUser }, schema: { body: SheetMusicCreateBody, response: { 200: SongDetail } } },
    async (req) => {
      const id = req.body.sheetMusicId;
      const existing = await globalDetailOf(app.db, id);
      if (existing) return withProviderId(existing);
      const song = await contentDeps(app).providers.sheetMusic.song(id);
      if (!song) throw notFound('Song at the sheet-music provider');
      const by = `${req.auth.id}@${req.auth.churchId}`;
      const releaseDate = song.releaseDate && !Number.isNaN(Date.parse(song.releaseDate)) ? new Date(song.releaseDate) : null;
      const fields = { sheetMusicId: id, title: song.title, artist: song.artist, album: song.album, thumbnail: song.thumbnail, bpm: song.bpm, keySignature: song.keySignature, meter: song.meter, seconds: song.seconds, releaseDate };
      return withProviderId((await insertDetail(app.db, null, { ...fields, createdBy: by, updatedBy: by })) ?? (await globalDetailOf(app.db, id))!);
    },
  );

  // A new row is the church's own. A change of a global row by anyone but a server admin becomes the church's
  // own copy (its arrangements follow it); another church's row is a 404.
  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SongDetailSave), response: { 200: SongDetails } } }, async (req) => {
    const by = `${req.auth.id}@${req.auth.churchId}`;
    const churchId = req.auth.churchId;
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const { id, ...fields } of req.body) {
        if (!id) {
          out.push((await insertDetail(tx, churchId, { ...fields, createdBy: by, updatedBy: by }))!);
          continue;
        }
        const row = await visibleDetail(tx, churchId, id);
        if (!row) throw notFound('Song detail');
        if (row.churchId || isServerAdmin(req.auth)) out.push(await updateDetail(tx, id, { ...fields, updatedBy: by }));
        else out.push(await forkDetail(tx, churchId, row, { ...fields, createdBy: by, updatedBy: by }));
      }
      return out.map(withProviderId);
    });
  });
}
