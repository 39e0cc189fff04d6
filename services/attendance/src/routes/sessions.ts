import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, IdParams, REMOTE, actorOf, crud, reportChanges, type CrudVerb, type ZodTypeProvider } from '@church/common';
import { serviceTimes, sessions } from '../db/schema';
import { assertInScope, groupScope, outOfScope } from '../domain/access';
import { destroyed } from '../domain/changes';
import { deleteSession, listSessions, ofGroups } from '../repos/sessions';
import { QueryId, Session, SessionListItem, SessionSave } from '../schemas';

/** A leader without Attendance.Edit changes only the sessions of the groups they lead. */
function leaderOnly(req: FastifyRequest, verb: CrudVerb) {
  const scope = verb === 'save' ? groupScope(actorOf(req), 'Attendance.Edit') : null;
  return scope ? ofGroups(scope) : undefined;
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
    (req) => listSessions(app.db, req.auth.churchId, { groupId: req.query.groupId, groupIds: groupScope(actorOf(req), 'Attendance.View') }),
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
    references: { serviceTimeId: serviceTimes, groupId: REMOTE.groups },
    requiredOnCreate: ['groupId', 'sessionDate'],
    scope: { where: (req, verb) => leaderOnly(req, verb), refuse: outOfScope },
    toRow: (item, req) => {
      if (item.groupId) assertInScope(groupScope(actorOf(req), 'Attendance.Edit'), item.groupId);
      return item;
    },
    changes: { entityType: 'session', event: 'session' },
  });

  // Deleting takes the session's visit sessions with it, and the visits that attended nothing else.
  app.delete('/attendance/sessions/:id', { config: { access: requires('Attendance.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.deps.queue.transaction(app.db, async (tx) => {
      const gone = await deleteSession(tx, req.auth.churchId, req.params.id);
      const changes = [destroyed('session', gone.session), ...gone.links.map((l) => destroyed('visitSession', l)), ...gone.visits.map((v) => destroyed('visit', v))];
      await reportChanges(app.deps, changes, { req, tx });
    });
    return {};
  });
}
