import { historyStart, SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, withoutIndexes, type Exec, type StepTiming } from './exec';

const big = SHAPE.big;
const small = SHAPE.small;
const per = (bigValue: number | string, smallValue: number | string) => `(case when c = 0 then ${bigValue} else ${smallValue} end)`;
const CHURCHES = `generate_series(0, ${SHAPE.churches - 1}) c`;
const TABLES = ['campuses', 'services', 'service_times', 'group_service_times', 'sessions', 'visits', 'visit_sessions'];

/**
 * The people of a week who came, in the order a real database fills up (week by week, church by church), with
 * their home group: big church people 0..199 attend the 200-member group 0, the others groups 1..39; people
 * of a small church spread over its three groups. Service time of group g: g % serviceTimes; its service: time / 2.
 */
const ATTENDED = `(
  select w, c, i, key, home from generate_series(0, ${SHAPE.weeks - 1}) w
  cross join lateral ${CHURCHES}
  cross join lateral generate_series(0, ${per(big.people - 1, small.people - 1)}) i
  cross join lateral (select (c::bigint * 100000 + i) * 128 + w as key,
                             case when c = 0 then (case when i < ${big.downloadGroupMembers} then 0 else 1 + i % ${big.linkedGroups - 1} end)
                                  else i % ${small.linkedGroups} end as home) k
  where pg_temp.rnd(key, 21) < ${per(big.visitRate, small.visitRate)}) attended`;
/** the session of group `g` in week `w` */
const session = (g: string) => `pg_temp.uid('session:' || c || ':' || ${g} || ':' || w)`;
const visit = `pg_temp.uid('visit:' || c || ':' || i || ':' || w)`;
/** a service time's start: 9:00 for even times, 11:00 for odd ones (UTC) */
const startsAt = (time: string) => `(($1::date + 7 * w)::timestamp + make_interval(hours => case when ${time} % 2 = 0 then 9 else 11 end)) at time zone 'UTC'`;

/** Missing tables (the attendance schema is still being written): the attendance seed and scenarios are skipped. */
export async function missingAttendanceTables(db: Exec): Promise<string[]> {
  const { rows } = await db.query(`select t from unnest($1::text[]) t where to_regclass(quote_ident(t)) is null`, [TABLES]);
  return rows.map((r) => String(r.t));
}

/**
 * Seeds the attendance database: campuses, services, service times, linked groups and two years of weekly
 * sessions, visits and visit sessions (about 1M visit sessions in the big church, 3M in all).
 */
export async function seedAttendance(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const start = historyStart();
  const serviceTimes = per(big.serviceTimes, small.serviceTimes);

  await step(db, timings, 'campuses', `
    insert into campuses (id, church_id, name, city, state)
    select pg_temp.uid('campus:' || c || ':' || k), pg_temp.uid('church:' || c), 'Campus ' || (k + 1), 'Springfield', 'IL'
      from ${CHURCHES} cross join lateral generate_series(0, ${per(big.campuses - 1, small.campuses - 1)}) k`);
  await step(db, timings, 'services', `
    insert into services (id, church_id, campus_id, name)
    select pg_temp.uid('service:' || c || ':' || s), pg_temp.uid('church:' || c),
           pg_temp.uid('campus:' || c || ':' || (s % ${per(big.campuses, small.campuses)})), 'Sunday Service ' || (s + 1)
      from ${CHURCHES} cross join lateral generate_series(0, ${per(big.services - 1, small.services - 1)}) s`);
  await step(db, timings, 'service times', `
    insert into service_times (id, church_id, service_id, name)
    select pg_temp.uid('st:' || c || ':' || t), pg_temp.uid('church:' || c), pg_temp.uid('service:' || c || ':' || (t / 2)),
           case when t % 2 = 0 then '9:00 AM' else '11:00 AM' end
      from ${CHURCHES} cross join lateral generate_series(0, ${serviceTimes} - 1) t`);
  await step(db, timings, 'group service times', `
    insert into group_service_times (id, church_id, group_id, service_time_id)
    select pg_temp.uid('gst:' || c || ':' || g), pg_temp.uid('church:' || c), pg_temp.uid('group:' || c || ':' || g),
           pg_temp.uid('st:' || c || ':' || (g % ${serviceTimes}))
      from ${CHURCHES} cross join lateral generate_series(0, ${per(big.linkedGroups - 1, small.linkedGroups - 1)}) g`);
  await step(db, timings, 'sessions', `
    insert into sessions (id, church_id, group_id, service_time_id, session_date)
    select ${session('g')}, pg_temp.uid('church:' || c), pg_temp.uid('group:' || c || ':' || g),
           pg_temp.uid('st:' || c || ':' || (g % ${serviceTimes})), ${startsAt(`(g % ${serviceTimes})`)}
      from generate_series(0, ${SHAPE.weeks - 1}) w cross join lateral ${CHURCHES}
      cross join lateral generate_series(0, ${per(big.linkedGroups - 1, small.linkedGroups - 1)}) g`, [start]);

  await withoutIndexes(db, timings, ['visits', 'visit_sessions'], async () => {
    await step(db, timings, 'visits', `
      insert into visits (id, church_id, person_id, service_id, visit_date, checkin_time, created_at, updated_at)
      select ${visit}, pg_temp.uid('church:' || c), pg_temp.uid('person:' || c || ':' || i),
             pg_temp.uid('service:' || c || ':' || ((home % ${serviceTimes}) / 2)), $1::date + 7 * w,
             ${startsAt(`(home % ${serviceTimes})`)}, ${startsAt(`(home % ${serviceTimes})`)}, ${startsAt(`(home % ${serviceTimes})`)}
        from ${ATTENDED}`, [start]);
    // Every visit attends its home group's session; some also a second one (big church: the group of the
    // other service time of the same service) and, in the small churches, a third.
    await step(db, timings, 'visit sessions', `
      insert into visit_sessions (id, church_id, visit_id, session_id)
      select pg_temp.uid('vs:' || c || ':' || i || ':' || w || ':' || n), pg_temp.uid('church:' || c), ${visit}, ${session('g')}
        from ${ATTENDED}
        cross join lateral (
          select 0 as n, home as g
          union all
          select 1, case when c = 0 then (case when home # 1 = 0 then 12 else home # 1 end) else (home + 1) % ${small.linkedGroups} end
           where pg_temp.rnd(key, 22) < ${per(big.secondSessionRate, small.secondSessionRate)}
          union all
          select 2, (home + 2) % ${small.linkedGroups} where c > 0 and pg_temp.rnd(key, 23) < ${small.thirdSessionRate}
        ) s`);
  });
  return timings;
}
