import type { FastifyInstance, FastifyRequest } from 'fastify';
import { inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { IdParams, crud, type CrudVerb, type ZodTypeProvider } from '@church/common';
import { serviceTimes, sessions } from '../db/schema';
import { assertInScope, groupScope, outOfScope } from '../domain/access';
import { deleteSession, listSessions } from '../repos/sessions';
import { QueryId, Session, SessionListItem, SessionSave } from '../schemas';

/** A leader without Attendance.Edit changes only the sessions of the groups they lead. */
function leaderOnly(req: FastifyRequest, verb: CrudVerb): SQL | undefined {
  const scope = verb === 'save' ? groupScope(req, 'Attendance.Edit') : null;
  if (!scope) return undefined;
  return scope.length ? inArray(sessions.groupId, scope) : sql`false`;
}

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

  // The standard get and save. A leader saves only sessions of the groups they lead, and moves none out of them.
  crud(app, {
    path: '/attendance/sessions',
    name: 'Session',
    table: sessions,
    item: Session,
    save: SessionSave,
    view: requires('Attendance.View'),
    edit: requires('Attendance.Edit or Group Leader'),
    only: ['get', 'save'],
    references: { serviceTimeId: serviceTimes },
    requiredOnCreate: ['groupId', 'sessionDate'],
    scope: { where: (req, verb) => leaderOnly(req, verb), refuse: outOfScope },
    toRow: (item, req) => {
      if (item.groupId) assertInScope(groupScope(req, 'Attendance.Edit'), item.groupId);
      return item;
    },
  });

  // Deleting takes the session's visit sessions with it, and the visits that attended nothing else.
  app.delete('/attendance/sessions/:id', { config: { access: requires('Attendance.Edit') }, schema: { params: IdParams } }, async (req) => {
    await app.db.transaction((tx) => deleteSession(tx, req.auth.churchId, req.params.id));
    return {};
  });
}
