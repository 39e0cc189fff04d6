import type { FastifyInstance } from 'fastify';
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, Id, IdParams, IsoDate, deleteRow, listRows, type ZodTypeProvider, crud } from '@church/common';
import { playlists, sermons } from '../../db/media';
import { storeInlineImage } from '../../domain/media/uploads';

const Playlist = z.object({
  id: z.string(),
  churchId: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  publishDate: z.date().nullable(),
  thumbnail: z.string().nullable(),
  isPublic: z.boolean(),
});
const PlaylistSave = z.object({
  id: Id.optional(),
  title: z.string().trim().min(1, 'is required').max(500),
  description: z.string().max(20_000).nullish(),
  publishDate: IsoDate.nullish(),
  thumbnail: z.string().max(15_000_000).nullish(),
  isPublic: z.boolean().optional(),
});
const edit = requires('StreamingServices.Edit');

/** `/content/playlists`: public or private collections of sermons. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/playlists/public/:churchId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(Playlist) } } }, async (req) =>
    listRows(app.db, playlists, req.params.churchId, { where: eq(playlists.isPublic, true), orderBy: desc(playlists.publishDate) }) as never,
  );

  crud(app, {
    path: '/content/playlists',
    table: playlists,
    item: Playlist,
    save: PlaylistSave,
    view: anyUser,
    edit,
    only: ['list', 'get', 'save'],
    orderBy: [desc(playlists.publishDate), playlists.title],
    toRow: async (input, req) => ({ ...input, thumbnail: await storeInlineImage(app, req.auth.churchId, 'streamingLive/playlists', input.thumbnail, 'thumbnail') }),
  });

  // Deleting a playlist keeps its sermons; they leave the playlist.
  app.delete('/content/playlists/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      await deleteRow(tx, playlists, req.auth.churchId, req.params.id);
      await tx.update(sermons).set({ playlistId: null }).where(and(eq(sermons.churchId, req.auth.churchId), eq(sermons.playlistId, req.params.id)));
    });
    return {};
  });
}
