import { call } from '@church/common/testing';
import type { Database } from '@church/common';
import { insert, makeChurch, useReporting } from '../setup';

const h = useReporting(['membership', 'attendance']);

/**
 * One church's attendance in January 2024 (weeks start on Sundays 7 and 14), and a visit of another church:
 * Main campus (service "Sunday" at 9:00 and 11:00), East campus (service "East Sunday" at 10:00); groups Kids,
 * Youth and Choir; people Ann, Bob, Cat and Dan.
 */
async function seed() {
  const c = makeChurch();
  const m = h.sources.membership!;
  const a = h.sources.attendance!;
  const churchId = c.churchId;
  const person = (first: string, last: string) => insert(m, 'people', { churchId, firstName: first, lastName: last, displayName: `${first} ${last}` });
  const [ann, bob, cat, dan] = [await person('Ann', 'Adams'), await person('Bob', 'Brown'), await person('Cat', 'Cole'), await person('Dan', 'Dean')];
  const group = (name: string) => insert(m, 'groups', { churchId, name, slug: name.toLowerCase() });
  const [kids, youth, choir] = [await group('Kids'), await group('Youth'), await group('Choir')];
  for (const [groupId, personId] of [[kids, ann], [kids, bob], [kids, cat], [youth, bob], [choir, dan], [choir, ann]]) {
    await insert(m, 'group_members', { churchId, groupId, personId });
  }
  const main = await insert(a, 'campuses', { churchId, name: 'Main' });
  const east = await insert(a, 'campuses', { churchId, name: 'East' });
  const sunday = await insert(a, 'services', { churchId, campusId: main, name: 'Sunday' });
  const eastSunday = await insert(a, 'services', { churchId, campusId: east, name: 'East Sunday' });
  const nine = await insert(a, 'service_times', { churchId, serviceId: sunday, name: '9:00' });
  const eleven = await insert(a, 'service_times', { churchId, serviceId: sunday, name: '11:00' });
  const ten = await insert(a, 'service_times', { churchId, serviceId: eastSunday, name: '10:00' });
  const session = (groupId: string, serviceTimeId: string, day: string) => insert(a, 'sessions', { churchId, groupId, serviceTimeId, sessionDate: new Date(`${day}T00:00:00Z`) });
  const s1 = await session(kids, nine, '2024-01-07');
  const s2 = await session(youth, eleven, '2024-01-07');
  const s3 = await session(kids, nine, '2024-01-14');
  const s4 = await session(choir, ten, '2024-01-07');
  const visit = async (db: Database, church: string, personId: string, serviceId: string, day: string, sessionIds: string[]) => {
    const visitId = await insert(db, 'visits', { churchId: church, personId, serviceId, visitDate: day });
    for (const sessionId of sessionIds) await insert(db, 'visit_sessions', { churchId: church, visitId, sessionId });
  };
  await visit(a, churchId, ann, sunday, '2024-01-07', [s1]);
  await visit(a, churchId, bob, sunday, '2024-01-07', [s2]);
  await visit(a, churchId, cat, sunday, '2024-01-07', [s1]);
  await visit(a, churchId, dan, eastSunday, '2024-01-07', [s4]);
  await visit(a, churchId, ann, sunday, '2024-01-14', [s3]);
  await visit(a, churchId, bob, sunday, '2024-01-10', []);
  const other = makeChurch();
  await visit(a, other.churchId, ann, sunday, '2024-01-07', [s1]);
  return { c, other, people: { ann, bob, cat, dan }, groups: { kids, youth, choir }, campuses: { main, east }, services: { sunday, eastSunday }, times: { nine, eleven, ten } };
}

let s: Awaited<ReturnType<typeof seed>>;
beforeAll(async () => {
  s = await seed();
});

const run = (key: string, query: Record<string, string>, token: string) => call(h.app, 'GET', `/reporting/reports/${key}/run?${new URLSearchParams(query)}`, { token });

describe('GET /reporting/reports/attendanceTrend/run', () => {
  const trend = async (query: Record<string, string>) => {
    const res = await run('attendanceTrend', query, s.c.token(['Attendance.View Summary']));
    expect(res.statusCode).toBe(200);
    return res.json().table;
  };

  it('counts the visits of each Sunday-started week, every filter absent meaning all', async () => {
    expect(await trend({})).toEqual([
      { week: '2024-01-07', visits: 5 },
      { week: '2024-01-14', visits: 1 },
    ]);
    // clients send empty values for "all"
    expect(await trend({ campusId: '', groupId: '' })).toEqual(await trend({}));
  });

  it('filters by campus, service, service time and group, and by dates', async () => {
    expect(await trend({ campusId: s.campuses.main })).toEqual([
      { week: '2024-01-07', visits: 4 },
      { week: '2024-01-14', visits: 1 },
    ]);
    expect(await trend({ serviceId: s.services.eastSunday })).toEqual([{ week: '2024-01-07', visits: 1 }]);
    expect(await trend({ groupId: s.groups.kids })).toEqual([
      { week: '2024-01-07', visits: 2 },
      { week: '2024-01-14', visits: 1 },
    ]);
    expect(await trend({ serviceTimeId: s.times.eleven })).toEqual([{ week: '2024-01-07', visits: 1 }]);
    expect(await trend({ groupId: s.groups.kids, campusId: s.campuses.east })).toEqual([]);
    expect(await trend({ groupId: s.groups.kids, serviceId: s.services.sunday, endDate: '2024-01-13' })).toEqual([{ week: '2024-01-07', visits: 2 }]);
    expect(await trend({ startDate: '2024-01-08' })).toEqual([
      { week: '2024-01-07', visits: 1 },
      { week: '2024-01-14', visits: 1 },
    ]);
  });

  it('answers the outputs, and reads only the token church whatever the query string says', async () => {
    const res = await run('attendanceTrend', { churchId: s.other.churchId }, s.c.token(['Attendance.View']));
    expect(res.json()).toMatchObject({
      keyName: 'attendanceTrend',
      displayName: 'Attendance Trend',
      table: [
        { week: '2024-01-07', visits: 5 },
        { week: '2024-01-14', visits: 1 },
      ],
      outputs: [{ outputType: 'barChart' }, { outputType: 'table' }],
    });
    expect(res.json().parameters).toEqual({ campusId: null, serviceId: null, serviceTimeId: null, groupId: null, startDate: null, endDate: null });
    const otherChurch = await run('attendanceTrend', {}, s.other.token(['Attendance.View']));
    expect(otherChurch.json().table).toEqual([{ week: '2024-01-07', visits: 1 }]);
  });

  it('refuses a caller without an attendance permission (401) and bad filters (400)', async () => {
    const res = await run('attendanceTrend', {}, s.c.token(['People.View']));
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0]).toMatch(/Attendance.View/);
    const bad = await run('attendanceTrend', { campusId: 'main', startDate: '2024-02-30' }, s.c.token('all'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([
      { msg: 'campusId must be a UUID', param: 'campusId', location: 'query' },
      { msg: 'startDate must be a date (YYYY-MM-DD)', param: 'startDate', location: 'query' },
    ]);
  });

  it('concurrent runs of the same report share one query to attendance, and a run after a change sees it', async () => {
    const c = makeChurch();
    const a = h.sources.attendance!;
    const serviceId = await insert(a, 'services', { churchId: c.churchId, name: 'Sunday' });
    const visit = (day: string) => insert(a, 'visits', { churchId: c.churchId, personId: c.personId, serviceId, visitDate: day });
    await visit('2024-02-04');
    const token = c.token(['Attendance.View']);
    const ofChurch = () => h.owners.calls.filter((q) => q.params[0] === c.churchId).length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => run('attendanceTrend', {}, token)));
    expect(answers.map((r) => r.json().table)).toEqual(Array.from({ length: 6 }, () => [{ week: '2024-02-04', visits: 1 }]));
    expect(ofChurch()).toBeLessThan(6);
    const before = ofChurch();
    await visit('2024-02-05');
    expect((await run('attendanceTrend', {}, token)).json().table).toEqual([{ week: '2024-02-04', visits: 2 }]);
    expect(ofChurch()).toBe(before + 1);
  });
});

describe('GET /reporting/reports/groupAttendance/run', () => {
  it('lists who attended each group at each service time in the week, with names from membership', async () => {
    const res = await run('groupAttendance', { week: '2024-01-07' }, s.c.token(['Attendance.View']));
    expect(res.statusCode).toBe(200);
    const { table, outputs } = res.json();
    expect(table.map((r: Record<string, string>) => [r.serviceName, r.serviceTimeName, r.groupName, r.displayName, r.sessionDate])).toEqual([
      ['East Sunday', '10:00', 'Choir', 'Dan Dean', '2024-01-07'],
      ['Sunday', '9:00', 'Kids', 'Ann Adams', '2024-01-07'],
      ['Sunday', '9:00', 'Kids', 'Cat Cole', '2024-01-07'],
      ['Sunday', '11:00', 'Youth', 'Bob Brown', '2024-01-07'],
    ]);
    expect(table[0]).toMatchObject({ groupId: s.groups.choir, personId: s.people.dan });
    const tree = outputs[0].nodes;
    expect(tree.map((n: { value: string }) => n.value)).toEqual(['10:00', '9:00', '11:00']);
    expect(tree[1].children).toHaveLength(1);
    expect(tree[1].children[0]).toMatchObject({ column: 'groupName', value: 'Kids' });
    expect(tree[1].children[0].rows.map((r: { displayName: string }) => r.displayName)).toEqual(['Ann Adams', 'Cat Cole']);
  });

  it('narrows to a service, and defaults to the week of the last Sunday', async () => {
    const east = await run('groupAttendance', { week: '2024-01-07', serviceId: s.services.eastSunday }, s.c.token(['Attendance.View']));
    expect(east.json().table.map((r: { displayName: string }) => r.displayName)).toEqual(['Dan Dean']);
    const byCampus = await run('groupAttendance', { week: '2024-01-07', campusId: s.campuses.main }, s.c.token(['Attendance.View']));
    expect(byCampus.json().table).toHaveLength(3);
    const now = new Date();
    const lastSunday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - now.getUTCDay())).toISOString().slice(0, 10);
    const current = await run('groupAttendance', {}, s.c.token(['Attendance.View']));
    expect(current.json().parameters.week).toBe(lastSunday);
    expect(current.json().table).toEqual([]);
  });

  it('needs Attendance.View: a summary permission is not enough', async () => {
    expect((await run('groupAttendance', { week: '2024-01-07' }, s.c.token(['Attendance.View Summary']))).statusCode).toBe(401);
  });
});

describe('GET /reporting/reports/dailyGroupAttendance/run', () => {
  it('counts a group’s attendance per day and names the group in the title', async () => {
    const res = await run('dailyGroupAttendance', { groupId: s.groups.kids }, s.c.token(['Attendance.View Summary']));
    expect(res.statusCode).toBe(200);
    expect(res.json().displayName).toBe('Group Attendance by Day: Kids');
    expect(res.json().table).toEqual([
      { date: '2024-01-07', attendance: 2 },
      { date: '2024-01-14', attendance: 1 },
    ]);
    const late = await run('dailyGroupAttendance', { groupId: s.groups.kids, startDate: '2024-01-08' }, s.c.token(['Attendance.View Summary']));
    expect(late.json().table).toEqual([{ date: '2024-01-14', attendance: 1 }]);
  });

  it('requires a group id, and shows nothing of another church’s group', async () => {
    const missing = await run('dailyGroupAttendance', {}, s.c.token('all'));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([{ msg: 'groupId is required', param: 'groupId', location: 'query' }]);
    const foreign = await run('dailyGroupAttendance', { groupId: s.groups.kids }, s.other.token('all'));
    expect(foreign.statusCode).toBe(200);
    expect(foreign.json().displayName).toBe('Group Attendance by Day: ');
    expect(foreign.json().table).toEqual([]);
  });
});

describe('GET /reporting/reports/groupAttendanceDownload/run', () => {
  it('lists every member of each group that met in the week, with whether they attended', async () => {
    const res = await run('groupAttendanceDownload', { week: '2024-01-07' }, s.c.token(['Attendance.View', 'GroupMembers.View']));
    expect(res.statusCode).toBe(200);
    expect(res.json().table.map((r: Record<string, unknown>) => [r.serviceName, r.serviceTimeName, r.groupName, r.displayName, r.attended])).toEqual([
      ['East Sunday', '10:00', 'Choir', 'Ann Adams', false],
      ['East Sunday', '10:00', 'Choir', 'Dan Dean', true],
      ['Sunday', '9:00', 'Kids', 'Ann Adams', true],
      ['Sunday', '9:00', 'Kids', 'Bob Brown', false],
      ['Sunday', '9:00', 'Kids', 'Cat Cole', true],
      ['Sunday', '11:00', 'Youth', 'Bob Brown', true],
    ]);
    const nextWeek = await run('groupAttendanceDownload', { week: '2024-01-14' }, s.c.token(['Attendance.View', 'People.View']));
    expect(nextWeek.json().table.map((r: Record<string, unknown>) => [r.groupName, r.displayName, r.attended])).toEqual([
      ['Kids', 'Ann Adams', true],
      ['Kids', 'Bob Brown', false],
      ['Kids', 'Cat Cole', false],
    ]);
  });

  it('needs both of its permission groups', async () => {
    expect((await run('groupAttendanceDownload', { week: '2024-01-07' }, s.c.token(['Attendance.View']))).statusCode).toBe(401);
    expect((await run('groupAttendanceDownload', { week: '2024-01-07' }, s.c.token(['People.View', 'GroupMembers.View']))).statusCode).toBe(401);
  });
});
