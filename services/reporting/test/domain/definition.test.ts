import type { Claims } from '@church/auth';
import { permissionLists } from '@church/common/testing';
import { loadReport, type ReportDefinition } from '../../src/domain/definition';
import { mayRun } from '../../src/domain/engine';
import { dateDefault } from '../../src/domain/parameters';
import { reports } from '../../src/reports';
import { probeReport } from '../setup';

// Report definitions as the engine loads them, without an app: the shipped set, the checks made at load, and the
// default dates. What a run does with them is tested through the routes (test/routes/engine.test.ts).

describe('report definitions', () => {
  it('ship under the key names existing clients call', () => {
    expect(reports.map((r) => r.keyName).sort()).toEqual(
      [
        'attendanceTrend',
        'birthdays',
        'dailyGroupAttendance',
        'donationDashboardMonthly',
        'donationDashboardQuarterly',
        'donationDashboardWeekly',
        'donationSummary',
        'donationsByPerson',
        'groupAttendance',
        'groupAttendanceDownload',
        'peopleByStatusAndAge',
        'volunteerSchedule',
      ].sort(),
    );
  });

  it('are checked when loaded: parameters known before their query, placeholders bound, permissions known', () => {
    const base = probeReport('ok', 'select $1::uuid as church');
    expect(() => loadReport(base)).not.toThrow();
    expect(() => loadReport({ ...base, parameters: [] })).toThrow(/no churchId parameter from the token/);
    expect(() => loadReport({ ...base, queries: [{ keyName: 'main', module: 'membership', params: ['churchId'], sql: 'select $1, $2' }] })).toThrow(/uses \$2 but binds 1/);
    expect(() => loadReport({ ...base, queries: [{ keyName: 'main', module: 'membership', params: ['churchId', 'month'], sql: 'select $1, $2' }] })).toThrow(/unknown parameter month/);
    expect(() => loadReport({ ...base, permissions: [{ requireOne: ['Donations.Steal'] }] })).toThrow(/unknown permission Donations.Steal/);
    expect(() => loadReport({ ...base, permissions: [] })).toThrow(/no permission group/);
    expect(() => loadReport({ ...base, timeoutMs: 120_000 })).toThrow(/timeoutMs must be 1 to 60000/);
    const outOfOrder: ReportDefinition = {
      ...base,
      parameters: [...base.parameters, { keyName: 'ids', source: 'result', query: 'second', column: 'id' }],
      queries: [
        { keyName: 'first', module: 'membership', params: ['churchId', 'ids'], sql: 'select $1, $2' },
        { keyName: 'second', module: 'membership', params: ['churchId'], sql: 'select $1 as id' },
      ],
      table: { from: 'first' },
    };
    expect(() => loadReport(outOfOrder)).toThrow(/needs query second to run first/);
  });

  it("are run by callers who meet every permission group: any one word of each, Member and Group Leader as the spec has them", () => {
    const report = loadReport({ ...probeReport('ok', 'select $1::uuid as church'), permissions: [{ requireOne: ['People.View', 'Member'] }, { requireOne: ['Group Leader', 'Attendance.View'] }] });
    const caller = (permissions: string[], extra: Partial<Claims> = {}): Claims => ({ id: 'u', email: 'u@example.test', churchId: 'c', personId: null, permissions: permissionLists(permissions), leaderGroupIds: [], ...extra });
    expect(mayRun(report, caller(['People.View', 'Attendance.View']))).toBe(true);
    // one group met, the other not
    expect(mayRun(report, caller(['People.View']))).toBe(false);
    expect(mayRun(report, caller(['Attendance.View']))).toBe(false);
    // Member: People.View Members, or a Member or Staff status; Group Leader: leads a group
    expect(mayRun(report, caller(['People.View Members'], { leaderGroupIds: ['g'] }))).toBe(true);
    expect(mayRun(report, caller([], { membershipStatus: 'Staff', leaderGroupIds: ['g'] }))).toBe(true);
    expect(mayRun(report, caller([], { membershipStatus: 'Visitor', leaderGroupIds: ['g'] }))).toBe(false);
    // server admins pass every group
    expect(mayRun(report, { ...caller([]), permissions: permissionLists([], true) })).toBe(true);
    // a word the access rules do not know is refused at load
    expect(() => loadReport({ ...probeReport('odd', 'select $1::uuid as church'), permissions: [{ requireOne: ['GroupLeader'] }] })).toThrow();
  });

  it('default dates count from today in UTC', () => {
    const now = new Date('2024-03-31T22:00:00Z'); // a Sunday
    expect(dateDefault('today', now)).toBe('2024-03-31');
    expect(dateDefault('lastSunday', now)).toBe('2024-03-31');
    expect(dateDefault('lastSunday-11w', new Date('2024-04-03T10:00:00Z'))).toBe('2024-01-14');
    expect(dateDefault('startOfMonth-11m', now)).toBe('2023-04-01');
    expect(dateDefault('startOfQuarter-21m', now)).toBe('2022-04-01');
    expect(dateDefault('startOfYear', now)).toBe('2024-01-01');
    expect(dateDefault('today-1m', now)).toBe('2024-02-29');
    expect(dateDefault('today+4w', now)).toBe('2024-04-28');
  });
});
