import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IsoDate, badRequest, type ZodTypeProvider } from '@church/common';
import { weekStart } from '../domain/dates';
import { groupFiller } from '../domain/membership';
import { placeTree } from '../repos/places';
import { groupAttendance, records, trend } from '../repos/records';
import { AttendanceRecord, GroupAttendanceRow, PlaceFilters, QueryId, TreeCampus, TrendRow } from '../schemas';

const view = requires('Attendance.View');
const Records = z.array(AttendanceRecord);

/** `/attendance/attendancerecords` (read-only): a person's records, the place tree, the weekly trend, searches. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/attendancerecords',
    { config: { access: view }, schema: { querystring: z.object({ personId: Id }), response: { 200: Records } } },
    (req) => records(app.db, req.auth.churchId, { personId: req.query.personId }),
  );

  app.get('/attendance/attendancerecords/tree', { config: { access: anyUser }, schema: { response: { 200: z.array(TreeCampus) } } }, async (req) =>
    placeTree(app.db, req.auth.churchId, await groupFiller(app.deps.internal, req.auth.churchId)),
  );

  app.get(
    '/attendance/attendancerecords/trend',
    { config: { access: requires('Attendance.View Summary') }, schema: { querystring: PlaceFilters, response: { 200: z.array(TrendRow) } } },
    async (req) => (await trend(app.db, req.auth.churchId, req.query)).map((r) => ({ week: r.week, count: r.count, visits: r.count })),
  );

  app.get(
    '/attendance/attendancerecords/groups',
    {
      config: { access: view },
      schema: { querystring: z.object({ serviceId: QueryId, week: IsoDate }), response: { 200: z.array(GroupAttendanceRow) } },
    },
    // Any day of the week names the week (Sunday start).
    (req) => groupAttendance(app.db, req.auth.churchId, weekStart(req.query.week), req.query.serviceId),
  );

  app.get(
    '/attendance/attendancerecords/search',
    {
      config: { access: view },
      schema: { querystring: PlaceFilters.extend({ startDate: IsoDate, endDate: IsoDate }), response: { 200: Records } },
    },
    (req) => {
      const { startDate, endDate, ...filter } = req.query;
      if (endDate < startDate) throw badRequest('endDate', 'must not be before startDate', 'query');
      return records(app.db, req.auth.churchId, { filter, startDate, endDate });
    },
  );
}
