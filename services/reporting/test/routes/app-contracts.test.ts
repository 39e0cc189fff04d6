import { call } from '@church/common/testing';
import { reports } from '../../src/reports';
import { makeChurch, useReporting } from '../setup';

// The report screens of ChurchApps' staff app, call by call (contract tests: each names the client file it serves).
const h = useReporting([], { reports });
const get = (url: string, token?: string) => call(h.app, 'GET', url, { token });

describe('the reports as the staff app reads them', () => {
  it('B1Admin:src/reports/ReportPage.tsx lists the reports the caller may run, with their parameters (`/reports/`)', async () => {
    const c = makeChurch();
    const giving = await get('/reporting/reports/', c.token(['Donations.View Summary']));
    expect(giving.statusCode).toBe(200);
    expect(giving.json().map((r: { keyName: string }) => r.keyName)).toEqual(['donationSummary', 'donationDashboardWeekly', 'donationDashboardMonthly', 'donationDashboardQuarterly']);
    // one permission of each group is enough; a report of two groups needs both
    const both = (await get('/reporting/reports', c.token(['Donations.View', 'People.View']))).json().map((r: { keyName: string }) => r.keyName);
    expect(both).toEqual(expect.arrayContaining(['donationsByPerson', 'birthdays', 'donationSummary']));
    expect((await get('/reporting/reports', c.token(['Donations.View']))).json().map((r: { keyName: string }) => r.keyName)).not.toContain('donationsByPerson');
    expect((await get('/reporting/reports', c.token())).json()).toEqual([]);
    expect((await get('/reporting/reports', c.token([], { serverAdmin: true }))).json()).toHaveLength(reports.length);
    expect((await get('/reporting/reports')).statusCode).toBe(401);
  });

  it('B1Admin:src/components/reporting/ReportFilter.tsx and ReportFilterField.tsx show the date and dropdown parameters with their values', async () => {
    const c = makeChurch();
    const trend = (await get('/reporting/reports/attendanceTrend', c.token())).json();
    const byKey = new Map(trend.parameters.map((p: { keyName: string }) => [p.keyName, p]));
    expect(byKey.get('churchId')).toMatchObject({ source: 'au', sourceKey: 'churchId', origin: 'token' });
    expect(byKey.get('campusId')).toMatchObject({ source: 'dropdown', sourceKey: 'campus', displayName: 'Campus', origin: 'query' });
    expect(byKey.get('serviceId')).toMatchObject({ source: 'dropdown', sourceKey: 'service' });
    expect(byKey.get('serviceTimeId')).toMatchObject({ source: 'dropdown', sourceKey: 'serviceTime' });
    expect(byKey.get('groupId')).toMatchObject({ source: 'dropdown', sourceKey: 'group' });
    expect(byKey.get('startDate')).toMatchObject({ source: 'date', sourceKey: 'date', displayName: 'Start Date' });

    // a default is worked out for today, as the field shows it; the app keeps it when there is no `defaultValue`
    const summary = (await get('/reporting/reports/donationSummary', c.token())).json();
    const start = summary.parameters.find((p: { keyName: string }) => p.keyName === 'startDate');
    expect(start).toMatchObject({ source: 'date', value: `${new Date().getUTCFullYear()}-01-01`, default: 'startOfYear' });
    expect(start.defaultValue).toBeUndefined();
    const month = (await get('/reporting/reports/birthdays', c.token())).json().parameters.find((p: { keyName: string }) => p.keyName === 'month');
    expect(month).toMatchObject({ source: 'dropdown', sourceKey: 'month', value: String(new Date().getUTCMonth() + 1) });
    const group = (await get('/reporting/reports/groupAttendance', c.token())).json().parameters.find((p: { keyName: string }) => p.keyName === 'personIds');
    expect(group).toMatchObject({ source: 'query', sourceKey: 'main.personId', origin: 'result' });
  });

  it("B1Admin:src/components/reporting/ReportWithFilter.tsx tests each permission as {api, contentType, action} against the user's", async () => {
    const c = makeChurch();
    const byPerson = (await get('/reporting/reports/donationsByPerson', c.token())).json();
    expect(byPerson.permissions).toEqual([
      { requireOne: [{ api: 'GivingApi', contentType: 'Donations', action: 'View' }] },
      { requireOne: [{ api: 'MembershipApi', contentType: 'People', action: 'View' }] },
    ]);
    const summary = (await get('/reporting/reports/donationSummary', c.token())).json();
    expect(summary.permissions[0].requireOne).toEqual([
      { api: 'GivingApi', contentType: 'Donations', action: 'View Summary' },
      { api: 'GivingApi', contentType: 'Donations', action: 'View' },
    ]);
  });

  it('B1Admin:src/components/reporting/TreeReport.tsx reads a tree as grouping columns first and the number of columns each level heads', async () => {
    const c = makeChurch();
    const schedule = (await get('/reporting/reports/volunteerSchedule', c.token())).json();
    const tree = schedule.outputs.find((o: { outputType: string }) => o.outputType === 'tree');
    expect(tree.groupings).toEqual([1, 1, 1]);
    expect(tree.groupBy).toEqual(['serviceDate', 'planName', 'position']);
    expect(tree.columns.slice(0, 3).map((col: { value: string }) => col.value)).toEqual(['serviceDate', 'planName', 'position']);
  });
});
