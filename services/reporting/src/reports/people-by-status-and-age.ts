import type { ReportDefinition } from '../domain/definition';
import { churchIdParam } from './common';

/**
 * How many people of each membership status fall in each age group, ages as of a day (today unless given).
 * People without a birth date (or born after that day) count as `Unknown`.
 */
export const peopleByStatusAndAge: ReportDefinition = {
  keyName: 'peopleByStatusAndAge',
  displayName: 'People by Membership Status and Age',
  description: 'How many people of each membership status are in each age group.',
  parameters: [churchIdParam, { keyName: 'asOf', source: 'query', displayName: 'Ages As Of', type: 'date', default: 'today' }],
  queries: [
    {
      keyName: 'main',
      module: 'membership',
      params: ['churchId', 'asOf'],
      sql: `
select p.membership_status as "membershipStatus", b.label as "ageGroup", count(*)::int as "people"
from people p
cross join lateral (select case when p.birth_date is null or p.birth_date > $2::date then null
  else extract(year from age($2::date, p.birth_date))::int end as years) a
cross join lateral (select case
    when a.years is null then 'Unknown'
    when a.years < 13 then '0-12'
    when a.years < 18 then '13-17'
    when a.years < 30 then '18-29'
    when a.years < 50 then '30-49'
    when a.years < 65 then '50-64'
    else '65+' end as label,
  case when a.years is null then 99 when a.years < 13 then 1 when a.years < 18 then 2 when a.years < 30 then 3
    when a.years < 50 then 4 when a.years < 65 then 5 else 6 end as ord) b
where p.church_id = $1::uuid and not p.removed
group by p.membership_status, b.label, b.ord
order by p.membership_status, b.ord`,
    },
  ],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Membership Status', value: 'membershipStatus', formatter: 'string' },
        { header: 'Age Group', value: 'ageGroup', formatter: 'string' },
        { header: 'People', value: 'people', formatter: 'number' },
      ],
    },
    {
      outputType: 'tree',
      groupings: ['membershipStatus'],
      columns: [
        { header: 'Age Group', value: 'ageGroup', formatter: 'string' },
        { header: 'People', value: 'people', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['People.View'] }],
};
