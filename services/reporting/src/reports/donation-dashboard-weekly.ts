import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, dashboardSql } from './common';

/** Giving per week for the dashboard: net amount, donations and donors, the last 12 weeks unless dates are given. */
export const donationDashboardWeekly: ReportDefinition = {
  keyName: 'donationDashboardWeekly',
  displayName: 'Giving by Week',
  description: 'Net giving, donations and donors per week.',
  parameters: [
    churchIdParam,
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date', default: 'lastSunday-11w' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date', default: 'today' },
  ],
  queries: [{ keyName: 'main', module: 'giving', params: ['churchId', 'startDate', 'endDate'], sql: dashboardSql('week') }],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Week', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Week', value: 'period', formatter: 'date' },
        { header: 'Amount', value: 'totalAmount', formatter: 'money' },
        { header: 'Donations', value: 'donations', formatter: 'number' },
        { header: 'Donors', value: 'donors', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Donations.View Summary', 'Donations.View'] }],
};
