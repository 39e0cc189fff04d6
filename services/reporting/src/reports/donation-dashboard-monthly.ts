import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, dashboardSql } from './common';

/** Giving per month for the dashboard: net amount, donations and donors, the last 12 months unless dates are given. */
export const donationDashboardMonthly: ReportDefinition = {
  keyName: 'donationDashboardMonthly',
  displayName: 'Giving by Month',
  description: 'Net giving, donations and donors per month.',
  parameters: [
    churchIdParam,
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date', default: 'startOfMonth-11m' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date', default: 'today' },
  ],
  queries: [{ keyName: 'main', module: 'giving', params: ['churchId', 'startDate', 'endDate'], sql: dashboardSql('month') }],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Month', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Month', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Donors', value: 'donors', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Donations.View Summary', 'Donations.View'] }],
};
