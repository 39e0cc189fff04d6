import type { QueryStringParameter, TokenParameter } from '../domain/definition';

// Parameter declarations several reports share; each report file still lists its own parameters.

/** Every report's church: from the token, never the query string. */
export const churchIdParam: TokenParameter = { keyName: 'churchId', source: 'token', claim: 'churchId' };

export const campusParam: QueryStringParameter = { keyName: 'campusId', source: 'query', displayName: 'Campus', type: 'uuid', list: 'campus' };
export const serviceParam: QueryStringParameter = { keyName: 'serviceId', source: 'query', displayName: 'Service', type: 'uuid', list: 'service' };

/** The week of a weekly report: seven days from this day (the last Sunday unless given). */
export const weekParam: QueryStringParameter = { keyName: 'week', source: 'query', displayName: 'Week', type: 'date', default: 'lastSunday' };

/** A set of ids handed from an earlier query, read back as rows: `in (select jsonb_array_elements_text($n::jsonb)::uuid)`. */
export const idsIn = (n: number) => `in (select jsonb_array_elements_text($${n}::jsonb)::uuid)`;

/** A UTC day as a `timestamptz` bound, for index range scans on UTC-midnight session dates. */
export const utcMidnight = (dayExpr: string) => `(${dayExpr})::timestamp at time zone 'UTC'`;

/**
 * Attendance's sessions in the week of `$4` (church `$1`), narrowed to service `$3` and campus `$2` when given:
 * `select` over the aliases `s` (session), `st` (service time), `sv` (service) and those `joins` adds.
 */
export const weekSessionsSql = (select: string, joins = '') => `
select ${select}
from sessions s${joins}
join service_times st on st.church_id = $1::uuid and st.id = s.service_time_id
join services sv on sv.church_id = $1::uuid and sv.id = st.service_id
where s.church_id = $1::uuid
  and s.session_date >= ${utcMidnight('$4::date')}
  and s.session_date < ${utcMidnight('$4::date + 7')}
  and ($3::uuid is null or sv.id = $3::uuid)
  and ($2::uuid is null or sv.campus_id = $2::uuid)`;

/**
 * Giving's counted donations: completed ones (pending bank debits, failed and refunded gifts are not income yet
 * or any more), on UTC days from `$from` to `$to` inclusive, by giving's (church_id, donation_date) index.
 */
export const countedDonations = (alias: string, from: string, to: string) =>
  `${alias}.church_id = $1::uuid and ${alias}.status = 'complete'
  and ${alias}.donation_date >= ${utcMidnight(from)} and ${alias}.donation_date < ${utcMidnight(`${to} + 1`)}`;

/** The UTC day of a donation. */
export const donationDay = (alias: string) => `(${alias}.donation_date at time zone 'UTC')::date`;

const PERIOD_START = { week: (d: string) => `(${d} - extract(dow from ${d})::int)`, month: (d: string) => `date_trunc('month', ${d})::date`, quarter: (d: string) => `date_trunc('quarter', ${d})::date` };
const PERIOD_STEP = { week: `interval '7 days'`, month: `interval '1 month'`, quarter: `interval '3 months'` };

/**
 * The dashboard's statement: every period (weeks from Sunday, months, quarters) from the one holding
 * `startDate` to the one holding `endDate`, empty periods included, with the completed donations' net amount
 * (less refunds; summed in numeric, handed over as a JSON number), their count and the distinct donors.
 */
export function dashboardSql(period: 'week' | 'month' | 'quarter'): string {
  const start = PERIOD_START[period];
  return `
select to_char(g.period, 'YYYY-MM-DD') as "period", coalesce(sum(d.amount - d.refunded_amount), 0)::float8 as "totalAmount",
  count(d.id)::int as "donations", count(distinct d.person_id)::int as "donors"
from generate_series(${start('$2::date')}::timestamp, ${start('$3::date')}::timestamp, ${PERIOD_STEP[period]}) g(period)
left join donations d on ${countedDonations('d', '$2::date', '$3::date')}
  and ${start(donationDay('d'))} = g.period::date
group by g.period
order by g.period`;
}

/** The parameters `weekSessionsSql` reads, in its placeholders' order, and their definitions. */
export const WEEK_SESSIONS_PARAMS = ['churchId', 'campusId', 'serviceId', 'week'];
export const weekSessionsParameters = [churchIdParam, campusParam, serviceParam, weekParam];
