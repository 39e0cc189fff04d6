import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { actorOf, coalesced, crud, Empty, getRow, Id, IdParams, notFound, reportChanges, sameRows, type Tx, type ZodTypeProvider } from '@church/common';
import { sessions, visitSessions, visits } from '../db/schema';
import { assertInScope, groupScope } from '../domain/access';
import { destroyed } from '../domain/changes';
import { sessionDownload } from '../domain/download';
import { logVisitSessions } from '../domain/visit-sessions';
import { listVisitSessions, unlinkPerson, unlinkVisitSession, type VisitRow, type VisitSessionRow } from '../repos/visits';
import { DownloadRows, LogBody, QueryId, VisitSession, VisitSessionSave } from '../schemas';

const view = requires('Attendance.View');
const edit = requires('Attendance.Edit');
const List = z.array(VisitSession);

/** `/attendance/visitsessions`: who attended which session; leaders work on the groups they lead. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const download = coalesced(
    (key: { churchId: string; sessionId: string }) => sessionDownload(app.deps, key.churchId, key.sessionId),
    (key) => `${key.churchId}/${key.sessionId}`.toLowerCase(),
  );
  app.get(
    '/attendance/visitsessions',
    { config: { access: requires('Attendance.View or Group Leader') }, schema: { querystring: z.object({ sessionId: QueryId }), response: { 200: List } } },
    (req) => listVisitSessions(app.db, req.auth.churchId, { sessionId: req.query.sessionId, groupIds: groupScope(actorOf(req), 'Attendance.View') }),
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
    changes: { entityType: 'visitSession' },
  });

  /** Reports visit sessions removed and the visits that went with them (their last session). */
  const reportRemoved = (req: FastifyRequest, tx: Tx, removed: { links: VisitSessionRow[]; visits: VisitRow[] }) =>
    reportChanges(app.deps, [...removed.links.map((l) => destroyed('visitSession', l)), ...removed.visits.map((v) => destroyed('visit', v))], { req, tx });

  app.post(
    '/attendance/visitsessions/log',
    { config: { access: requires('Attendance.Edit or Group Leader') }, schema: { body: LogBody, response: { 200: Empty } } },
    async (req) => {
      await logVisitSessions(app.deps, actorOf(req), req.body);
      return {};
    },
  );

  app.delete('/attendance/visitsessions/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.deps.queue.transaction(app.db, async (tx) => {
      const removed = await unlinkVisitSession(tx, req.auth.churchId, req.params.id);
      if (!removed.links.length) throw notFound('Visit session');
      await reportRemoved(req, tx, removed);
    });
    return {};
  });

  app.delete(
    '/attendance/visitsessions',
    { config: { access: requires('Attendance.Edit or Group Leader') }, schema: { querystring: z.object({ personId: Id, sessionId: Id }), response: { 200: Empty } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const session = await getRow(app.db, sessions, churchId, req.query.sessionId, 'Session');
      assertInScope(groupScope(actorOf(req), 'Attendance.Edit'), session.groupId);
      await app.deps.queue.transaction(app.db, async (tx) => reportRemoved(req, tx, await unlinkPerson(tx, churchId, req.query.personId, session.id)));
      return {};
    },
  );
}
