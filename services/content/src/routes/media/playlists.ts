import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, deleteRow, type ZodTypeProvider, crud } from '@church/common';
import { playlists } from '../../db/media';
import { storeInlineImage } from '../../domain/media/uploads';
import { detachSermons, newestPlaylistsFirst, publicPlaylists } from '../../repos/media/sermons';
import { ChurchParams, Playlist, Playlists, PlaylistSave } from '../../schemas/media-streaming';

const edit = requires('StreamingServices.Edit');

/** `/content/playlists`: public or private collections of sermons. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/playlists/public/:churchId', { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: Playlists } } }, async (req) => publicPlaylists(app.db, req.params.churchId));

  crud(app, {
    path: '/content/playlists',
    table: playlists,
    item: Playlist,
    save: PlaylistSave,
    view: anyUser,
    edit,
    only: ['list', 'get', 'save'],
    orderBy: newestPlaylistsFirst,
    toRow: async (input, req) => ({ ...input, thumbnail: await storeInlineImage(app.deps, req.auth.churchId, 'streamingLive/playlists', input.thumbnail, 'thumbnail') }),
  });

  // Deleting a playlist keeps its sermons; they leave the playlist.
  app.delete('/content/playlists/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      await deleteRow(tx, playlists, req.auth.churchId, req.params.id);
      await detachSermons(tx, req.auth.churchId, req.params.id);
    });
    return {};
  });
}
