import { and, desc, eq, inArray, notExists, sql, type SQL } from 'drizzle-orm';
import { notFound, prepared, type DbOrTx } from '@church/common';
import { serviceTimes, sessions, visitSessions, visits } from '../db/schema';
import { slashDate } from '../lib/dates';

// Sessions: one meeting of a group, (group, service time, date).

export type SessionRow = typeof sessions.$inferSelect;

/**
 * Sessions newest first, with the service time's name and a display name: the session's UTC day written as the
 * apps recognise a date, and the time (`01/07/2024 - 9:00`; the day alone without a service time). `groupIds`
 * narrows to a leader's groups (`null`: all groups).
 */
export async function listSessions(db: DbOrTx, churchId: string, opts: { groupId?: string; groupIds: string[] | null }) {
  const conditions: SQL[] = [eq(sessions.churchId, churchId)];
  if (opts.groupId) conditions.push(eq(sessions.groupId, opts.groupId));
  if (opts.groupIds) {
    if (!opts.groupIds.length) return [];
    conditions.push(inArray(sessions.groupId, opts.groupIds));
  }
  const rows = await db
    .select({
      id: sessions.id,
      groupId: sessions.groupId,
      serviceTimeId: sessions.serviceTimeId,
      sessionDate: sessions.sessionDate,
      serviceTimeName: serviceTimes.name,
    })
    .from(sessions)
    .leftJoin(serviceTimes, and(eq(serviceTimes.id, sessions.serviceTimeId), eq(serviceTimes.churchId, churchId)))
    .where(and(...conditions))
    .orderBy(desc(sessions.sessionDate));
  return rows.map((r) => ({ ...r, displayName: [slashDate(r.sessionDate), r.serviceTimeName].filter(Boolean).join(' - ') }));
}

/** The sessions of these groups (a leader's): a condition for `crud`'s scope. */
export const ofGroups = (groupIds: string[]): SQL => (groupIds.length ? inArray(sessions.groupId, groupIds) : sql`false`);

/**
 * Deletes the given visits of the church that no longer have any visit session (spec: the visit goes with its last
 * session); answers them as they were.
 */
export async function deleteEmptyVisits(tx: DbOrTx, churchId: string, visitIds: string[]): Promise<Array<typeof visits.$inferSelect>> {
  if (!visitIds.length) return [];
  return tx
    .delete(visits)
    .where(
      and(
        eq(visits.churchId, churchId),
        inArray(visits.id, [...new Set(visitIds)]),
        notExists(tx.select({ one: sql`1` }).from(visitSessions).where(and(eq(visitSessions.churchId, churchId), eq(visitSessions.visitId, visits.id)))),
      ),
    )
    .returning();
}

/**
 * Deletes a session with its visit sessions, and the visits that attended nothing else; answers what went, as it
 * was (for the audit log).
 */
export async function deleteSession(tx: DbOrTx, churchId: string, id: string) {
  const [session] = await tx.delete(sessions).where(and(eq(sessions.churchId, churchId), eq(sessions.id, id))).returning();
  if (!session) throw notFound('Session');
  const links = await tx
    .delete(visitSessions)
    .where(and(eq(visitSessions.churchId, churchId), eq(visitSessions.sessionId, id)))
    .returning();
  return { session, links, visits: await deleteEmptyVisits(tx, churchId, links.map((r) => r.visitId)) };
}

/** The service a session's service time belongs to (`null` for a session without a service time). */
export async function serviceOfSession(db: DbOrTx, churchId: string, session: SessionRow): Promise<string | null> {
  if (!session.serviceTimeId) return null;
  const [row] = await db
    .select({ serviceId: serviceTimes.serviceId })
    .from(serviceTimes)
    .where(and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.id, session.serviceTimeId)))
    .limit(1);
  return row?.serviceId ?? null;
}

/**
 * A session and who attended it (one row per visit session, with the visit's person), in one prepared
 * statement: the session download is a hot read, and building the query cost more CPU than running it. Rows
 * are read as the driver returns them (a session of a big group has a few hundred). `sessionDate` is answered
 * as ISO text, formatted once by PostgreSQL rather than once per row by the serializer. `null` for another
 * church's or an unknown session.
 */
const attendanceOfSession = prepared<{ group_id: string; session_date: string; id: string | null; visit_id: string | null; person_id: string | null }>(sql`
  select se.group_id, to_char(se.session_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as session_date,
         l.id, l.visit_id, v.person_id
    from ${sessions} se
    left join ${visitSessions} l on l.church_id = se.church_id and l.session_id = se.id
    left join ${visits} v on v.church_id = se.church_id and v.id = l.visit_id
   where se.church_id = ${sql.placeholder('churchId')} and se.id = ${sql.placeholder('sessionId')}`);

export async function sessionAttendance(db: DbOrTx, churchId: string, sessionId: string) {
  const rows = await attendanceOfSession(db, { churchId, sessionId });
  const [first] = rows;
  if (!first) return null;
  return {
    groupId: first.group_id,
    sessionDate: first.session_date,
    // a visit session whose visit is gone attends nobody
    present: rows.flatMap((r) => (r.id && r.visit_id && r.person_id ? [{ id: r.id, visitId: r.visit_id, personId: r.person_id }] : [])),
  };
}
