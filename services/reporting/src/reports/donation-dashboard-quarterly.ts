import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, dashboardSql } from './common';

/** Giving per quarter for the dashboard: net amount, donations and donors, the last 8 quarters unless dates are given. */
export const donationDashboardQuarterly: ReportDefinition = {
  keyName: 'donationDashboardQuarterly',
  displayName: 'Giving by Quarter',
  description: 'Net giving, donations and donors per quarter.',
  parameters: [
    churchIdParam,
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date', default: 'startOfQuarter-21m' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date', default: 'today' },
  ],
  queries: [{ keyName: 'main', module: 'giving', params: ['churchId', 'startDate', 'endDate'], sql: dashboardSql('quarter') }],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Quarter', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Quarter', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Donors', value: 'donors', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Donations.View Summary', 'Donations.View'] }],
};
