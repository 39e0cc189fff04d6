import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, Id, IdList, IdParams, REMOTE, actorOf, batchOf, checkBatch, getRow, itemParam, reportChanges, type ZodTypeProvider } from '@church/common';
import { services, visits } from '../db/schema';
import { attendanceDeps } from '../deps';
import { destroyed } from '../domain/changes';
import { checkin, lastCheckin } from '../domain/checkin';
import { peopleCache } from '../domain/people';
import { saveVisits } from '../domain/visits';
import { deleteVisit, listVisits, withVisitSessions } from '../repos/visits';
import { CheckinItem, CheckinResult, QueryId, Visit, VisitSave } from '../schemas';

const view = requires('Attendance.View');
const edit = requires('Attendance.Edit');
const List = z.array(Visit);
const CheckinQuery = z.object({ serviceId: Id, peopleIds: IdList });

/** `/attendance/visits`: a person at a service on a date; check-in replaces a household's visits for today. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/visits',
    { config: { access: view }, schema: { querystring: z.object({ personId: QueryId }), response: { 200: List } } },
    async (req) => withVisitSessions(app.db, req.auth.churchId, await listVisits(app.db, req.auth.churchId, req.query.personId)),
  );

  // Membership's people (live, with households), kept per church while membership's version of them holds.
  const people = peopleCache();

  // A caller with only Attendance.Checkin reads and submits their own household's check-ins (401 otherwise).
  app.get(
    '/attendance/visits/checkin',
    { config: { access: requires('Attendance.View or Attendance.Checkin') }, schema: { querystring: CheckinQuery, response: { 200: List } } },
    (req) => lastCheckin(app.deps, actorOf(req), people, req.query.serviceId, req.query.peopleIds),
  );

  app.post(
    '/attendance/visits/checkin',
    {
      config: { access: requires('Attendance.Edit or Attendance.Checkin') },
      schema: {
        querystring: z.object({ serviceId: CheckinQuery.shape.serviceId, peopleIds: IdList.optional() }),
        body: batchOf(CheckinItem),
        response: { 200: CheckinResult },
      },
    },
    (req) =>
      checkin(attendanceDeps(app), actorOf(req), people, {
        serviceId: req.query.serviceId,
        peopleIds: req.query.peopleIds ?? [],
        items: req.body,
        param: (i, field) => itemParam(req, i, field),
      }),
  );

  app.get('/attendance/visits/:id', { config: { access: view }, schema: { params: IdParams, response: { 200: Visit } } }, async (req) => {
    const [visit] = await withVisitSessions(app.db, req.auth.churchId, [await getRow(app.db, visits, req.auth.churchId, req.params.id, 'Visit')]);
    return visit!;
  });

  app.post('/attendance/visits', { config: { access: edit }, schema: { body: batchOf(VisitSave), response: { 200: List } } }, async (req) => {
    await checkBatch(app.db, req, req.body, { requiredOnCreate: ['personId', 'visitDate'], references: { serviceId: services, personId: REMOTE.people } });
    return saveVisits(app.deps, actorOf(req), req.body);
  });

  app.delete('/attendance/visits/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.deps.queue.transaction(app.db, async (tx) => {
      const { visit, links } = await deleteVisit(tx, req.auth.churchId, req.params.id);
      await reportChanges(app.deps, [destroyed('visit', visit), ...links.map((l) => destroyed('visitSession', l))], { req, tx });
    });
    return {};
  });
}
