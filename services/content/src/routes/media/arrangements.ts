import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { IdParams, HttpError, crud, getRow, itemParam, type Tx, type ZodTypeProvider } from '@church/common';
import { arrangements, songs } from '../../db/media';
import { arrangementsByName, arrangementsOf, deleteArrangement, presentPresenterIds } from '../../repos/media/songs';
import { visibleDetail } from '../../repos/media/song-details';
import { Arrangement, ArrangementDeleted, Arrangements, ArrangementSave, MissingPresenterAnswer, MissingPresenterIds, SongDetailIdParams, SongIdParams } from '../../schemas/media-songs';

const edit = requires('Content.Edit');

/**
 * An arrangement's song detail is the church's own or a global one (the shared reference check takes only the
 * church's own rows, so this one stays); its song is declared below.
 */
async function checkRefs(rows: Array<Record<string, unknown>>, req: FastifyRequest, tx: Tx) {
  for (const [i, row] of rows.entries()) {
    if (row.songDetailId) {
      const detail = await visibleDetail(tx, req.auth.churchId, row.songDetailId as string);
      if (!detail) throw new HttpError(400, [{ msg: 'no such song detail', param: itemParam(req, i, 'songDetailId'), location: 'body' }]);
    }
  }
}

/** `/content/arrangements`: arrangements of a church's songs. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/arrangements/song/:songId', { config: { access: edit }, schema: { params: SongIdParams, response: { 200: Arrangements } } }, async (req) =>
    arrangementsOf(app.db, req.auth.churchId, { songId: req.params.songId }),
  );

  app.get('/content/arrangements/songDetail/:songDetailId', { config: { access: edit }, schema: { params: SongDetailIdParams, response: { 200: Arrangements } } }, async (req) =>
    arrangementsOf(app.db, req.auth.churchId, { songDetailId: req.params.songDetailId }),
  );

  app.post('/content/arrangements/presenterApp/missing', { config: { access: anyUser }, schema: { body: MissingPresenterIds, response: { 200: MissingPresenterAnswer } } }, async (req) => {
    const ids = [...new Set(req.body.presenterAppIds)];
    if (!ids.length) return [];
    const have = await presentPresenterIds(app.db, req.auth.churchId, ids);
    return ids.filter((id) => !have.has(id));
  });

  app.get('/content/arrangements/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Arrangement } } }, async (req) =>
    getRow(app.db, arrangements, req.auth.churchId, req.params.id, 'Arrangement'),
  );

  crud(app, {
    path: '/content/arrangements',
    table: arrangements,
    item: Arrangement,
    save: ArrangementSave,
    view: edit,
    edit,
    only: ['list', 'save'],
    orderBy: arrangementsByName,
    references: { songId: songs },
    afterSave: checkRefs,
  });

  app.delete('/content/arrangements/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: ArrangementDeleted } } }, async (req) => {
    const arrangement = await getRow(app.db, arrangements, req.auth.churchId, req.params.id, 'Arrangement');
    return app.db.transaction((tx) => deleteArrangement(tx, req.auth.churchId, { id: arrangement.id, songId: arrangement.songId }));
  });
}
