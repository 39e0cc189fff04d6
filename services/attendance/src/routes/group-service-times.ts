import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, batchOf, deleteRow, getRow, itemParam, saveRows, type ZodTypeProvider } from '@church/common';
import { groupServiceTimes } from '../db/schema';
import { listGroupServiceTimes, requireServiceTime } from '../repos/places';
import { GroupServiceTime, GroupServiceTimeSave, QueryId } from '../schemas';

const edit = requires('Services.Edit');
const List = z.array(GroupServiceTime);

/** `/attendance/groupservicetimes`: which service times a group (a membership id) meets at. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/groupservicetimes',
    { config: { access: anyUser }, schema: { querystring: z.object({ groupId: QueryId }), response: { 200: List } } },
    (req) => listGroupServiceTimes(app.db, req.auth.churchId, req.query.groupId),
  );

  app.get('/attendance/groupservicetimes/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: GroupServiceTime } } }, (req) =>
    getRow(app.db, groupServiceTimes, req.auth.churchId, req.params.id, 'Group service time') as Promise<z.output<typeof GroupServiceTime>>,
  );

  app.post('/attendance/groupservicetimes', { config: { access: edit }, schema: { body: batchOf(GroupServiceTimeSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      for (const [i, item] of req.body.entries()) await requireServiceTime(tx, churchId, item.serviceTimeId, itemParam(req, i, 'serviceTimeId'));
      return (await saveRows(tx, groupServiceTimes, churchId, req.body)) as Array<z.output<typeof GroupServiceTime>>;
    }),
  );

  app.delete('/attendance/groupservicetimes/:id', { config: { access: edit }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, groupServiceTimes, req.auth.churchId, req.params.id);
    return {};
  });
}
