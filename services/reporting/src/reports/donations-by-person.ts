import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, countedDonations, idsIn } from './common';

/**
 * Giving statement data for a year: per donor and fund, the completed donations and their fund allocations,
 * with each donor's name and mailing address from membership. Gifts without a known person are left out (no
 * statement can be sent for them).
 */
export const donationsByPerson: ReportDefinition = {
  keyName: 'donationsByPerson',
  displayName: 'Donations by Person',
  description: 'Each donor’s giving per fund for a year, with their mailing address (statement data).',
  parameters: [
    churchIdParam,
    { keyName: 'year', source: 'query', displayName: 'Year', type: 'integer', min: 1900, max: 2200, default: 'thisYear' },
    { keyName: 'personIds', source: 'result', query: 'main', column: 'personId' },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'giving',
      params: ['churchId', 'year'],
      sql: `
select d.person_id as "personId", f.id as "fundId", f.name as "fundName", f.tax_deductible as "taxDeductible",
  count(distinct d.id)::int as "donations", sum(fd.amount)::float8 as "totalAmount"
from donations d
join fund_donations fd on fd.church_id = $1::uuid and fd.donation_id = d.id
join funds f on f.church_id = $1::uuid and f.id = fd.fund_id
where ${countedDonations('d', 'make_date($2::int, 1, 1)', 'make_date($2::int, 12, 31)')}
  and d.person_id is not null
group by d.person_id, f.id, f.name, f.tax_deductible`,
    },
    {
      keyName: 'people',
      module: 'membership',
      params: ['churchId', 'personIds'],
      sql: `
select p.id as "id", p.display_name as "displayName", p.first_name as "firstName", p.last_name as "lastName", p.email as "email",
  p.address1 as "address1", p.address2 as "address2", p.city as "city", p.state as "state", p.zip as "zip"
from people p
where p.church_id = $1::uuid and p.id ${idsIn(2)}`,
    },
  ],
  table: {
    from: 'main',
    joins: [
      {
        query: 'people',
        kind: 'one',
        on: { personId: 'id' },
        columns: { displayName: 'displayName', firstName: 'firstName', lastName: 'lastName', email: 'email', address1: 'address1', address2: 'address2', city: 'city', state: 'state', zip: 'zip' },
      },
    ],
    sort: ['lastName', 'firstName', 'personId', 'fundName', 'fundId'],
  },
  outputs: [
    {
      outputType: 'tree',
      groupings: ['personId'],
      columns: [
        { header: 'Donor', value: 'displayName', formatter: 'string' },
        { header: 'Fund', value: 'fundName', formatter: 'string' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Donor', value: 'displayName', formatter: 'string' },
        { header: 'Address', value: 'address1', formatter: 'string' },
        { header: 'City', value: 'city', formatter: 'string' },
        { header: 'State', value: 'state', formatter: 'string' },
        { header: 'Zip', value: 'zip', formatter: 'string' },
        { header: 'Fund', value: 'fundName', formatter: 'string' },
        { header: 'Tax Deductible', value: 'taxDeductible', formatter: 'boolean' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
  ],
  // Statement data names donors and their addresses: both the gifts and the people must be visible to the caller.
  permissions: [{ requireOne: ['Donations.View'] }, { requireOne: ['People.View'] }],
};
