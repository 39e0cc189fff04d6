import type { FastifyInstance } from 'fastify';
import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, Id, IdParams, coalesced, crud, getRow, notFound, sameRows, type ZodTypeProvider } from '@church/common';
import { sessions, visitSessions, visits } from '../db/schema';
import { assertInScope, groupScope } from '../domain/access';
import { utcDay } from '../domain/dates';
import { sessionDownload } from '../domain/download';
import { serviceOfSession } from '../repos/sessions';
import { findOrCreateVisit, linkVisitSession, listVisitSessions, unlinkVisitSessions } from '../repos/visits';
import { DownloadRows, LogBody, QueryId, VisitSession, VisitSessionSave } from '../schemas';

const view = requires('Attendance.View');
const edit = requires('Attendance.Edit');
const List = z.array(VisitSession);

/** `/attendance/visitsessions`: who attended which session; leaders work on the groups they lead. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const download = coalesced(
    (key: { churchId: string; sessionId: string }) => sessionDownload(app.db, app.deps.internal, key.churchId, key.sessionId),
    (key) => `${key.churchId}/${key.sessionId}`.toLowerCase(),
  );
  app.get(
    '/attendance/visitsessions',
    { config: { access: requires('Attendance.View or Group Leader') }, schema: { querystring: z.object({ sessionId: QueryId }), response: { 200: List } } },
    (req) => listVisitSessions(app.db, req.auth.churchId, { sessionId: req.query.sessionId, groupIds: groupScope(req, 'Attendance.View') }),
  );

  app.get(
    '/attendance/visitsessions/download/:sessionId',
    { config: { access: view }, schema: { params: z.object({ sessionId: Id }), response: { 200: DownloadRows } } },
    // Read for every request (concurrent downloads of one sheet share a read that started after they asked),
    // serialized and compressed only when the sheet changed since the last download.
    async (req, reply) => {
      const { churchId } = req.auth;
      const rows = await download({ churchId, sessionId: req.params.sessionId });
      return app.deps.snapshots.sendKept(req, reply, `${churchId}\n${req.params.sessionId}`, rows, sameRows);
    },
  );

  app.get('/attendance/visitsessions/:id', { config: { access: view }, schema: { params: IdParams, response: { 200: VisitSession } } }, async (req) => {
    const [row] = await listVisitSessions(app.db, req.auth.churchId, { id: req.params.id, groupIds: null });
    if (!row) throw notFound('Visit session');
    return row;
  });

  // The standard save: a new link names its visit and its session, and either must be the caller's church's.
  crud(app, {
    path: '/attendance/visitsessions',
    name: 'Visit session',
    table: visitSessions,
    item: VisitSession,
    save: VisitSessionSave,
    view,
    edit,
    only: ['save'],
    references: { visitId: visits, sessionId: sessions },
    requiredOnCreate: ['visitId', 'sessionId'],
  });

  app.post(
    '/attendance/visitsessions/log',
    { config: { access: requires('Attendance.Edit or Group Leader') }, schema: { body: LogBody, response: { 200: Empty } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const scope = groupScope(req, 'Attendance.Edit');
      await app.db.transaction(async (tx) => {
        for (const { sessionId } of req.body.visitSessions) {
          const session = await getRow(tx, sessions, churchId, sessionId, 'Session');
          assertInScope(scope, session.groupId);
          const serviceId = await serviceOfSession(tx, churchId, session);
          const visit = await findOrCreateVisit(tx, churchId, req.body.personId, serviceId, utcDay(session.sessionDate), req.auth.id);
          await linkVisitSession(tx, churchId, visit.id, session.id);
        }
      });
      return {};
    },
  );

  app.delete('/attendance/visitsessions/:id', { config: { access: edit }, schema: { params: IdParams } }, async (req) => {
    const removed = await app.db.transaction((tx) => unlinkVisitSessions(tx, req.auth.churchId, eq(visitSessions.id, req.params.id)));
    if (!removed) throw notFound('Visit session');
    return {};
  });

  app.delete(
    '/attendance/visitsessions',
    { config: { access: requires('Attendance.Edit or Group Leader') }, schema: { querystring: z.object({ personId: Id, sessionId: Id }) } },
    async (req) => {
      const churchId = req.auth.churchId;
      const session = await getRow(app.db, sessions, churchId, req.query.sessionId, 'Session');
      assertInScope(groupScope(req, 'Attendance.Edit'), session.groupId);
      const ofPerson = app.db.select({ id: visits.id }).from(visits).where(and(eq(visits.churchId, churchId), eq(visits.personId, req.query.personId)));
      await app.db.transaction((tx) =>
        unlinkVisitSessions(tx, churchId, and(eq(visitSessions.sessionId, session.id), inArray(visitSessions.visitId, ofPerson))!),
      );
      return {};
    },
  );
}
