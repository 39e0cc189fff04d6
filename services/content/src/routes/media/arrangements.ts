import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, HttpError, crud, getRow, itemParam, listRows, type Tx, type ZodTypeProvider } from '@church/common';
import { arrangements, songs } from '../../db/media';
import { deleteArrangement } from '../../repos/media/songs';
import { visibleDetail } from '../../repos/media/song-details';
import { Arrangement, ArrangementSave } from './schemas';

const edit = requires('Content.Edit');

/** Every arrangement names a song of the church and, optionally, an existing song detail. */
async function checkRefs(rows: Array<Record<string, unknown>>, req: FastifyRequest, tx: Tx) {
  for (const [i, row] of rows.entries()) {
    const [song] = await tx.select({ id: songs.id }).from(songs).where(and(eq(songs.churchId, req.auth.churchId), eq(songs.id, row.songId as string)));
    if (!song) throw new HttpError(400, [{ msg: 'no such song', param: itemParam(req, i, 'songId'), location: 'body' }]);
    if (row.songDetailId) {
      const detail = await visibleDetail(tx, req.auth.churchId, row.songDetailId as string);
      if (!detail) throw new HttpError(400, [{ msg: 'no such song detail', param: itemParam(req, i, 'songDetailId'), location: 'body' }]);
    }
  }
}

/** `/content/arrangements`: arrangements of a church's songs. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/arrangements/song/:songId', { config: { access: edit }, schema: { params: z.object({ songId: Id }), response: { 200: z.array(Arrangement) } } }, async (req) =>
    listRows(app.db, arrangements, req.auth.churchId, { where: eq(arrangements.songId, req.params.songId), orderBy: asc(arrangements.name) }) as never,
  );

  app.get('/content/arrangements/songDetail/:songDetailId', { config: { access: edit }, schema: { params: z.object({ songDetailId: Id }), response: { 200: z.array(Arrangement) } } }, async (req) =>
    listRows(app.db, arrangements, req.auth.churchId, { where: eq(arrangements.songDetailId, req.params.songDetailId), orderBy: asc(arrangements.name) }) as never,
  );

  app.post(
    '/content/arrangements/presenterApp/missing',
    { config: { access: anyUser }, schema: { body: z.object({ presenterAppIds: z.array(z.string().trim().min(1).max(200)).max(10_000) }), response: { 200: z.array(z.string()) } } },
    async (req) => {
      const ids = [...new Set(req.body.presenterAppIds)];
      if (!ids.length) return [];
      const present = await app.db
        .select({ id: arrangements.presenterAppId })
        .from(arrangements)
        .where(and(eq(arrangements.churchId, req.auth.churchId), inArray(arrangements.presenterAppId, ids)));
      const have = new Set(present.map((p) => p.id));
      return ids.filter((id) => !have.has(id));
    },
  );

  app.get('/content/arrangements/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Arrangement } } }, async (req) =>
    getRow(app.db, arrangements, req.auth.churchId, req.params.id, 'Arrangement') as never,
  );

  crud(app, {
    path: '/content/arrangements',
    table: arrangements,
    item: Arrangement,
    save: ArrangementSave,
    view: edit,
    edit,
    only: ['list', 'save'],
    orderBy: asc(arrangements.name),
    afterSave: checkRefs,
  });

  app.delete('/content/arrangements/:id', { config: { access: edit }, schema: { params: IdParams } }, async (req) => {
    const arrangement = await getRow(app.db, arrangements, req.auth.churchId, req.params.id, 'Arrangement');
    const result = await app.db.transaction((tx) => deleteArrangement(tx, req.auth.churchId, { id: arrangement.id, songId: arrangement.songId }));
    return result;
  });
}
