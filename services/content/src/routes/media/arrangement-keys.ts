import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { IdParams, crud, getRow, notFound, type ZodTypeProvider } from '@church/common';
import { arrangementKeys, arrangements } from '../../db/media';
import { withProviderId } from '../../repos/media/song-details';
import { keysBySignature, keysOf, keyWithSong } from '../../repos/media/songs';
import { ArrangementIdParams, ArrangementKey, ArrangementKeys, ArrangementKeySave, PresenterKey, PresenterKeyParams } from '../../schemas/media-songs';

const edit = requires('Content.Edit');

/** `/content/arrangementKeys`: keys of an arrangement; the public presenter reads one with its song. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/arrangementKeys/presenter/:churchId/:id', { config: { access: 'public' }, schema: { params: PresenterKeyParams, response: { 200: PresenterKey } } }, async (req) => {
    const row = await keyWithSong(app.db, req.params.churchId, req.params.id);
    if (!row) throw notFound('Arrangement key');
    return { ...row, songDetail: row.songDetail && withProviderId(row.songDetail) };
  });

  app.get('/content/arrangementKeys/arrangement/:arrangementId', { config: { access: edit }, schema: { params: ArrangementIdParams, response: { 200: ArrangementKeys } } }, async (req) =>
    keysOf(app.db, req.auth.churchId, req.params.arrangementId),
  );

  app.get('/content/arrangementKeys/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: ArrangementKey } } }, async (req) =>
    getRow(app.db, arrangementKeys, req.auth.churchId, req.params.id, 'Arrangement key'),
  );

  crud(app, {
    path: '/content/arrangementKeys',
    table: arrangementKeys,
    item: ArrangementKey,
    save: ArrangementKeySave,
    view: edit,
    edit,
    only: ['list', 'save', 'delete'],
    orderBy: keysBySignature,
    references: { arrangementId: arrangements },
  });
}
