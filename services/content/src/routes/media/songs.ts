import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, crud, getRow, type ZodTypeProvider } from '@church/common';
import { songs } from '../../db/media';
import { deleteSong, importSongs, searchSongs, songsOf } from '../../repos/media/songs';
import { Song, SongImportItems, SongImportResults, Songs, SongSave, SongSearchHits, SongSearchQuery } from '../../schemas/media-songs';

const edit = requires('Content.Edit');

/** `/content/songs`: a church's songs; search and the presentation-app import. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/songs/search', { config: { access: anyUser }, schema: { querystring: SongSearchQuery, response: { 200: SongSearchHits } } }, async (req) => searchSongs(app.db, req.auth.churchId, req.query.q));

  app.post('/content/songs/import', { config: { access: anyUser }, schema: { body: SongImportItems, response: { 200: SongImportResults } } }, async (req) =>
    app.db.transaction((tx) => importSongs(tx, req.auth.churchId, req.body, `${req.auth.id}@${req.auth.churchId}`)),
  );

  app.get('/content/songs/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Song } } }, async (req) => getRow(app.db, songs, req.auth.churchId, req.params.id, 'Song'));
  app.get('/content/songs', { config: { access: edit }, schema: { response: { 200: Songs } } }, async (req) => songsOf(app.db, req.auth.churchId));
  crud(app, { path: '/content/songs', table: songs, item: Song, save: SongSave, view: edit, edit, only: ['save'] });
  app.delete('/content/songs/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await getRow(app.db, songs, req.auth.churchId, req.params.id, 'Song');
    await app.db.transaction((tx) => deleteSong(tx, req.auth.churchId, req.params.id));
    return {};
  });
}
