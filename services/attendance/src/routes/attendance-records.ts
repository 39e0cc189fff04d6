import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, DAY_MS, Id, IsoDate, utcMidnight, type ZodTypeProvider } from '@church/common';
import { weekStart } from '../lib/dates';
import { groupFiller } from '../clients/membership';
import { placeRows } from '../repos/places';
import { groupAttendance, groupSummary, records, trend } from '../repos/records';
import { AttendanceRecord, GroupAttendanceRow, GroupSummaryRow, PlaceFilters, QueryId, TreeRow, TrendRow } from '../schemas';

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

  // The campus → service → time → groups tree, one row per service time (the apps' shape; README: "Shapes").
  app.get('/attendance/attendancerecords/tree', { config: { access: anyUser }, schema: { response: { 200: z.array(TreeRow) } } }, async (req) =>
    placeRows(app.db, req.auth.churchId, await groupFiller(app.deps.internal, req.auth.churchId)),
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

  // Each group's sessions of the last `weeks` weeks (13 by default, at most 520), up to today: sessions dated
  // from today's UTC midnight minus that many weeks to the end of today (a session dated ahead is not held yet).
  app.get(
    '/attendance/attendancerecords/groupsummary',
    {
      config: { access: requires('Attendance.View Summary') },
      schema: {
        querystring: z.object({ weeks: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int('must be a whole number of weeks').min(1, 'must be at least 1').max(520, 'must be at most 520').default(13)) }),
        response: { 200: z.array(GroupSummaryRow) },
      },
    },
    (req) => {
      const today = utcMidnight();
      const from = new Date(today.getTime() - req.query.weeks * 7 * DAY_MS);
      return groupSummary(app.db, req.auth.churchId, from, new Date(today.getTime() + DAY_MS));
    },
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
