import type { ReportDefinition } from '../domain/definition';
import { churchIdParam } from './common';

/** The people of the church with a birthday in a month (this month unless given), by day. */
export const birthdays: ReportDefinition = {
  keyName: 'birthdays',
  displayName: 'Birthdays by Month',
  description: 'Everyone with a birthday in the month.',
  parameters: [
    churchIdParam,
    {
      keyName: 'month',
      source: 'query',
      displayName: 'Month',
      type: 'integer',
      min: 1,
      max: 12,
      default: 'thisMonth',
      list: 'month',
      options: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((text, i) => ({
        value: String(i + 1),
        text,
      })),
    },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'membership',
      params: ['churchId', 'month'],
      sql: `
select p.id as "personId", p.display_name as "displayName", p.first_name as "firstName", p.last_name as "lastName",
  to_char(p.birth_date, 'YYYY-MM-DD') as "birthDate", to_char(p.birth_date, 'MM/DD') as "birthDay",
  extract(day from p.birth_date)::int as "day"
from people p
where p.church_id = $1::uuid and not p.removed and p.birth_date is not null
  and extract(month from p.birth_date) = $2::int
order by extract(day from p.birth_date), p.last_name, p.first_name, p.id`,
    },
  ],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'table',
      columns: [
        { header: 'Birthday', value: 'birthDay', formatter: 'string' },
        { header: 'Name', value: 'displayName', formatter: 'string' },
      ],
    },
  ],
  permissions: [{ requireOne: ['People.View', 'People.View Members'] }],
};
