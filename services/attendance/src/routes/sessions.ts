import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { IdParams, badRequest, batchOf, itemParam, saveRows, type ZodTypeProvider } from '@church/common';
import { sessions } from '../db/schema';
import { assertInScope, groupScope } from '../domain/access';
import { requireServiceTime } from '../repos/places';
import { deleteSession, getSession, listSessions } from '../repos/sessions';
import { QueryId, Session, SessionListItem, SessionSave } from '../schemas';

/** `/attendance/sessions`: meetings of groups; group leaders see and save the sessions of their own groups. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/sessions',
    {
      config: { access: requires('Attendance.View or Group Leader') },
      schema: { querystring: z.object({ groupId: QueryId }), response: { 200: z.array(SessionListItem) } },
    },
    (req) => listSessions(app.db, req.auth.churchId, { groupId: req.query.groupId, groupIds: groupScope(req, 'Attendance.View') }),
  );

  app.get('/attendance/sessions/:id', { config: { access: requires('Attendance.View') }, schema: { params: IdParams, response: { 200: Session } } }, (req) =>
    getSession(app.db, req.auth.churchId, req.params.id),
  );

  app.post(
    '/attendance/sessions',
    { config: { access: requires('Attendance.Edit or Group Leader') }, schema: { body: batchOf(SessionSave), response: { 200: z.array(Session) } } },
    (req) =>
      app.db.transaction(async (tx) => {
        const churchId = req.auth.churchId;
        const scope = groupScope(req, 'Attendance.Edit');
        for (const [i, item] of req.body.entries()) {
          if (item.id) assertInScope(scope, (await getSession(tx, churchId, item.id)).groupId);
          else {
            if (!item.groupId) throw badRequest(itemParam(req, i, 'groupId'), 'is required');
            if (!item.sessionDate) throw badRequest(itemParam(req, i, 'sessionDate'), 'is required');
          }
          if (item.groupId) assertInScope(scope, item.groupId);
          if (item.serviceTimeId) await requireServiceTime(tx, churchId, item.serviceTimeId, itemParam(req, i, 'serviceTimeId'));
        }
        return saveRows(tx, sessions, churchId, req.body) as Promise<Array<z.output<typeof Session>>>;
      }),
  );

  app.delete('/attendance/sessions/:id', { config: { access: requires('Attendance.Edit') }, schema: { params: IdParams } }, async (req) => {
    await app.db.transaction((tx) => deleteSession(tx, req.auth.churchId, req.params.id));
    return {};
  });
}
