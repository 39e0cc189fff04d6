import { sql } from 'drizzle-orm';
import { prepared, type DbOrTx } from '@church/common';
import { serviceTimes, services, sessions, visitSessions, visits } from '../db/schema';

// The check-in is one statement, whatever the number of people: arrays, not loops, because a kiosk submits a
// household at a time and a busy Sunday submits many at once. On this stack each round trip to PostgreSQL
// costs more CPU than the rows it carries, and a statement is atomic by itself (no BEGIN/COMMIT trips).

/** A named parameter of the statement, cast to its type (arrays are one bind value each). */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

export interface CheckinInput {
  churchId: string;
  serviceId: string;
  /** today (UTC): the visits' date */
  day: string;
  /** today's UTC midnight: the sessions' date */
  sessionDate: string;
  at: string;
  userId: string;
  /** everyone whose visit at the service today the submission replaces */
  scope: string[];
  /** false when a submitted person is no live person of the church (membership said so): nothing is written */
  peopleKnown: boolean;
  /** the submitted people in body order, with the id a new visit of theirs takes */
  people: Array<{ personId: string; newVisitId: string }>;
  /** the wanted (group, service time) pairs, each with the id a new session takes */
  keys: Array<{ groupId: string; serviceTimeId: string; newSessionId: string }>;
  /** the people's wanted sessions: `item` indexes `people` (from 1), with the id a new visit session takes */
  links: Array<{ item: number; groupId: string; serviceTimeId: string; newLinkId: string }>;
}

type Unused = { session_id: null; group_id: null; service_time_id: null };
export type CheckinRow =
  | ({ kind: 'service'; id: string; item: null } & Unused)
  /** a live time of the service, answered only when the submission was refused */
  | ({ kind: 'time'; id: string; item: null } & Unused)
  /** the submission was valid and written */
  | ({ kind: 'written'; id: null; item: null } & Unused)
  | ({ kind: 'visit'; id: string; item: number } & Unused)
  /** a visit session of the person `item`: kept ones first (oldest first), then new ones in body order */
  | { kind: 'link'; id: string; item: number; session_id: string; group_id: string; service_time_id: string };

/*
 * Reads and writes in one statement of data-modifying CTEs (they all see the statement's snapshot). Every
 * write is gated on `valid`: a live service of the church, only its live service times, each person once, every
 * person one of the church's (`peopleKnown`, checked with membership before the statement) — a
 * refused submission writes nothing and answers the service's times so the caller can name the bad fields.
 * The people's visits of the day are probed through the unique (church, person, date, service) index and the
 * service kept afterwards (`day_visits` is materialised): with the service in the probe, the generic plan of
 * the prepared statement prefers the (church, service, date) index and filters a whole busy Sunday.
 * A session another kiosk created after this statement's snapshot is taken over through ON CONFLICT DO UPDATE
 * (which answers the existing row; DO NOTHING would answer nothing). The `visit_counts` row the visits
 * triggers move stays locked only for the end of this statement and its commit.
 */
const checkinStatement = prepared<CheckinRow>(sql`
  with service as (
    select s.id from ${services} s where s.church_id = ${p('churchId', 'uuid')} and s.id = ${p('serviceId', 'uuid')} and not s.removed),
  times as (
    select t.id from ${serviceTimes} t join service s on t.service_id = s.id
     where t.church_id = ${p('churchId', 'uuid')} and not t.removed),
  valid as (
    select exists (select from service)
       and not exists (select from unnest(${p('linkTimes', 'uuid[]')}) w(id) where w.id not in (select id from times))
       and (select count(distinct x) = count(*) from unnest(${p('people', 'uuid[]')}) x)
       and ${p('peopleKnown', 'boolean')} as ok),
  found_sessions as (
    select se.id, k.group_id, k.service_time_id
      from unnest(${p('keyGroups', 'uuid[]')}, ${p('keyTimes', 'uuid[]')}) k(group_id, service_time_id)
      join ${sessions} se on se.church_id = ${p('churchId', 'uuid')} and se.group_id = k.group_id
                         and se.service_time_id = k.service_time_id and se.session_date = ${p('sessionDate', 'timestamptz')}),
  new_sessions as (
    insert into ${sessions} as s (id, church_id, group_id, service_time_id, session_date)
    select k.id, ${p('churchId', 'uuid')}, k.group_id, k.service_time_id, ${p('sessionDate', 'timestamptz')}
      from unnest(${p('keyIds', 'uuid[]')}, ${p('keyGroups', 'uuid[]')}, ${p('keyTimes', 'uuid[]')}) k(id, group_id, service_time_id)
     where (select ok from valid)
       and not exists (select from found_sessions f where f.group_id = k.group_id and f.service_time_id = k.service_time_id)
    on conflict (church_id, group_id, service_time_id, session_date) do update set updated_at = s.updated_at
    returning s.id, s.group_id, s.service_time_id),
  day_sessions as (select * from found_sessions union all select * from new_sessions),
  day_visits as materialized (
    select v.id, v.person_id, v.service_id from ${visits} v
     where v.church_id = ${p('churchId', 'uuid')} and v.person_id = any(${p('scope', 'uuid[]')}) and v.visit_date = ${p('day', 'date')}),
  prior as (select id, person_id from day_visits where service_id = ${p('serviceId', 'uuid')}),
  prior_links as (
    select l.id, l.visit_id, l.session_id, l.created_at
      from prior v join ${visitSessions} l on l.church_id = ${p('churchId', 'uuid')} and l.visit_id = v.id),
  items as (
    select i.item, coalesce(v.id, i.new_id) as visit_id, i.person_id, v.id is not null as kept
      from unnest(${p('people', 'uuid[]')}, ${p('visitIds', 'uuid[]')}) with ordinality i(person_id, new_id, item)
      left join prior v on v.person_id = i.person_id),
  wanted as (
    select w.ord, w.item, i.visit_id, se.id as session_id, w.group_id, w.service_time_id,
           coalesce(pl.id, w.new_id) as id, pl.id is not null as kept, pl.created_at
      from unnest(${p('linkItems', 'int[]')}, ${p('linkGroups', 'uuid[]')}, ${p('linkTimes', 'uuid[]')}, ${p('linkIds', 'uuid[]')})
             with ordinality w(item, group_id, service_time_id, new_id, ord)
      join items i on i.item = w.item
      join day_sessions se on se.group_id = w.group_id and se.service_time_id = w.service_time_id
      left join prior_links pl on pl.visit_id = i.visit_id and pl.session_id = se.id),
  touched as (
    update ${visits} set checkin_time = ${p('at', 'timestamptz')}, added_by = ${p('userId', 'uuid')}, updated_at = ${p('at', 'timestamptz')}
     where church_id = ${p('churchId', 'uuid')} and id in (select visit_id from items where kept) and (select ok from valid)),
  created as (
    insert into ${visits} (id, church_id, person_id, service_id, visit_date, checkin_time, added_by)
    select visit_id, ${p('churchId', 'uuid')}, person_id, ${p('serviceId', 'uuid')}, ${p('day', 'date')}, ${p('at', 'timestamptz')}, ${p('userId', 'uuid')}
      from items where not kept and (select ok from valid)),
  dropped as (
    delete from ${visits} where church_id = ${p('churchId', 'uuid')} and (select ok from valid)
       and id in (select id from prior where person_id not in (select person_id from items))),
  unlinked as (
    delete from ${visitSessions} where church_id = ${p('churchId', 'uuid')} and (select ok from valid)
       and id in (select id from prior_links where id not in (select id from wanted where kept))),
  linked as (
    insert into ${visitSessions} (id, church_id, visit_id, session_id)
    select id, ${p('churchId', 'uuid')}, visit_id, session_id from wanted where not kept and (select ok from valid))
  select 'service' as kind, id, null::int as item, null::uuid as session_id, null::uuid as group_id, null::uuid as service_time_id,
         null::boolean as kept, null::timestamptz as at, null::bigint as ord from service
  union all select 'time', id, null, null, null, null, null, null, null from times where not (select ok from valid)
  union all select 'written', null, null, null, null, null, null, null, null from valid where ok
  union all select 'visit', visit_id, item::int, null, null, null, null, null, null from items where (select ok from valid)
  union all select 'link', id, item, session_id, group_id, service_time_id, kept, created_at, ord from wanted where (select ok from valid)
  order by kind, item, kept desc, at, ord`);

/** Runs the check-in statement: the rows say whether it was written and, when it was, what. */
export function runCheckin(db: DbOrTx, input: CheckinInput): Promise<CheckinRow[]> {
  return checkinStatement(db, {
    churchId: input.churchId,
    serviceId: input.serviceId,
    day: input.day,
    sessionDate: input.sessionDate,
    at: input.at,
    userId: input.userId,
    scope: input.scope,
    peopleKnown: input.peopleKnown,
    people: input.people.map((x) => x.personId),
    visitIds: input.people.map((x) => x.newVisitId),
    keyIds: input.keys.map((k) => k.newSessionId),
    keyGroups: input.keys.map((k) => k.groupId),
    keyTimes: input.keys.map((k) => k.serviceTimeId),
    linkItems: input.links.map((l) => l.item),
    linkGroups: input.links.map((l) => l.groupId),
    linkTimes: input.links.map((l) => l.serviceTimeId),
    linkIds: input.links.map((l) => l.newLinkId),
  });
}
