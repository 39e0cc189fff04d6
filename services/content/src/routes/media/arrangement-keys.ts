import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, HttpError, crud, getRow, itemParam, listRows, notFound, type Tx, type ZodTypeProvider } from '@church/common';
import { arrangementKeys, arrangements, songDetails, songs } from '../../db/media';
import { Arrangement, ArrangementKey, ArrangementKeySave, Song, SongDetail } from './schemas';

const edit = requires('Content.Edit');

async function checkArrangements(rows: Array<Record<string, unknown>>, req: FastifyRequest, tx: Tx) {
  for (const [i, row] of rows.entries()) {
    const [a] = await tx.select({ id: arrangements.id }).from(arrangements).where(and(eq(arrangements.churchId, req.auth.churchId), eq(arrangements.id, row.arrangementId as string)));
    if (!a) throw new HttpError(400, [{ msg: 'no such arrangement', param: itemParam(req, i, 'arrangementId'), location: 'body' }]);
  }
}

/** `/content/arrangementKeys`: keys of an arrangement; the public presenter reads one with its song. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/content/arrangementKeys/presenter/:churchId/:id',
    {
      config: { access: 'public' },
      schema: {
        params: z.object({ churchId: Id, id: Id }),
        response: { 200: z.object({ arrangementKey: ArrangementKey, arrangement: Arrangement, song: Song, songDetail: SongDetail.nullable() }) },
      },
    },
    async (req) => {
      const { churchId, id } = req.params;
      const [row] = await app.db
        .select({ key: arrangementKeys, arrangement: arrangements, song: songs, detail: songDetails })
        .from(arrangementKeys)
        .innerJoin(arrangements, and(eq(arrangements.id, arrangementKeys.arrangementId), eq(arrangements.churchId, churchId)))
        .innerJoin(songs, and(eq(songs.id, arrangements.songId), eq(songs.churchId, churchId)))
        .leftJoin(songDetails, eq(songDetails.id, arrangements.songDetailId))
        .where(and(eq(arrangementKeys.churchId, churchId), eq(arrangementKeys.id, id)));
      if (!row) throw notFound('Arrangement key');
      return { arrangementKey: row.key, arrangement: row.arrangement, song: row.song, songDetail: row.detail };
    },
  );

  app.get('/content/arrangementKeys/arrangement/:arrangementId', { config: { access: edit }, schema: { params: z.object({ arrangementId: Id }), response: { 200: z.array(ArrangementKey) } } }, async (req) =>
    listRows(app.db, arrangementKeys, req.auth.churchId, { where: eq(arrangementKeys.arrangementId, req.params.arrangementId), orderBy: asc(arrangementKeys.keySignature) }) as never,
  );

  app.get('/content/arrangementKeys/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: ArrangementKey } } }, async (req) =>
    getRow(app.db, arrangementKeys, req.auth.churchId, req.params.id, 'Arrangement key') as never,
  );

  crud(app, {
    path: '/content/arrangementKeys',
    table: arrangementKeys,
    item: ArrangementKey,
    save: ArrangementKeySave,
    view: edit,
    edit,
    only: ['list', 'save', 'delete'],
    orderBy: asc(arrangementKeys.keySignature),
    afterSave: checkArrangements,
  });
}
