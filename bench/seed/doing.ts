import { SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, withoutIndexes, type Exec, type StepTiming } from './exec';

const d = SHAPE.doing;
export const DOING_TABLES = ['plan_types', 'plans', 'positions', 'plan_items', 'assignments', 'blockout_dates'];
const ITEM_TYPES = ['song', 'item', 'item', 'song', 'item', 'song', 'item', 'item', 'song'];

/** The first autofill plan's day; the history's weeks end the day before. */
const AUTOFILL_FROM = `date '2030-01-06'`;
/** Weeks of served history before the autofill plans (a plan every Sunday, its positions filled from their teams). */
const HISTORY_WEEKS = 104;

/**
 * True when the big church's plans are there with the served history (an earlier run seeded doing as it is
 * now). A database seeded before the history existed answers false: `seedDoing` then seeds it again.
 */
export async function doingSeeded(db: Exec, churchId: string): Promise<boolean> {
  const { rows } = await db.query(
    `select (select count(*) from plans where church_id = $1)::int as plans,
            (select count(*) from plans p join assignments a on a.church_id = p.church_id and a.plan_id = p.id
              where p.church_id = $1 and p.name like 'Week %')::int as served`,
    [churchId],
  );
  return Number(rows[0]?.plans ?? 0) > 0 && Number(rows[0]?.served ?? 0) > 0;
}

/**
 * Seeds the doing database for the big church: a plan type, this Sunday's plan with 60 items (6 headers of 9
 * items each), and the autofill plans: one per day from 2030 on (so no two share a day or its lock), 40
 * positions each; candidates are 300 people in 10 teams of 30, 30 of whom have a 100-day blockout.
 *
 * Before the autofill plans, two years of served history, as a church that schedules its volunteers has: a
 * plan every Sunday with the same 40 positions, each filled from its team in rotation (position j of week w:
 * member (4w + ⌊j/10⌋ + ⌊w/26⌋) mod 30 of team j mod 10, so nobody serves twice on a day and the load moves a
 * little each half-year); 8% of the slots were left open, 10% of the assignments declined, 5% never answered,
 * each asked three weeks before its Sunday.
 * Autofill's even spread reads these (the plans of the last 90 days before the first autofill plans), and the
 * planner has the statistics of a real `assignments` table rather than of an empty one.
 *
 * Starts by removing whatever an older seed left for the church, so a database seeded before the history is
 * seeded again in place (the seed runs in one transaction).
 */
export async function seedDoing(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const church = `pg_temp.uid('church:0')`;
  for (const table of [...DOING_TABLES].reverse()) await db.query(`delete from ${table} where church_id = ${church}`);
  const headers = d.planItems / 10;
  const perTeam = d.candidates / d.teams;
  await step(db, timings, 'plan types', `insert into plan_types (id, church_id, name) values (pg_temp.uid('plantype:0:0'), ${church}, 'Sunday Service')`);
  await step(db, timings, 'plans', `
    insert into plans (id, church_id, plan_type_id, name, service_date)
    select pg_temp.uid('plan:0:items'), ${church}, pg_temp.uid('plantype:0:0'), 'This Sunday', current_date
    union all
    select pg_temp.uid('plan:0:autofill:' || k), ${church}, pg_temp.uid('plantype:0:0'), 'Autofill ' || k, ${AUTOFILL_FROM} + k
      from generate_series(0, ${d.autofillPlans - 1}) k
    union all
    select pg_temp.uid('plan:0:week:' || w), ${church}, pg_temp.uid('plantype:0:0'), 'Week ' || w, ${AUTOFILL_FROM} - 7 * (${HISTORY_WEEKS} - w)
      from generate_series(0, ${HISTORY_WEEKS - 1}) w`);
  await step(db, timings, 'plan items', `
    insert into plan_items (id, church_id, plan_id, parent_id, sort, item_type, label, description, seconds)
    select pg_temp.uid('planitem:0:' || h), ${church}, pg_temp.uid('plan:0:items'), null, h, 'header', 'Section ' || (h + 1), null, null
      from generate_series(0, ${headers - 1}) h
    union all
    select pg_temp.uid('planitem:0:' || h || ':' || j), ${church}, pg_temp.uid('plan:0:items'), pg_temp.uid('planitem:0:' || h), j,
           (${`array[${ITEM_TYPES.map((t) => `'${t}'`).join(',')}]`})[1 + j], 'Item ' || (h + 1) || '.' || (j + 1), 'Notes for item ' || j, 120 + 30 * j
      from generate_series(0, ${headers - 1}) h cross join generate_series(0, 8) j`);
  await withoutIndexes(db, timings, ['positions'], () =>
    step(db, timings, 'positions', `
      insert into positions (id, church_id, plan_id, category_name, name, count)
      select pg_temp.uid('position:0:' || k || ':' || j), ${church}, pg_temp.uid('plan:0:autofill:' || k), 'Team ' || (j % ${d.teams}), 'Position ' || j, 1
        from generate_series(0, ${d.autofillPlans - 1}) k cross join generate_series(0, ${d.positionsPerPlan - 1}) j
      union all
      select pg_temp.uid('position:0:week:' || w || ':' || j), ${church}, pg_temp.uid('plan:0:week:' || w), 'Team ' || (j % ${d.teams}), 'Position ' || j, 1
        from generate_series(0, ${HISTORY_WEEKS - 1}) w cross join generate_series(0, ${d.positionsPerPlan - 1}) j`),
  );
  await step(db, timings, 'served history', `
    insert into assignments (id, church_id, plan_id, position_id, person_id, status, created_at, updated_at)
    select pg_temp.uid('assignment:0:week:' || w || ':' || j), ${church}, pg_temp.uid('plan:0:week:' || w), pg_temp.uid('position:0:week:' || w || ':' || j),
           pg_temp.uid('person:0:' || (${d.firstCandidate} + (j % ${d.teams}) * ${perTeam} + (4 * w + j / ${d.teams} + w / 26) % ${perTeam})),
           case when r.v < 0.10 then 'Declined' when r.v < 0.15 then 'Unconfirmed' else 'Accepted' end,
           r.asked, r.asked
      from generate_series(0, ${HISTORY_WEEKS - 1}) w
     cross join generate_series(0, ${d.positionsPerPlan - 1}) j
     cross join lateral (select pg_temp.rnd(w * ${d.positionsPerPlan} + j, 19) as v, (${AUTOFILL_FROM} - 7 * (${HISTORY_WEEKS} - w) - 21)::timestamptz as asked) r
     where pg_temp.rnd(w * ${d.positionsPerPlan} + j, 23) >= 0.08`);
  await step(db, timings, 'blockout dates', `
    insert into blockout_dates (id, church_id, person_id, start_date, end_date)
    select pg_temp.uid('blockout:0:' || b), ${church}, pg_temp.uid('person:0:' || (${d.firstCandidate} + b * ${d.candidates / d.blockedOut})),
           ${AUTOFILL_FROM} + b * 100, ${AUTOFILL_FROM} + b * 100 + 99
      from generate_series(0, ${d.blockedOut - 1}) b`);
  return timings;
}

/** Autofill writes assignments: a reused database starts the autofill plans empty again. */
export async function resetDoing(db: Exec, churchId: string): Promise<void> {
  await db.query(`delete from assignments where church_id = $1 and plan_id in (select id from plans where church_id = $1 and name like 'Autofill %')`, [churchId]);
}
