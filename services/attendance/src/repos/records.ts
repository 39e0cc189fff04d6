import { and, asc, desc, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { DAY_MS, prepared, type DbOrTx } from '@church/common';
import { campuses, groupServiceTimes, serviceTimes, services, sessions, visitCounts, visitSessions, visits } from '../db/schema';

// Attendance reports: read-only queries over visits, each one statement served by indexes leading with church_id.

export interface PlaceFilter {
  campusId?: string;
  serviceId?: string;
  serviceTimeId?: string;
  groupId?: string;
  /** several groups (a category resolved by membership) */
  groupIds?: string[];
}

/** The Sunday starting a visit's week: `visit_date - dow` days (a `date`, so no time zone enters). */
const weekOf = sql<Date>`(${visits.visitDate} - extract(dow from ${visits.visitDate})::int)`.mapWith(visits.visitDate);

/**
 * Conditions on `visits` for the place filters; an absent filter means "all". Service and campus read the
 * visit's own service (campus through the few services of that campus); service time and group go through
 * the sessions the visit attended, as a semi-join so a visit with two matching sessions still counts once.
 */
export function visitConditions(db: DbOrTx, churchId: string, f: PlaceFilter): SQL[] {
  const out: SQL[] = [eq(visits.churchId, churchId)];
  if (f.serviceId) out.push(eq(visits.serviceId, f.serviceId));
  if (f.campusId) {
    const ofCampus = db.select({ id: services.id }).from(services).where(and(eq(services.churchId, churchId), eq(services.campusId, f.campusId)));
    out.push(inArray(visits.serviceId, ofCampus));
  }
  if (f.serviceTimeId || f.groupId || f.groupIds) {
    const bySession: SQL[] = [eq(visitSessions.churchId, churchId)];
    if (f.serviceTimeId) bySession.push(eq(sessions.serviceTimeId, f.serviceTimeId));
    if (f.groupId) bySession.push(eq(sessions.groupId, f.groupId));
    if (f.groupIds) bySession.push(f.groupIds.length ? inArray(sessions.groupId, f.groupIds) : sql`false`);
    const attended = db
      .select({ id: visitSessions.visitId })
      .from(visitSessions)
      .innerJoin(sessions, and(eq(sessions.id, visitSessions.sessionId), eq(sessions.churchId, churchId)))
      .where(and(...bySession));
    out.push(inArray(visits.id, attended));
  }
  return out;
}

/** A `date` expression as the spec's date text, `2026-11-22` (formatted by PostgreSQL, whatever its DateStyle). */
const asDay = (day: SQL) => sql<string>`to_char(${day}, 'YYYY-MM-DD')`;

/**
 * Visits per Sunday-start week (`week` is the Sunday as `YYYY-MM-DD`), oldest first, in one statement. Without a session filter it sums the
 * per-(service, date) counts that triggers keep in `visit_counts` (a few slot rows per service and day,
 * whatever the number of visits), so its cost does not grow with the church's attendance; a key whose count
 * went back to zero adds nothing, and a week whose sum is zero is left out, as a week without visits would be.
 */
export function trend(db: DbOrTx, churchId: string, f: PlaceFilter) {
  if (f.groupId || f.serviceTimeId || f.groupIds) return sessionTrend(db, churchId, f);
  const conditions: SQL[] = [eq(visitCounts.churchId, churchId)];
  if (f.serviceId) conditions.push(eq(visitCounts.serviceId, f.serviceId));
  if (f.campusId) {
    const ofCampus = db.select({ id: services.id }).from(services).where(and(eq(services.churchId, churchId), eq(services.campusId, f.campusId)));
    conditions.push(inArray(visitCounts.serviceId, ofCampus));
  }
  const week = sql`(${visitCounts.visitDate} - extract(dow from ${visitCounts.visitDate})::int)`;
  const total = sql`sum(${visitCounts.visits})`;
  return db
    .select({ week: asDay(week), count: sql<number>`${total}::int`.mapWith(Number) })
    .from(visitCounts)
    .where(and(...conditions))
    .groupBy(week)
    .having(sql`${total} <> 0`)
    .orderBy(week);
}

/**
 * The trend of a group or a service time, read from the sessions side: the matching sessions (by index), their
 * visit sessions (index-only on (church_id, session_id, visit_id)), distinct visits per week of the session's
 * UTC day — a visit's sessions are on its date — so no visit row is fetched. Service and campus filters go
 * through the session's service time.
 */
function sessionTrend(db: DbOrTx, churchId: string, f: PlaceFilter) {
  const conditions: SQL[] = [eq(sessions.churchId, churchId)];
  if (f.groupId) conditions.push(eq(sessions.groupId, f.groupId));
  if (f.groupIds) conditions.push(f.groupIds.length ? inArray(sessions.groupId, f.groupIds) : sql`false`);
  if (f.serviceTimeId) conditions.push(eq(sessions.serviceTimeId, f.serviceTimeId));
  if (f.serviceId || f.campusId) {
    const place: SQL[] = [eq(serviceTimes.churchId, churchId)];
    if (f.serviceId) place.push(eq(serviceTimes.serviceId, f.serviceId));
    if (f.campusId) place.push(eq(services.campusId, f.campusId));
    const times = db
      .select({ id: serviceTimes.id })
      .from(serviceTimes)
      .innerJoin(services, and(eq(services.churchId, churchId), eq(services.id, serviceTimes.serviceId)))
      .where(and(...place));
    conditions.push(inArray(sessions.serviceTimeId, times));
  }
  const day = sql`(${sessions.sessionDate} at time zone 'UTC')::date`;
  const week = sql`(${day} - extract(dow from ${day})::int)`;
  return db
    .select({ week: asDay(week), count: sql<number>`count(distinct ${visitSessions.visitId})::int`.mapWith(Number) })
    .from(sessions)
    .innerJoin(visitSessions, and(eq(visitSessions.churchId, churchId), eq(visitSessions.sessionId, sessions.id)))
    .where(and(...conditions))
    .groupBy(week)
    .orderBy(week);
}

/** Distinct people with visits matching the filters (for membership's people queries). */
export async function peopleWithVisits(db: DbOrTx, churchId: string, f: PlaceFilter & { startDate?: Date; endDate?: Date }): Promise<string[]> {
  const conditions = visitConditions(db, churchId, f);
  if (f.startDate) conditions.push(gte(visits.visitDate, f.startDate));
  if (f.endDate) conditions.push(lte(visits.visitDate, f.endDate));
  const rows = await db.selectDistinct({ personId: visits.personId }).from(visits).where(and(...conditions)).orderBy(visits.personId);
  return rows.map((r) => r.personId);
}

/**
 * Attendance records: one row per attended session (a visit without sessions gives one row), with the
 * campus, service and service time it happened at. Names of removed places still show: history keeps them.
 */
export async function records(db: DbOrTx, churchId: string, where: { personId?: string; filter?: PlaceFilter; startDate?: Date; endDate?: Date }) {
  const conditions = visitConditions(db, churchId, where.filter ?? {});
  if (where.personId) conditions.push(eq(visits.personId, where.personId));
  if (where.startDate) conditions.push(gte(visits.visitDate, where.startDate));
  if (where.endDate) conditions.push(lte(visits.visitDate, where.endDate));
  // The session filters above select visits; the same filters on the joined session keep only matching rows.
  if (where.filter?.serviceTimeId) conditions.push(eq(sessions.serviceTimeId, where.filter.serviceTimeId));
  if (where.filter?.groupId) conditions.push(eq(sessions.groupId, where.filter.groupId));
  const rows = await db
    .select({
      visitId: visits.id,
      personId: visits.personId,
      visitDate: visits.visitDate,
      sessionId: visitSessions.sessionId,
      groupId: sessions.groupId,
      campusId: campuses.id,
      campusName: campuses.name,
      serviceId: services.id,
      serviceName: services.name,
      serviceTimeId: serviceTimes.id,
      serviceTimeName: serviceTimes.name,
    })
    .from(visits)
    .leftJoin(visitSessions, and(eq(visitSessions.churchId, churchId), eq(visitSessions.visitId, visits.id)))
    .leftJoin(sessions, and(eq(sessions.churchId, churchId), eq(sessions.id, visitSessions.sessionId)))
    .leftJoin(serviceTimes, and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.id, sessions.serviceTimeId)))
    .leftJoin(services, and(eq(services.churchId, churchId), eq(services.id, visits.serviceId)))
    .leftJoin(campuses, and(eq(campuses.churchId, churchId), eq(campuses.id, services.campusId)))
    .where(and(...conditions))
    .orderBy(desc(visits.visitDate), asc(campuses.name), asc(services.name), asc(serviceTimes.name), asc(visits.personId));
  const ref = (id: string | null, name: string | null) => (id && name !== null ? { id, name } : null);
  return rows.map((r) => ({
    visitId: r.visitId,
    personId: r.personId,
    visitDate: r.visitDate,
    sessionId: r.sessionId,
    groupId: r.groupId,
    campus: ref(r.campusId, r.campusName),
    service: ref(r.serviceId, r.serviceName),
    serviceTime: ref(r.serviceTimeId, r.serviceTimeName),
  }));
}

/** Who attended which group's session of the service (absent: every service) in the week starting `week`. */
export async function groupAttendance(db: DbOrTx, churchId: string, week: Date, serviceId?: string) {
  const conditions: SQL[] = [
    eq(sessions.churchId, churchId),
    gte(sessions.sessionDate, week),
    lt(sessions.sessionDate, new Date(week.getTime() + 7 * DAY_MS)),
  ];
  if (serviceId) conditions.push(eq(services.id, serviceId));
  return db
    .select({
      serviceId: services.id,
      serviceName: services.name,
      serviceTimeId: serviceTimes.id,
      serviceTimeName: serviceTimes.name,
      groupId: sessions.groupId,
      sessionId: sessions.id,
      sessionDate: sessions.sessionDate,
      personId: visits.personId,
    })
    .from(sessions)
    .innerJoin(serviceTimes, and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.id, sessions.serviceTimeId)))
    .innerJoin(services, and(eq(services.churchId, churchId), eq(services.id, serviceTimes.serviceId)))
    .innerJoin(visitSessions, and(eq(visitSessions.churchId, churchId), eq(visitSessions.sessionId, sessions.id)))
    .innerJoin(visits, and(eq(visits.churchId, churchId), eq(visits.id, visitSessions.visitId)))
    .where(and(...conditions))
    .orderBy(asc(services.name), asc(serviceTimes.name), asc(sessions.sessionDate), asc(sessions.groupId), asc(visits.personId));
}

/** Groups linked to live service times matching the filters (for membership's group search). */
export async function groupsAtPlaces(db: DbOrTx, churchId: string, f: Omit<PlaceFilter, 'groupId' | 'groupIds'>): Promise<string[]> {
  const conditions: SQL[] = [eq(groupServiceTimes.churchId, churchId)];
  if (f.serviceTimeId) conditions.push(eq(serviceTimes.id, f.serviceTimeId));
  if (f.serviceId) conditions.push(eq(services.id, f.serviceId));
  if (f.campusId) conditions.push(eq(services.campusId, f.campusId));
  const rows = await db
    .selectDistinct({ groupId: groupServiceTimes.groupId })
    .from(groupServiceTimes)
    .innerJoin(serviceTimes, and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.id, groupServiceTimes.serviceTimeId), eq(serviceTimes.removed, false)))
    .innerJoin(services, and(eq(services.churchId, churchId), eq(services.id, serviceTimes.serviceId), eq(services.removed, false)))
    .where(and(...conditions))
    .orderBy(groupServiceTimes.groupId);
  return rows.map((r) => r.groupId);
}

/** The Sundays starting the weeks in which the person visited, newest first (one row per attended week). */
export async function attendedWeeks(db: DbOrTx, churchId: string, personId: string): Promise<Date[]> {
  const rows = await db
    .selectDistinct({ week: weekOf })
    .from(visits)
    .where(and(eq(visits.churchId, churchId), eq(visits.personId, personId)))
    .orderBy(desc(weekOf));
  return rows.map((r) => r.week);
}

/**
 * Each group's sessions dated in `[from, to)`: how many, the visits they counted (visit sessions), the average
 * per session rounded to one decimal, and the latest session's date as ISO text, all computed by PostgreSQL in
 * one prepared statement. The sessions of the period come index-only from `sessions_church_date_group_idx`
 * (church, date, group, id), and each one's visit sessions are counted index-only on `visit_sessions_session_idx`
 * (church, session, visit): no session or visit row is fetched. Groups without a session in the period are not
 * listed (the screen shows them as "-").
 */
const groupSummaryOf = prepared<{ groupId: string; sessionCount: number; totalVisits: number; averageAttendance: number; lastSessionDate: string }>(sql`
  select se.group_id as "groupId",
         count(*)::int as "sessionCount",
         sum(att.n)::int as "totalVisits",
         round(sum(att.n)::numeric / count(*), 1)::float8 as "averageAttendance",
         to_char(max(se.session_date) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "lastSessionDate"
    from ${sessions} se
   cross join lateral (
         select count(*) as n from ${visitSessions} vs where vs.church_id = se.church_id and vs.session_id = se.id
         ) att
   where se.church_id = ${sql.placeholder('churchId')}
     and se.session_date >= ${sql.placeholder('from')}
     and se.session_date < ${sql.placeholder('to')}
   group by se.group_id
   order by se.group_id`);

export function groupSummary(db: DbOrTx, churchId: string, from: Date, to: Date) {
  return groupSummaryOf(db, { churchId, from: from.toISOString(), to: to.toISOString() });
}
