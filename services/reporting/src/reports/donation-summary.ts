import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, countedDonations, donationDay } from './common';

/**
 * Giving per week (from Sunday) and fund, from the fund allocations of completed donations. Amounts are summed in
 * numeric and handed over as JSON numbers (no arithmetic in floating point).
 */
export const donationSummary: ReportDefinition = {
  keyName: 'donationSummary',
  displayName: 'Donation Summary',
  description: 'Weekly giving by fund.',
  parameters: [
    churchIdParam,
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date', default: 'startOfYear' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date', default: 'today' },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'giving',
      params: ['churchId', 'startDate', 'endDate'],
      sql: `
select to_char(w.week, 'YYYY-MM-DD') as "week", f.id as "fundId", f.name as "fundName", f.tax_deductible as "taxDeductible",
  sum(fd.amount)::float8 as "totalAmount", count(distinct d.id)::int as "donations"
from donations d
cross join lateral (select ${donationDay('d')} - extract(dow from ${donationDay('d')})::int as week) w
join fund_donations fd on fd.church_id = $1::uuid and fd.donation_id = d.id
join funds f on f.church_id = $1::uuid and f.id = fd.fund_id
where ${countedDonations('d', '$2::date', '$3::date')}
group by w.week, f.id, f.name, f.tax_deductible
order by w.week, f.name, f.id`,
    },
  ],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Week', value: 'week', formatter: 'date' },
        { header: 'Fund', value: 'fundName', formatter: 'string' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Week', value: 'week', formatter: 'date' },
        { header: 'Fund', value: 'fundName', formatter: 'string' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Donations.View Summary', 'Donations.View'] }],
};
