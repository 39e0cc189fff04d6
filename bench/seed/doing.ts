import { SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, withoutIndexes, type Exec, type StepTiming } from './exec';

const d = SHAPE.doing;
export const DOING_TABLES = ['plan_types', 'plans', 'positions', 'plan_items', 'assignments', 'blockout_dates'];
const ITEM_TYPES = ['song', 'item', 'item', 'song', 'item', 'song', 'item', 'item', 'song'];

/** True when the big church's plans are there (an earlier run seeded doing). */
export async function doingSeeded(db: Exec, churchId: string): Promise<boolean> {
  const { rows } = await db.query('select count(*)::int as n from plans where church_id = $1', [churchId]);
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * Seeds the doing database for the big church: a plan type, this Sunday's plan with 60 items (6 headers of 9
 * items each), and the autofill plans: one per day from 2030 on (so no two share a day or its lock), 40
 * positions each; candidates are 300 people in 10 teams of 30, 30 of whom have a 100-day blockout.
 */
export async function seedDoing(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const church = `pg_temp.uid('church:0')`;
  const headers = d.planItems / 10;
  await step(db, timings, 'plan types', `insert into plan_types (id, church_id, name) values (pg_temp.uid('plantype:0:0'), ${church}, 'Sunday Service')`);
  await step(db, timings, 'plans', `
    insert into plans (id, church_id, plan_type_id, name, service_date)
    select pg_temp.uid('plan:0:items'), ${church}, pg_temp.uid('plantype:0:0'), 'This Sunday', current_date
    union all
    select pg_temp.uid('plan:0:autofill:' || k), ${church}, pg_temp.uid('plantype:0:0'), 'Autofill ' || k, date '2030-01-06' + k
      from generate_series(0, ${d.autofillPlans - 1}) k`);
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
        from generate_series(0, ${d.autofillPlans - 1}) k cross join generate_series(0, ${d.positionsPerPlan - 1}) j`),
  );
  await step(db, timings, 'blockout dates', `
    insert into blockout_dates (id, church_id, person_id, start_date, end_date)
    select pg_temp.uid('blockout:0:' || b), ${church}, pg_temp.uid('person:0:' || (${d.firstCandidate} + b * ${d.candidates / d.blockedOut})),
           date '2030-01-06' + b * 100, date '2030-01-06' + b * 100 + 99
      from generate_series(0, ${d.blockedOut - 1}) b`);
  return timings;
}

/** Autofill writes assignments: a reused database starts the autofill plans empty again. */
export async function resetDoing(db: Exec, churchId: string): Promise<void> {
  await db.query(`delete from assignments where church_id = $1 and plan_id in (select id from plans where church_id = $1 and name like 'Autofill %')`, [churchId]);
}
