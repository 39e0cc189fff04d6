import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, Id, IdList, IdParams, REMOTE, batchOf, checkBatch, getRow, itemParam, reportChanges, rowsByIds, saveRows, type ChangeInput, type ZodTypeProvider } from '@church/common';
import { services, visits } from '../db/schema';
import { attendanceDeps } from '../deps';
import { RECORDED, created, destroyed, updated } from '../domain/changes';
import { lastCheckin, submitCheckin } from '../domain/checkin';
import { householdScope, peopleCache } from '../domain/people';
import { deleteVisit, foldVisit, listVisits, withVisitSessions } from '../repos/visits';
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
    async (req) => {
      await householdScope(req, app.deps.internal, people, ['Attendance.View', 'Attendance.Edit'], req.query.peopleIds);
      return lastCheckin(app.db, req.auth.churchId, req.query.serviceId, req.query.peopleIds);
    },
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
    async (req) => {
      const peopleIds = req.query.peopleIds ?? [];
      const submitted = req.body.map((item) => item.personId);
      // the household rule covers everyone whose visit the submission writes or removes
      const scope = await householdScope(req, app.deps.internal, people, ['Attendance.Edit'], [...peopleIds, ...submitted]);
      // every submitted person must be a live person of the church (the version probe, skipped while a recent one
      // holds; a call only for what is not kept as live)
      const maxAgeMs = attendanceDeps(app).config.CHECKIN_PEOPLE_MAX_AGE_MS;
      const known = scope.known ?? (submitted.length ? await people.households(app.deps.internal, req.auth.churchId, submitted, maxAgeMs) : new Map());
      return submitCheckin(app.db, { deps: app.deps, req }, {
        churchId: req.auth.churchId,
        userId: req.auth.id,
        serviceId: req.query.serviceId,
        peopleIds,
        items: req.body,
        known,
        param: (i, field) => itemParam(req, i, field),
      });
    },
  );

  app.get('/attendance/visits/:id', { config: { access: view }, schema: { params: IdParams, response: { 200: Visit } } }, async (req) => {
    const [visit] = await withVisitSessions(app.db, req.auth.churchId, [await getRow(app.db, visits, req.auth.churchId, req.params.id, 'Visit')]);
    return visit!;
  });

  app.post('/attendance/visits', { config: { access: edit }, schema: { body: batchOf(VisitSave), response: { 200: List } } }, async (req) => {
    await checkBatch(app.db, req, req.body, { requiredOnCreate: ['personId', 'visitDate'], references: { serviceId: services, personId: REMOTE.people } });
    return app.deps.queue.transaction(app.db, async (tx) => {
      const churchId = req.auth.churchId;
      const before = new Map((await rowsByIds(tx, visits, churchId, req.body.flatMap((item) => item.id ?? []))).map((v) => [v.id, v]));
      // An update that would duplicate the person's visit at the service that day joins that visit (foldVisit).
      const saved = [];
      const changes: ChangeInput[] = [];
      for (const item of req.body) {
        const fold = item.id ? await foldVisit(tx, churchId, { ...item, id: item.id }) : undefined;
        if (fold) {
          saved.push(fold.into);
          changes.push(destroyed('visit', fold.folded));
          continue;
        }
        const [row] = await saveRows(tx, visits, churchId, [{ ...item, addedBy: item.id ? undefined : req.auth.id }]);
        const was = item.id ? before.get(item.id) : undefined;
        changes.push(was ? updated('visit', was, row!) : created('visit', row!, { event: RECORDED }));
        saved.push(row!);
      }
      await reportChanges(app.deps, changes, { req, tx });
      return withVisitSessions(tx, churchId, saved);
    });
  });

  app.delete('/attendance/visits/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.deps.queue.transaction(app.db, async (tx) => {
      const { visit, links } = await deleteVisit(tx, req.auth.churchId, req.params.id);
      await reportChanges(app.deps, [destroyed('visit', visit), ...links.map((l) => destroyed('visitSession', l))], { req, tx });
    });
    return {};
  });
}
