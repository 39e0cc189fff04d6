import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, IsoDate, attendanceInternal, badRequest, gdprAnonymize, gdprExport, serveOwned, type ZodTypeProvider } from '@church/common';
import { campuses as campusTable, serviceTimes, services } from '../db/schema';
import { campusNames } from '../repos/places';
import { groupsAtPlaces, peopleWithVisits } from '../repos/records';
import { listVisits, withVisitSessions } from '../repos/visits';

const Places = z.object({ churchId: Id, campusId: Id.nullish(), serviceId: Id.nullish(), serviceTimeId: Id.nullish() });
const PeopleQuery = Places.extend({
  groupId: Id.nullish(),
  /** a group category: membership owns categories, so it sends the category's groups in `groupIds` */
  categoryName: z.string().nullish(),
  groupIds: z.array(Id).max(5000).nullish(),
  startDate: IsoDate.nullish(),
  endDate: IsoDate.nullish(),
});

const clean = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: NonNullable<T[K]> };

/**
 * Server-to-server (signed): what membership asks of attendance's data. The answers are the shared contracts'
 * (`attendanceInternal`); the bodies take what the contracts send and the forms a caller may write them in.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // Other modules' reference checks: which of these ids are the church's campuses, services, service times.
  serveOwned(app, 'attendance', { campuses: campusTable, services, serviceTimes });
  app.post(
    '/attendance/internal/people',
    { config: { access: 'internal' }, schema: { body: PeopleQuery, response: { 200: attendanceInternal.people.answer } } },
    async (req) => {
      const { churchId, categoryName, ...filter } = clean(req.body);
      if (categoryName && !filter.groupIds) throw badRequest('groupIds', 'send the groups of the category (attendance does not know group categories)');
      return { personIds: await peopleWithVisits(app.db, churchId!, filter) };
    },
  );

  app.post(
    '/attendance/internal/groups',
    { config: { access: 'internal' }, schema: { body: Places, response: { 200: attendanceInternal.groups.answer } } },
    async (req) => {
      const { churchId, ...filter } = clean(req.body);
      return { groupIds: await groupsAtPlaces(app.db, churchId!, filter) };
    },
  );

  // `attendanceInternal.campuses`: names of the church's campuses for membership (a person's campus). Without ids,
  // the live ones; with ids, those named, removed ones included (history keeps their names).
  const { campuses } = attendanceInternal;
  app.post(campuses.path, { config: { access: 'internal' }, schema: { body: campuses.body, response: { 200: campuses.answer } } }, (req) =>
    campusNames(app.db, req.body.churchId, req.body.ids),
  );

  // GDPR (membership asks): a person's visits with the sessions they attended. Attendance keeps no name, contact or
  // note of a person, only their id, so anonymizing changes nothing here and every visit stays counted.
  const exportContract = gdprExport('attendance');
  app.post(exportContract.path, { config: { access: 'internal' }, schema: { body: exportContract.body, response: { 200: exportContract.answer } } }, async (req) => ({
    data: { visits: await withVisitSessions(app.db, req.body.churchId, await listVisits(app.db, req.body.churchId, req.body.personId)) },
  }));
  const anonymizeContract = gdprAnonymize('attendance');
  app.post(anonymizeContract.path, { config: { access: 'internal' }, schema: { body: anonymizeContract.body, response: { 200: anonymizeContract.answer } } }, async () => ({ changed: {} }));
}
