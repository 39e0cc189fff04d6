import { sql } from 'drizzle-orm';
import { prepared, type DbOrTx } from '@church/common';
import { serviceTimes, services, sessions, visitSessions, visits } from '../db/schema';

// The check-in is one statement, whatever the number of people: arrays, not loops, because a kiosk submits a
// household at a time and a busy Sunday submits many at once. On this stack each round trip to PostgreSQL
// costs more CPU than the rows it carries, and a statement is atomic by itself (no BEGIN/COMMIT trips).

/** A named parameter of the statement, cast to its type (arrays are one bind value each). */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

/** An array parameter as PostgreSQL's array text: ids (UUIDs, validated by the route) and numbers need no quoting. */
const arrayText = (values: ReadonlyArray<string | number>) => `{${values.join(',')}}`;

export interface CheckinInput {
  churchId: string;
  serviceId: string;
  /** today (UTC): the visits' date */
  day: string;
  /** today's UTC midnight: the sessions' date */
  sessionDate: string;
  at: string;
  userId: string;
  /** everyone whose visit at the service today the submission replaces, the submitted people included */
  scope: string[];
  /** false when a submitted person is no live person of the church (membership said so): nothing is written */
  peopleKnown: boolean;
  /** the submitted people in body order */
  people: string[];
  /** the wanted (group, service time) pairs, each once */
  keys: Array<{ groupId: string; serviceTimeId: string }>;
  /** the people's wanted sessions: `item` indexes `people` and `key` indexes `keys` (both from 1) */
  links: Array<{ item: number; key: number }>;
}

/**
 * What the statement answers, in one row: whether the service is a live one of the church, whether the
 * submission was valid and written; when it was not, the live times of the service (so the caller can name
 * the bad fields); when it was, each person's visit id in body order and their visit sessions as
 * `[item, id, sessionId, key]`, a person's kept ones first (oldest first), then new ones in body order.
 */
export interface CheckinAnswer {
  service: boolean;
  written: boolean;
  times: string[] | null;
  visits: string[] | null;
  links: Array<[item: number, id: string, sessionId: string, key: number]> | null;
  /** when written: the sessions it created (not those another kiosk created first), for their `session.created` events */
  sessions: Array<[id: string, groupId: string, serviceTimeId: string]> | null;
}

/*
 * Reads and writes in one statement of data-modifying CTEs (they all see the statement's snapshot). Every
 * write is gated on `valid`: a live service of the church, only its live service times, each person once, every
 * person one of the church's (`peopleKnown`, checked with membership before the statement) — a
 * refused submission writes nothing and answers the service's times so the caller can name the bad fields.
 * New ids (visits, sessions, visit sessions) are drawn here (`gen_random_uuid()`, in materialized CTEs, so
 * each row's id is drawn once), and arrays travel as array text: the bind message carries the ids once and
 * the driver does not quote element by element. The answer is one row of JSON (the driver parses it once)
 * rather than a row per visit and link.
 * The people's visits of the day are probed through the unique (church, person, date, service) index and the
 * service kept afterwards (`day_visits` is materialised): with the service in the probe, the generic plan of
 * the prepared statement prefers the (church, service, date) index and filters a whole busy Sunday. The update
 * of the kept visits (`touched`) finds them the same way, again through the unique index (the pages the read
 * just visited, rather than ten probes of the primary key's random pages), its service test written so that
 * no index can take it (`is true`); a visit another statement moved meanwhile is rechecked against it and left.
 * A session another kiosk created after this statement's snapshot is taken over through ON CONFLICT DO UPDATE
 * (which answers the existing row; DO NOTHING would answer nothing). The `visit_counts` row the visits
 * triggers move is this connection's own slot of the key (migration 0003), so concurrent check-ins at one
 * service do not wait for each other's commit.
 * The sessions it inserted (`xmax = 0`: not one another kiosk inserted first) are answered for their events.
 * A submission of everyone in scope (a whole household, the kiosk's usual case) can drop no visit, and its
 * statement has no delete of visits: a delete fires the visits' statement trigger even when it deletes
 * nothing (measured: 0.05 to 0.1 ms of backend CPU per check-in, of 0.55 to 0.6 ms).
 */
const checkinStatement = (drops: boolean) => prepared<CheckinAnswer>(sql`
  with service as (
    select s.id from ${services} s where s.church_id = ${p('churchId', 'uuid')} and s.id = ${p('serviceId', 'uuid')} and not s.removed),
  times as (
    select t.id from ${serviceTimes} t join service s on t.service_id = s.id
     where t.church_id = ${p('churchId', 'uuid')} and not t.removed),
  keys as (
    select k.group_id, k.service_time_id, k.key
      from unnest(${p('keyGroups', 'uuid[]')}, ${p('keyTimes', 'uuid[]')}) with ordinality k(group_id, service_time_id, key)),
  valid as (
    select exists (select from service)
       and not exists (select from keys k where k.service_time_id not in (select id from times))
       and (select count(distinct x) = count(*) from unnest(${p('people', 'uuid[]')}) x)
       and ${p('peopleKnown', 'boolean')} as ok),
  found_sessions as (
    select se.id, k.group_id, k.service_time_id
      from keys k
      join ${sessions} se on se.church_id = ${p('churchId', 'uuid')} and se.group_id = k.group_id
                         and se.service_time_id = k.service_time_id and se.session_date = ${p('sessionDate', 'timestamptz')}),
  new_sessions as (
    insert into ${sessions} as s (id, church_id, group_id, service_time_id, session_date)
    select gen_random_uuid(), ${p('churchId', 'uuid')}, k.group_id, k.service_time_id, ${p('sessionDate', 'timestamptz')}
      from keys k
     where (select ok from valid)
       and not exists (select from found_sessions f where f.group_id = k.group_id and f.service_time_id = k.service_time_id)
    on conflict (church_id, group_id, service_time_id, session_date) do update set updated_at = s.updated_at
    returning s.id, s.group_id, s.service_time_id, s.xmax = 0 as inserted),
  day_sessions as (select id, group_id, service_time_id from found_sessions union all select id, group_id, service_time_id from new_sessions),
  day_visits as materialized (
    select v.id, v.person_id, v.service_id from ${visits} v
     where v.church_id = ${p('churchId', 'uuid')} and v.person_id = any(${p('scope', 'uuid[]')}) and v.visit_date = ${p('day', 'date')}),
  prior as (select id, person_id from day_visits where service_id = ${p('serviceId', 'uuid')}),
  prior_links as (
    select l.id, l.visit_id, l.session_id, l.created_at
      from prior v join ${visitSessions} l on l.church_id = ${p('churchId', 'uuid')} and l.visit_id = v.id),
  items as materialized (
    select i.item, coalesce(v.id, gen_random_uuid()) as visit_id, i.person_id, v.id is not null as kept
      from unnest(${p('people', 'uuid[]')}) with ordinality i(person_id, item)
      left join prior v on v.person_id = i.person_id),
  wanted as materialized (
    select w.ord, w.item, w.key, i.visit_id, se.id as session_id, coalesce(pl.id, gen_random_uuid()) as id, pl.id is not null as kept, pl.created_at
      from unnest(${p('linkItems', 'int[]')}, ${p('linkKeys', 'int[]')}) with ordinality w(item, key, ord)
      join items i on i.item = w.item
      join keys k on k.key = w.key
      join day_sessions se on se.group_id = k.group_id and se.service_time_id = k.service_time_id
      left join prior_links pl on pl.visit_id = i.visit_id and pl.session_id = se.id),
  touched as (
    update ${visits} set checkin_time = ${p('at', 'timestamptz')}, added_by = ${p('userId', 'uuid')}, updated_at = ${p('at', 'timestamptz')}
     where church_id = ${p('churchId', 'uuid')} and person_id = any(${p('people', 'uuid[]')}) and visit_date = ${p('day', 'date')}
       and (service_id = ${p('serviceId', 'uuid')}) is true and (select ok from valid)),
  created as (
    insert into ${visits} (id, church_id, person_id, service_id, visit_date, checkin_time, added_by)
    select visit_id, ${p('churchId', 'uuid')}, person_id, ${p('serviceId', 'uuid')}, ${p('day', 'date')}, ${p('at', 'timestamptz')}, ${p('userId', 'uuid')}
      from items where not kept and (select ok from valid)),
  ${drops ? sql`dropped as (
    delete from ${visits} where church_id = ${p('churchId', 'uuid')} and (select ok from valid)
       and id in (select id from prior where person_id not in (select person_id from items))),` : sql``}
  unlinked as (
    delete from ${visitSessions} where church_id = ${p('churchId', 'uuid')} and (select ok from valid)
       and id in (select id from prior_links where id not in (select id from wanted where kept))),
  linked as (
    insert into ${visitSessions} (id, church_id, visit_id, session_id)
    select id, ${p('churchId', 'uuid')}, visit_id, session_id from wanted where not kept and (select ok from valid))
  select exists (select from service) as service,
         v.ok as written,
         case when not v.ok then (select coalesce(json_agg(id), '[]') from times) end as times,
         case when v.ok then (select json_agg(visit_id order by item) from items) end as visits,
         case when v.ok then (select coalesce(json_agg(json_build_array(item, id, session_id, key) order by item, kept desc, created_at, ord), '[]') from wanted) end as links,
         case when v.ok then (select coalesce(json_agg(json_build_array(id, group_id, service_time_id)), '[]') from new_sessions where inserted) end as sessions
    from valid v`);
const withDrops = checkinStatement(true);
const withoutDrops = checkinStatement(false);

/** Runs the check-in statement: its one row says whether it was written and, when it was, what. */
export async function runCheckin(db: DbOrTx, input: CheckinInput): Promise<CheckinAnswer> {
    // someone in scope is not submitted (their visit is dropped); scope holds everyone submitted
  const drops = input.scope.length > new Set(input.people).size;
  const [answer] = await (drops ? withDrops : withoutDrops)(db, {
    churchId: input.churchId,
    serviceId: input.serviceId,
    day: input.day,
    sessionDate: input.sessionDate,
    at: input.at,
    userId: input.userId,
    scope: arrayText(input.scope),
    peopleKnown: input.peopleKnown,
    people: arrayText(input.people),
    keyGroups: arrayText(input.keys.map((k) => k.groupId)),
    keyTimes: arrayText(input.keys.map((k) => k.serviceTimeId)),
    linkItems: arrayText(input.links.map((l) => l.item)),
    linkKeys: arrayText(input.links.map((l) => l.key)),
  });
  return answer!;
}
