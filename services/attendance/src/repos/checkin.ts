import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '@church/common';
import { serviceTimes, services, sessions, visitSessions, visits } from '../db/schema';

// The check-in's two statements: one read (the service, its times, the sessions and today's visits) and one
// write (everything at once), whatever the number of people: arrays, not loops, because a kiosk submits a
// household at a time and a busy Sunday submits many at once. On this stack each round trip to PostgreSQL
// costs more CPU than the rows it carries.

/** A UUID array parameter (one bind value, so the statement text and its prepared plan stay the same). */
const uuids = (values: string[]) => sql`${sql.param(values)}::uuid[]`;
/** An instant as a timestamptz parameter (ISO text: no dependence on the process's time zone). */
const stamp = (at: Date) => sql`${at.toISOString()}::timestamptz`;
/** A UTC day as a date parameter. */
const day = (d: Date) => sql`${d.toISOString().slice(0, 10)}::date`;

export interface SessionKey {
  groupId: string;
  serviceTimeId: string;
}
export const sessionKey = (k: SessionKey) => `${k.groupId}|${k.serviceTimeId}`;

export interface VisitToday {
  id: string;
  personId: string;
  /** the visit's sessions, oldest link first */
  links: Array<{ id: string; sessionId: string }>;
}

export interface CheckinState {
  /** the live service times of the service; null when the church has no such live service */
  times: Set<string> | null;
  /** existing sessions on the day, by `sessionKey` */
  sessions: Map<string, string>;
  /** the people's visits at the service on the day, by person */
  visits: Map<string, VisitToday>;
}

/**
 * What a check-in needs to know, in one read: the service and its live times, the sessions of the wanted
 * (group, service time) pairs on the day, and the people's visits of the day with their visit sessions. The
 * visits are read at any service (the unique index (church, person, date, service): one probe per person) and
 * the service's are kept in code: with the service in the SQL, the generic plan of the prepared statement
 * prefers the (church, service, date) index, whose estimate knows nothing of a busy Sunday, and filters every
 * visit of the day at the service (10,000 in the bench church) instead of probing ten people.
 */
export async function readCheckinState(
  db: DbOrTx,
  q: { churchId: string; serviceId: string; day: Date; keys: SessionKey[]; personIds: string[] },
): Promise<CheckinState> {
  type Raw = { kind: 'service' | 'time' | 'session' | 'visit'; id: string; a: string | null; b: string | null; c: string | null; d: string | null };
  const rows = rowsOf<Raw>(
    await db.execute(sql`
      select 'service' as kind, s.id, null::uuid as a, null::uuid as b, null::uuid as c, null::uuid as d, null::timestamptz as at
        from ${services} s where s.church_id = ${q.churchId} and s.id = ${q.serviceId} and not s.removed
      union all
      select 'time', t.id, null, null, null, null, null
        from ${services} s join ${serviceTimes} t on t.church_id = s.church_id and t.service_id = s.id and not t.removed
       where s.church_id = ${q.churchId} and s.id = ${q.serviceId} and not s.removed
      union all
      select 'session', se.id, se.group_id, se.service_time_id, null, null, null
        from unnest(${uuids(q.keys.map((k) => k.groupId))}, ${uuids(q.keys.map((k) => k.serviceTimeId))}) as w(group_id, service_time_id)
        join ${sessions} se on se.church_id = ${q.churchId} and se.group_id = w.group_id and se.service_time_id = w.service_time_id
                           and se.session_date = ${stamp(q.day)}
      union all
      select 'visit', v.id, v.person_id, v.service_id, l.id, l.session_id, l.created_at
        from ${visits} v left join ${visitSessions} l on l.church_id = v.church_id and l.visit_id = v.id
       where v.church_id = ${q.churchId} and v.person_id = any(${uuids(q.personIds)}) and v.visit_date = ${day(q.day)}
      order by kind, at`),
  );
  const state: CheckinState = { times: null, sessions: new Map(), visits: new Map() };
  const times = new Set<string>();
  for (const r of rows) {
    if (r.kind === 'service') state.times = times;
    else if (r.kind === 'time') times.add(r.id);
    else if (r.kind === 'session') state.sessions.set(sessionKey({ groupId: r.a!, serviceTimeId: r.b! }), r.id);
    else if (r.b === q.serviceId) {
      const visit = state.visits.get(r.a!) ?? { id: r.id, personId: r.a!, links: [] };
      state.visits.set(r.a!, visit);
      if (r.c && r.d) visit.links.push({ id: r.c, sessionId: r.d });
    }
  }
  return state;
}

export interface CheckinWrites {
  churchId: string;
  serviceId: string;
  day: Date;
  at: Date;
  userId: string;
  /** sessions to create (their key may have been created meanwhile: then that session is used) */
  sessions: Array<SessionKey & { id: string }>;
  /** visits kept: their check-in time moves to `at` */
  touched: string[];
  created: Array<{ id: string; personId: string }>;
  /** visits removed (their visit sessions are in `unlinked`) */
  dropped: string[];
  unlinked: string[];
  /** new visit sessions: to a known session (`sessionId`) or to the session of `key` created above */
  linked: Array<{ id: string; visitId: string; sessionId: string | null; key: SessionKey }>;
}

/**
 * Every write of a check-in in one statement (data-modifying CTEs on distinct rows; empty arrays are no-ops),
 * so it is atomic without a transaction around it and holds its row locks (the `visit_counts` row the visits
 * triggers move among them) only while it runs, not across round trips. A session created by a concurrent
 * check-in after the read is found through ON CONFLICT DO UPDATE, which answers the existing row (DO NOTHING
 * would answer nothing, and this statement's snapshot cannot see it). Answers the created sessions' ids by key.
 */
export async function writeCheckin(tx: DbOrTx, w: CheckinWrites): Promise<Map<string, string>> {
  const rows = rowsOf<{ id: string; group_id: string; service_time_id: string }>(
    await tx.execute(sql`
      with new_sessions as (
        insert into ${sessions} as s (id, church_id, group_id, service_time_id, session_date)
        select id, ${w.churchId}::uuid, group_id, service_time_id, ${stamp(w.day)}
          from unnest(${uuids(w.sessions.map((s) => s.id))}, ${uuids(w.sessions.map((s) => s.groupId))}, ${uuids(w.sessions.map((s) => s.serviceTimeId))})
            as n(id, group_id, service_time_id)
        on conflict (church_id, group_id, service_time_id, session_date) do update set updated_at = s.updated_at
        returning id, group_id, service_time_id),
      touched as (
        update ${visits} set checkin_time = ${stamp(w.at)}, added_by = ${w.userId}::uuid, updated_at = ${stamp(w.at)}
         where church_id = ${w.churchId} and id = any(${uuids(w.touched)})),
      unlinked as (delete from ${visitSessions} where church_id = ${w.churchId} and id = any(${uuids(w.unlinked)})),
      dropped as (delete from ${visits} where church_id = ${w.churchId} and id = any(${uuids(w.dropped)})),
      linked as (
        insert into ${visitSessions} (id, church_id, visit_id, session_id)
        select l.id, ${w.churchId}::uuid, l.visit_id, coalesce(l.session_id, n.id)
          from unnest(${uuids(w.linked.map((l) => l.id))}, ${uuids(w.linked.map((l) => l.visitId))}, ${sql.param(w.linked.map((l) => l.sessionId))}::uuid[],
                      ${uuids(w.linked.map((l) => l.key.groupId))}, ${uuids(w.linked.map((l) => l.key.serviceTimeId))})
            as l(id, visit_id, session_id, group_id, service_time_id)
          left join new_sessions n on l.session_id is null and n.group_id = l.group_id and n.service_time_id = l.service_time_id),
      created as (
        insert into ${visits} (id, church_id, person_id, service_id, visit_date, checkin_time, added_by)
        select id, ${w.churchId}::uuid, person_id, ${w.serviceId}::uuid, ${day(w.day)}, ${stamp(w.at)}, ${w.userId}::uuid
          from unnest(${uuids(w.created.map((v) => v.id))}, ${uuids(w.created.map((v) => v.personId))}) as v(id, person_id))
      select id, group_id, service_time_id from new_sessions`),
  );
  return new Map(rows.map((r) => [sessionKey({ groupId: r.group_id, serviceTimeId: r.service_time_id }), r.id]));
}
