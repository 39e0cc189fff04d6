import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anyUser, isServerAdmin } from '@church/auth';
import { Empty, HttpError, IdParams, batchOf, itemParam, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { deleteLink, insertLink, linksOf, updateDetail, updateLink, visibleDetail, visibleLink, type SongDetailLinkRow } from '../../repos/media/song-details';
import { SongDetailLink, SongDetailLinks, SongDetailLinkSave, SongDetailIdParams } from '../../schemas/media-songs';

const base = '/content/songDetailLinks';
/** Services whose key is a sheet-music provider id: linking one fills in the detail's missing metadata. */
const SHEET_MUSIC_SERVICES = new Set(['sheetmusicprovider', 'praisecharts']);

/** Whether the caller may change a link it sees: its church's own, or any global one as a server admin. */
const mayChange = (req: FastifyRequest, link: SongDetailLinkRow) => link.churchId === req.auth.churchId || (!link.churchId && isServerAdmin(req.auth));

/**
 * `/content/songDetailLinks`: a song detail's links to outside services. A church's links are its own (no other
 * church sees, changes or deletes them); global links are changed by server admins only (401 otherwise).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: SongDetailLink } } }, async (req) => {
    const row = await visibleLink(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Song detail link');
    return row;
  });

  app.get(`${base}/songDetail/:songDetailId`, { config: { access: anyUser }, schema: { params: SongDetailIdParams, response: { 200: SongDetailLinks } } }, async (req) =>
    linksOf(app.db, req.auth.churchId, req.params.songDetailId),
  );

  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SongDetailLinkSave), response: { 200: SongDetailLinks } } }, async (req) => {
    const by = `${req.auth.id}@${req.auth.churchId}`;
    const churchId = req.auth.churchId;
    const saved = await app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, { id, ...fields }] of req.body.entries()) {
        const detail = await visibleDetail(tx, churchId, fields.songDetailId);
        if (!detail) throw new HttpError(400, [{ msg: 'no such song detail', param: itemParam(req, i, 'songDetailId'), location: 'body' }]);
        if (!id) {
          // a server admin's link on a global detail is global; every other new link is the church's own
          out.push(await insertLink(tx, !detail.churchId && isServerAdmin(req.auth) ? null : churchId, { ...fields, createdBy: by, updatedBy: by }));
          continue;
        }
        const link = await visibleLink(tx, churchId, id);
        if (!link) throw notFound('Song detail link');
        if (!mayChange(req, link)) throw unauthorized('Only a server admin changes a shared link');
        out.push(await updateLink(tx, id, { ...fields, updatedBy: by }));
      }
      return out;
    });
    // Metadata is fetched when the church's own detail (or, for a server admin, a global one) is linked to the
    // sheet-music provider and has none yet; a church never changes a global row this way.
    for (const link of saved) {
      if (!link.serviceKey || !SHEET_MUSIC_SERVICES.has(link.service.toLowerCase())) continue;
      const detail = await visibleDetail(app.db, churchId, link.songDetailId);
      if (!detail || detail.sheetMusicId || (!detail.churchId && !isServerAdmin(req.auth))) continue;
      try {
        const song = await contentDeps(app).providers.sheetMusic.song(link.serviceKey);
        if (!song) continue;
        await updateDetail(app.db, detail.id, {
          sheetMusicId: link.serviceKey,
          artist: detail.artist ?? song.artist,
          album: detail.album ?? song.album,
          thumbnail: detail.thumbnail ?? song.thumbnail,
          bpm: detail.bpm ?? song.bpm,
          keySignature: detail.keySignature ?? song.keySignature,
          meter: detail.meter ?? song.meter,
          seconds: detail.seconds ?? song.seconds,
        });
      } catch (err) {
        req.log.warn({ err }, 'could not fetch song metadata for a new link');
      }
    }
    return saved;
  });

  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const link = await visibleLink(app.db, req.auth.churchId, req.params.id);
    if (!link) throw notFound('Song detail link');
    if (!mayChange(req, link)) throw unauthorized('Only a server admin deletes a shared link');
    await deleteLink(app.db, link.id);
    return {};
  });
}
