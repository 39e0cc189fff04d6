import { historyStart, SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, textArray, withoutIndexes, type Exec, type StepTiming } from './exec';

const g = SHAPE.giving;
export const GIVING_TABLES = ['funds', 'donation_batches', 'donations', 'fund_donations', 'campaigns', 'pledges'];
const FUNDS = ['General Fund', 'Missions', 'Youth Ministry', 'Benevolence', 'Music Ministry', 'Children', 'Fellowship Meals', 'Building Campaign'];
/** Fellowship Meals is the one fund that is not tax-deductible (the summary leaves it out). */
const NOT_DEDUCTIBLE = 6;

/**
 * The gifts of the big church: week `w` (0 = five years ago), person `i` gives with probability `giveRate`;
 * the amount is skewed towards small gifts (10 to 500 dollars, in cents), the first fund is drawn by weight
 * (General half of the time, the building campaign 6%), and a fifth of the gifts are split with a second fund.
 */
const GIFTS = `(
  select w, i, key, cents, f1, f2,
         case when rs < 0.005 then 'failed' when rs < 0.01 then 'refunded' else 'complete' end as status,
         case when rm < 0.5 then 'card' when rm < 0.7 then 'ach' when rm < 0.9 then 'check' else 'cash' end as method,
         case when rm < 0.7 then floor(pg_temp.rnd(key, 45) * 7)::int else 0 end as day
    from (
      select w, i, key, 1000 + floor(power(pg_temp.rnd(key, 42), 2) * 49000)::int as cents,
             pg_temp.rnd(key, 43) as rs, pg_temp.rnd(key, 44) as rm, f1,
             case when pg_temp.rnd(key, 47) < ${g.splitRate} then (f1 + 1 + floor(pg_temp.rnd(key, 48) * ${g.funds - 1})::int) % ${g.funds} end as f2
        from generate_series(0, ${g.weeks - 1}) w
        cross join generate_series(0, ${SHAPE.big.people - 1}) i
        cross join lateral (select w::bigint * 100000 + i as key) k
        cross join lateral (select pg_temp.rnd(key, 46) as rf) r
        cross join lateral (select case when rf < 0.50 then 0 when rf < 0.64 then 1 when rf < 0.72 then 2 when rf < 0.78 then 3
                                        when rf < 0.83 then 4 when rf < 0.89 then 5 when rf < 0.94 then 6 else 7 end as f1) f
       where pg_temp.rnd(key, 41) < ${g.giveRate}
    ) drawn) gifts`;
const donation = `pg_temp.uid('donation:0:' || w || ':' || i)`;
const fund = (f: string) => `pg_temp.uid('fund:0:' || ${f})`;

/** True when the big church's funds are there (an earlier run seeded giving). */
export async function givingSeeded(db: Exec, churchId: string): Promise<boolean> {
  const { rows } = await db.query('select count(*)::int as n from funds where church_id = $1', [churchId]);
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * Seeds the giving database: 8 funds, a batch a week and five years of weekly gifts of the big church
 * (about 494,000 donations, 593,000 fund allocations), week by week.
 */
export async function seedGiving(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const start = historyStart(new Date(), g.weeks);
  await step(db, timings, 'funds', `
    insert into funds (id, church_id, name, tax_deductible)
    select ${fund('f')}, pg_temp.uid('church:0'), (${textArray(FUNDS)})[f + 1], f <> ${NOT_DEDUCTIBLE}
      from generate_series(0, ${g.funds - 1}) f`);
  await step(db, timings, 'donation batches', `
    insert into donation_batches (id, church_id, name, batch_date)
    select pg_temp.uid('batch:0:' || w), pg_temp.uid('church:0'), 'Week of ' || ($1::date + 7 * w), ($1::date + 7 * w)::timestamp at time zone 'UTC'
      from generate_series(0, ${g.weeks - 1}) w`, [start]);
  await withoutIndexes(db, timings, ['donations', 'fund_donations'], async () => {
    await step(db, timings, 'donations', `
      insert into donations (id, church_id, batch_id, person_id, donation_date, amount, method, method_details, status, created_at, updated_at)
      select ${donation}, pg_temp.uid('church:0'), pg_temp.uid('batch:0:' || w), pg_temp.uid('person:0:' || i), at,
             (cents / 100.0)::numeric(12,2), method, case when method = 'check' then (1000 + key % 9000)::text end, status, at, at
        from ${GIFTS}
        cross join lateral (select (($1::date + 7 * w + day)::timestamp + interval '10 hours') at time zone 'UTC' as at) t`, [start]);
    await step(db, timings, 'fund donations', `
      insert into fund_donations (id, church_id, donation_id, fund_id, amount, person_id)
      select pg_temp.uid('fd:0:' || w || ':' || i || ':' || n), pg_temp.uid('church:0'), ${donation}, ${fund('f')}, (part / 100.0)::numeric(12,2), pg_temp.uid('person:0:' || i)
        from ${GIFTS}
        cross join lateral (
          select 0 as n, f1 as f, case when f2 is null then cents else cents / 2 end as part
          union all
          select 1, f2, cents - cents / 2 where f2 is not null
        ) a`);
  });
  // Four campaigns as a church runs them: the building campaign's last two years (with 2,000 pledges), the general
  // fund's current year, missions over the last year and youth, open-ended, over three years.
  await step(db, timings, 'campaigns', `
    insert into campaigns (id, church_id, fund_id, name, goal_amount, start_date, end_date, show_public, allow_self_pledge)
    select pg_temp.uid('campaign:0:' || c), pg_temp.uid('church:0'), ${fund('f')}, name, goal, now()::date - back, case when open then null else now()::date + 30 end, true, c = 0
      from (values (0, 7, 'Building Campaign', 2000000.00, 730, false), (1, 0, 'General Fund ' || extract(year from now()), 3000000.00, 365, false),
                   (2, 1, 'Missions', 400000.00, 365, false), (3, 2, 'Youth', null, 1095, true)) v(c, f, name, goal, back, open)`);
  await step(db, timings, 'pledges', `
    insert into pledges (id, church_id, campaign_id, person_id, amount)
    select pg_temp.uid('pledge:0:' || i), pg_temp.uid('church:0'), pg_temp.uid('campaign:0:0'), pg_temp.uid('person:0:' || i),
           (500 + floor(pg_temp.rnd(i, 49) * 45) * 100)::numeric(12,2)
      from generate_series(0, ${g.pledgers - 1}) i`);
  return timings;
}
