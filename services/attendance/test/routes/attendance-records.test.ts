import { and, eq, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { visitCounts, visits } from '../../src/db/schema';
import { fakeMembership, linkGroup, makeChurch, makePlaces, makeServiceTime, makeSession, makeVisit, useAttendance } from '../setup';

const membership = fakeMembership();
const t = useAttendance({ overrides: { internal: membership.internal } });

const ID = '00000000-0000-4000-8000-000000000001';
const day = (d: string) => `${d}T00:00:00.000Z`;

/**
 * A church with two campuses and a January 2024 of attendance. 2024-01-06 and -13 are Saturdays, -07 and -14
 * Sundays, so the weeks (Sunday start) are 2023-12-31, 2024-01-07 and 2024-01-14.
 */
async function january() {
  const c = makeChurch();
  const main = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday', time: '9:00' });
  const t11 = await makeServiceTime(t, c.churchId, main.serviceId, '11:00');
  const east = await makePlaces(t, c.churchId, { campus: 'East', service: 'Saturday', time: '17:00' });
  const [g1, g2] = [randomUUID(), randomUUID()];
  await linkGroup(t, c.churchId, g1, main.serviceTimeId);
  await linkGroup(t, c.churchId, g2, t11);
  const [p1, p2, p3, p4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const s = {
    g1Jan6: await makeSession(t, c.churchId, g1, main.serviceTimeId, '2024-01-06'),
    g1Jan7: await makeSession(t, c.churchId, g1, main.serviceTimeId, '2024-01-07'),
    g2Jan7: await makeSession(t, c.churchId, g2, t11, '2024-01-07'),
    g2Jan13: await makeSession(t, c.churchId, g2, t11, '2024-01-13'),
    g1Jan14: await makeSession(t, c.churchId, g1, main.serviceTimeId, '2024-01-14'),
  };
  const v = {
    p1Jan6: await makeVisit(t, c.churchId, p1, main.serviceId, '2024-01-06', [s.g1Jan6]),
    p2Jan7: await makeVisit(t, c.churchId, p2, main.serviceId, '2024-01-07', [s.g1Jan7, s.g2Jan7]), // two sessions, one visit
    p3Jan13: await makeVisit(t, c.churchId, p3, main.serviceId, '2024-01-13', [s.g2Jan13]),
    p4Jan7: await makeVisit(t, c.churchId, p4, east.serviceId, '2024-01-07'),
    p1Jan14: await makeVisit(t, c.churchId, p1, main.serviceId, '2024-01-14', [s.g1Jan14]),
  };
  return { c, main, t11, east, g1, g2, p1, p2, p3, p4, s, v };
}

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/attendancerecords?personId=${ID}`, permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/attendancerecords/tree' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/attendancerecords/trend', permission: 'Attendance.View Summary' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/attendancerecords/groupsummary', permission: 'Attendance.View Summary' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/attendancerecords/groups?week=2024-01-07', permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/attendancerecords/search?startDate=2024-01-01&endDate=2024-02-01', permission: 'Attendance.View' }, c.churchId);
    // View alone does not read the summary
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/trend', { token: c.token(['Attendance.View']) })).statusCode).toBe(401);
  });
});

describe('GET /attendance/attendancerecords/trend', () => {
  it('counts distinct visits per Sunday-start week; filters combine; other churches see nothing', async () => {
    const d = await january();
    const trend = async (query = '') => {
      const res = await call(t.app, 'GET', `/attendance/attendancerecords/trend${query}`, { token: d.c.token(['Attendance.View Summary']) });
      expect(res.statusCode).toBe(200);
      // every row carries its count twice: `count` (the spec's) and `visits` (what the apps read)
      const rows: Array<{ week: string; count: number; visits: number }> = res.json();
      for (const row of rows) expect(row.visits).toBe(row.count);
      return rows.map(({ week, count }) => ({ week, count }));
    };
    expect(await trend()).toEqual([
      { week: '2023-12-31', count: 1 }, // Saturday the 6th belongs to the week before Sunday the 7th
      { week: '2024-01-07', count: 3 }, // Sunday 7th (p2 twice in sessions, once as a visit; p4) and Saturday 13th (p3)
      { week: '2024-01-14', count: 1 },
    ]);
    expect(await trend(`?campusId=${d.main.campusId}`)).toEqual([
      { week: '2023-12-31', count: 1 },
      { week: '2024-01-07', count: 2 },
      { week: '2024-01-14', count: 1 },
    ]);
    expect(await trend(`?campusId=${d.east.campusId}&serviceId=&serviceTimeId=&groupId=`)).toEqual([{ week: '2024-01-07', count: 1 }]);
    expect(await trend(`?serviceId=${d.main.serviceId}`)).toEqual(await trend(`?campusId=${d.main.campusId}`));
    expect(await trend(`?serviceTimeId=${d.t11}`)).toEqual([{ week: '2024-01-07', count: 2 }]);
    expect(await trend(`?groupId=${d.g1}`)).toEqual([
      { week: '2023-12-31', count: 1 },
      { week: '2024-01-07', count: 1 },
      { week: '2024-01-14', count: 1 },
    ]);
    // the apps write "any" as 0 (B1Admin's group health tab)
    expect(await trend(`?campusId=0&serviceId=0&serviceTimeId=0&groupId=${d.g1}`)).toEqual(await trend(`?groupId=${d.g1}`));
    expect(await trend(`?groupId=${d.g1}&serviceTimeId=${d.t11}`)).toEqual([]);
    expect(await trend(`?groupId=${d.g2}&campusId=${d.main.campusId}&serviceId=${d.main.serviceId}`)).toEqual([{ week: '2024-01-07', count: 2 }]);
    expect(await trend(`?campusId=${d.east.campusId}&groupId=${d.g2}`)).toEqual([]);

    const other = makeChurch();
    expect((await call(t.app, 'GET', `/attendance/attendancerecords/trend?serviceId=${d.main.serviceId}`, { token: other.token(['Attendance.View Summary']) })).json()).toEqual([]);
    const bad = await call(t.app, 'GET', '/attendance/attendancerecords/trend?campusId=main', { token: d.c.token(['Attendance.View Summary']) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'campusId', location: 'query' });
  });
});

describe('the trend after writes through every route that adds, moves or removes visits', () => {
  it('counts what the visits hold: check-in, visit saves and deletes, quick-log, visit-session and session deletes', async () => {
    const c = makeChurch();
    const main = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday' });
    const east = await makePlaces(t, c.churchId, { campus: 'East', service: 'Saturday' });
    const group = randomUUID();
    const [kid, sister] = [membership.add(c.churchId), membership.add(c.churchId)];
    const [x, y, z, w] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const token = c.token(['Attendance.Edit', 'Attendance.Checkin', 'Attendance.View Summary']);
    const ok = async (method: 'POST' | 'DELETE', url: string, body?: unknown) => {
      const res = await call(t.app, method, url, { token, body });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const checkin = (people: string[], body: unknown) => ok('POST', `/attendance/visits/checkin?serviceId=${main.serviceId}&peopleIds=${people.join(',')}`, body);
    const inGroup = { session: { serviceTimeId: main.serviceTimeId, groupId: group } };

    await checkin([kid, sister], [{ personId: kid, visitSessions: [inGroup] }, { personId: sister, visitSessions: [inGroup] }]);
    const [xVisit, yVisit] = await ok('POST', '/attendance/visits', [
      { personId: x, serviceId: main.serviceId, visitDate: '2024-01-07' },
      { personId: y, visitDate: '2024-01-08' }, // no service
    ]);
    await ok('POST', '/attendance/visits', { id: xVisit.id, serviceId: east.serviceId, visitDate: '2024-01-14' }); // moved
    const jan7 = await makeSession(t, c.churchId, group, main.serviceTimeId, '2024-01-07');
    const jan21 = await makeSession(t, c.churchId, group, main.serviceTimeId, '2024-01-21');
    await ok('POST', '/attendance/visitsessions/log', { personId: z, visitSessions: [{ sessionId: jan7 }] });
    await ok('POST', '/attendance/visitsessions/log', { personId: w, visitSessions: [{ sessionId: jan21 }] });
    await checkin([kid, sister], [{ personId: kid, visitSessions: [inGroup] }]); // the sister is no longer checked in
    // statements that insert or delete no visit (their triggers still fire, over empty transition tables)
    await checkin([kid], [{ personId: kid, visitSessions: [inGroup] }]); // the kid's visit is kept: nobody new
    await t.app.db.delete(visits).where(and(eq(visits.churchId, c.churchId), eq(visits.personId, randomUUID())));
    await ok('DELETE', `/attendance/visits/${yVisit.id}`);
    await ok('DELETE', `/attendance/sessions/${jan7}`); // z attended nothing else: the visit goes
    await ok('DELETE', `/attendance/visitsessions?personId=${w}&sessionId=${jan21}`); // w's last session: the visit goes

    const now = new Date();
    const sunday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - now.getUTCDay())).toISOString().slice(0, 10);
    const trend = async (query = '') =>
      (await call(t.app, 'GET', `/attendance/attendancerecords/trend${query}`, { token })).json().map(({ week, count }: { week: string; count: number }) => ({ week, count }));
    expect(await trend()).toEqual([
      { week: '2024-01-14', count: 1 },
      { week: sunday, count: 1 },
    ]);
    expect(await trend(`?serviceId=${main.serviceId}`)).toEqual([{ week: sunday, count: 1 }]);
    expect(await trend(`?campusId=${east.campusId}`)).toEqual([{ week: '2024-01-14', count: 1 }]);
    // the counts the trend sums (over each key's slots) equal the visits, key by key
    const counted = await t.app.db
      .select({ serviceId: visitCounts.serviceId, visitDate: visitCounts.visitDate, visits: sql<number>`sum(${visitCounts.visits})::int` })
      .from(visitCounts)
      .where(eq(visitCounts.churchId, c.churchId))
      .groupBy(visitCounts.serviceId, visitCounts.visitDate)
      .having(sql`sum(${visitCounts.visits}) <> 0`);
    const rows = await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId));
    expect(rows.map((r) => r.personId).sort()).toEqual([kid, x].sort());
    const byKey = (r: { serviceId: string | null; visitDate: Date }) => `${r.serviceId}|${r.visitDate.toISOString()}`;
    const expected = new Map<string, number>();
    for (const r of rows) expected.set(byKey(r), (expected.get(byKey(r)) ?? 0) + 1);
    expect(new Map(counted.map((r) => [byKey(r), r.visits]))).toEqual(expected);
  });
});

describe('the counts under updates', () => {
  it('move with the visits an update moves (several at once, to another service, date or none), and not otherwise', async () => {
    const c = makeChurch();
    const [a, b] = [await makePlaces(t, c.churchId), await makePlaces(t, c.churchId)];
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await t.app.db.insert(visits).values({ id, churchId: c.churchId, personId: randomUUID(), serviceId: a.serviceId, visitDate: new Date('2024-03-03') });
    const counts = async () => {
      const rows = await t.app.db
        .select({ serviceId: visitCounts.serviceId, visitDate: visitCounts.visitDate, visits: sql<number>`sum(${visitCounts.visits})::int` })
        .from(visitCounts)
        .where(eq(visitCounts.churchId, c.churchId))
        .groupBy(visitCounts.serviceId, visitCounts.visitDate)
        .having(sql`sum(${visitCounts.visits}) <> 0`);
      return Object.fromEntries(rows.map((r) => [`${r.serviceId}|${r.visitDate.toISOString().slice(0, 10)}`, r.visits]));
    };
    const update = (set: string, only?: string) =>
      t.app.db.execute(sql.raw(`update visits set ${set} where church_id = '${c.churchId}'${only ? ` and id = '${only}'` : ''}`));
    await update('checkin_time = now(), service_id = service_id, visit_date = visit_date'); // moves nothing
    expect(await counts()).toEqual({ [`${a.serviceId}|2024-03-03`]: 3 });
    await update(`service_id = '${b.serviceId}'`, ids[0]);
    await update("visit_date = '2024-03-10'"); // all three at once
    await update('service_id = null', ids[1]);
    expect(await counts()).toEqual({ [`${b.serviceId}|2024-03-10`]: 1, [`${a.serviceId}|2024-03-10`]: 1, 'null|2024-03-10': 1 });
  });
});

describe('the counts under concurrent writers', () => {
  // PostgreSQL only: PGlite has one connection, so nothing runs at once there.
  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres('lets two connections add visits at one service and day at once (each adds to its own slot), and sums them', async () => {
    type Conn = { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>; release(): void };
    const pool = (t.app.db as unknown as { $client: { connect(): Promise<Conn> } }).$client;
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    // two connections whose backends add to different slots
    const held: Conn[] = [];
    const bySlot = new Map<number, Conn>();
    while (bySlot.size < 2 && held.length < 5) {
      const conn = await pool.connect();
      held.push(conn);
      const { rows } = await conn.query('select pg_backend_pid() % 32 as slot');
      if (!bySlot.has(Number(rows[0]!.slot))) bySlot.set(Number(rows[0]!.slot), conn);
    }
    const [a, b] = [...bySlot.values()];
    const add = (conn: Conn) => conn.query('insert into visits (id, church_id, person_id, service_id, visit_date) values ($1, $2, $3, $4, $5)', [randomUUID(), c.churchId, randomUUID(), p.serviceId, '2024-03-03']);
    try {
      await a!.query('begin');
      await add(a!);
      // a's transaction is open, its counter row locked: b adds to another row and does not wait for a's commit
      await b!.query("set lock_timeout = '3s'");
      await add(b!);
      await a!.query('commit');
    } finally {
      await b!.query('reset lock_timeout');
      for (const conn of held) conn.release();
    }
    const trend = await call(t.app, 'GET', `/attendance/attendancerecords/trend?serviceId=${p.serviceId}`, { token: c.token(['Attendance.View Summary']) });
    expect(trend.json()).toEqual([{ week: '2024-03-03', count: 2, visits: 2 }]);
    const slots = await t.app.db.select({ slot: visitCounts.slot }).from(visitCounts).where(eq(visitCounts.churchId, c.churchId));
    expect(slots).toHaveLength(2);
  });
});

describe('GET /attendance/attendancerecords', () => {
  it("answers a person's records with places; personId is required", async () => {
    const d = await january();
    const res = await call(t.app, 'GET', `/attendance/attendancerecords?personId=${d.p1}`, { token: d.c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(200);
    const where = { campus: { id: d.main.campusId, name: 'Main' }, service: { id: d.main.serviceId, name: 'Sunday' }, serviceTime: { id: d.main.serviceTimeId, name: '9:00' } };
    expect(res.json()).toEqual([
      { visitId: d.v.p1Jan14, personId: d.p1, visitDate: day('2024-01-14'), sessionId: d.s.g1Jan14, groupId: d.g1, ...where },
      { visitId: d.v.p1Jan6, personId: d.p1, visitDate: day('2024-01-06'), sessionId: d.s.g1Jan6, groupId: d.g1, ...where },
    ]);
    const p4 = await call(t.app, 'GET', `/attendance/attendancerecords?personId=${d.p4}`, { token: d.c.token(['Attendance.View']) });
    expect(p4.json()).toEqual([
      { visitId: d.v.p4Jan7, personId: d.p4, visitDate: day('2024-01-07'), sessionId: null, groupId: null, campus: { id: d.east.campusId, name: 'East' }, service: { id: d.east.serviceId, name: 'Saturday' }, serviceTime: null },
    ]);
    expect((await call(t.app, 'GET', `/attendance/attendancerecords?personId=${d.p1}`, { token: makeChurch().token(['Attendance.View']) })).json()).toEqual([]);
    const missing = await call(t.app, 'GET', '/attendance/attendancerecords', { token: d.c.token(['Attendance.View']) });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ param: 'personId', location: 'query' });
  });
});

describe('GET /attendance/attendancerecords/search', () => {
  it('filters by places and an inclusive date range', async () => {
    const d = await january();
    const token = d.c.token(['Attendance.View']);
    const res = await call(t.app, 'GET', `/attendance/attendancerecords/search?campusId=${d.main.campusId}&startDate=2024-01-07&endDate=2024-01-13`, { token });
    expect(res.statusCode).toBe(200);
    const main = { campus: { id: d.main.campusId, name: 'Main' }, service: { id: d.main.serviceId, name: 'Sunday' } };
    const at11 = { serviceTime: { id: d.t11, name: '11:00' } };
    expect(res.json()).toEqual([
      { visitId: d.v.p3Jan13, personId: d.p3, visitDate: day('2024-01-13'), sessionId: d.s.g2Jan13, groupId: d.g2, ...main, ...at11 },
      { visitId: d.v.p2Jan7, personId: d.p2, visitDate: day('2024-01-07'), sessionId: d.s.g2Jan7, groupId: d.g2, ...main, ...at11 },
      { visitId: d.v.p2Jan7, personId: d.p2, visitDate: day('2024-01-07'), sessionId: d.s.g1Jan7, groupId: d.g1, ...main, serviceTime: { id: d.main.serviceTimeId, name: '9:00' } },
    ]);
    const byGroup = await call(t.app, 'GET', `/attendance/attendancerecords/search?groupId=${d.g1}&startDate=2024-01-01&endDate=2024-01-31`, { token });
    expect(byGroup.json().map((r: { sessionId: string }) => r.sessionId)).toEqual([d.s.g1Jan14, d.s.g1Jan7, d.s.g1Jan6]);
    expect((await call(t.app, 'GET', `/attendance/attendancerecords/search?startDate=2024-01-01&endDate=2024-01-31`, { token: makeChurch().token(['Attendance.View']) })).json()).toEqual([]);

    const noStart = await call(t.app, 'GET', '/attendance/attendancerecords/search?endDate=2024-01-31', { token });
    expect(noStart.statusCode).toBe(400);
    expect(noStart.json().errors[0].param).toBe('startDate');
    const backwards = await call(t.app, 'GET', '/attendance/attendancerecords/search?startDate=2024-02-01&endDate=2024-01-01', { token });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().errors[0].param).toBe('endDate');
  });
});

describe('GET /attendance/attendancerecords/groups', () => {
  it("answers who attended each group's sessions of the service in the week (any day names the week)", async () => {
    const d = await january();
    const token = d.c.token(['Attendance.View']);
    const res = await call(t.app, 'GET', `/attendance/attendancerecords/groups?serviceId=${d.main.serviceId}&week=2024-01-07`, { token });
    expect(res.statusCode).toBe(200);
    const base = { serviceId: d.main.serviceId, serviceName: 'Sunday' };
    const at11 = { ...base, serviceTimeId: d.t11, serviceTimeName: '11:00', groupId: d.g2 };
    const rows = [
      { ...at11, sessionId: d.s.g2Jan7, sessionDate: day('2024-01-07'), personId: d.p2 },
      { ...at11, sessionId: d.s.g2Jan13, sessionDate: day('2024-01-13'), personId: d.p3 },
      { ...base, serviceTimeId: d.main.serviceTimeId, serviceTimeName: '9:00', groupId: d.g1, sessionId: d.s.g1Jan7, sessionDate: day('2024-01-07'), personId: d.p2 },
    ];
    expect(res.json()).toEqual(rows);
    expect((await call(t.app, 'GET', `/attendance/attendancerecords/groups?serviceId=${d.main.serviceId}&week=2024-01-10`, { token })).json()).toEqual(rows);
    expect((await call(t.app, 'GET', `/attendance/attendancerecords/groups?serviceId=${d.east.serviceId}&week=2024-01-07`, { token })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/attendance/attendancerecords/groups?week=2024-01-07`, { token: makeChurch().token(['Attendance.View']) })).json()).toEqual([]);
    const noWeek = await call(t.app, 'GET', `/attendance/attendancerecords/groups?serviceId=${d.main.serviceId}`, { token });
    expect(noWeek.statusCode).toBe(400);
    expect(noWeek.json().errors[0].param).toBe('week');
  });
});

describe('dates outside years 1000 to 9000', () => {
  it('answer 400 naming the field, in queries and bodies, before any arithmetic or database work', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.View', 'Attendance.Edit']);
    const expect400 = async (method: 'GET' | 'POST', url: string, param: string, location: string, body?: unknown) => {
      const res = await call(t.app, method, url, { token, body });
      expect({ url, status: res.statusCode, error: res.json().errors[0] }).toEqual({
        url,
        status: 400,
        error: { msg: 'must be a date from 1000-01-01 to 9000-12-31', param, location },
      });
    };
    for (const week of ['275760-09-13', '-271821-04-20', '9999-12-31', '0999-12-31']) {
      await expect400('GET', `/attendance/attendancerecords/groups?week=${week}`, 'week', 'query');
    }
    await expect400('GET', '/attendance/attendancerecords/search?startDate=2000-01-01&endDate=10000-01-05', 'endDate', 'query');
    await expect400('POST', '/attendance/visits', '[0].visitDate', 'body', [{ personId: randomUUID(), visitDate: '+010000-01-05' }]);
    await expect400('POST', '/attendance/sessions', '[0].sessionDate', 'body', [{ groupId: randomUUID(), sessionDate: '0000-01-01' }]);
  });
});

describe('GET /attendance/attendancerecords/tree', () => {
  it('answers one row per service time with its service and campus and membership’s data of its groups', async () => {
    const d = await january();
    const [g1, g2] = [membership.addGroup(d.c.churchId, d.g1, 'Nursery'), membership.addGroup(d.c.churchId, d.g2, 'Preschool')];
    // a service without a time yet, and one without a campus
    const [bare, loose] = (await call(t.app, 'POST', '/attendance/services', { token: d.c.token(['Services.Edit']), body: [{ campusId: d.east.campusId, name: 'Youth' }, { name: 'Online' }] })).json();
    // and campuses without a service: this church's is listed, another church's is not
    const [north] = (await call(t.app, 'POST', '/attendance/campuses', { token: d.c.token(['Services.Edit']), body: [{ name: 'North' }] })).json();
    await call(t.app, 'POST', '/attendance/campuses', { token: makeChurch().token(['Services.Edit']), body: [{ name: 'Other' }] });
    const res = await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token: d.c.token() });
    expect(res.statusCode).toBe(200);
    const east = { id: d.east.campusId, name: 'East' };
    const main = { id: d.main.campusId, name: 'Main' };
    const sunday = { id: d.main.serviceId, name: 'Sunday', campusId: d.main.campusId };
    expect(res.json()).toEqual([
      { campus: east, service: { id: d.east.serviceId, name: 'Saturday', campusId: d.east.campusId }, serviceTime: { id: d.east.serviceTimeId, name: '17:00', serviceId: d.east.serviceId, groups: [] } },
      { campus: east, service: { id: bare.id, name: 'Youth', campusId: d.east.campusId } },
      { campus: main, service: sunday, serviceTime: { id: d.t11, name: '11:00', serviceId: d.main.serviceId, groups: [g2] } },
      { campus: main, service: sunday, serviceTime: { id: d.main.serviceTimeId, name: '9:00', serviceId: d.main.serviceId, groups: [g1] } },
      { campus: { id: north.id, name: 'North' } },
      { campus: null, service: { id: loose.id, name: 'Online', campusId: null } },
    ]);
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token: makeChurch().token() })).json()).toEqual([]);
  });
});

describe('GET /attendance/attendancerecords/groupsummary', () => {
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

  it("answers each group's sessions of the last 13 weeks up to today: count, visits, average, latest date", async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const [g1, g2, g3, g4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const [a, b, d] = [randomUUID(), randomUUID(), randomUUID()];
    // g1: three sessions in the window (3 + 1 + 0 present), one before it
    const g1Recent = await makeSession(t, c.churchId, g1, p.serviceTimeId, daysAgo(0));
    const g1Week = await makeSession(t, c.churchId, g1, p.serviceTimeId, daysAgo(7));
    await makeSession(t, c.churchId, g1, null, daysAgo(14));
    const g1Old = await makeSession(t, c.churchId, g1, p.serviceTimeId, daysAgo(13 * 7 + 1));
    await makeVisit(t, c.churchId, a, p.serviceId, daysAgo(0), [g1Recent]);
    await makeVisit(t, c.churchId, b, p.serviceId, daysAgo(0), [g1Recent]);
    await makeVisit(t, c.churchId, d, p.serviceId, daysAgo(0), [g1Recent]);
    await makeVisit(t, c.churchId, a, p.serviceId, daysAgo(7), [g1Week]);
    await makeVisit(t, c.churchId, b, p.serviceId, daysAgo(13 * 7 + 1), [g1Old]);
    // g2: one session without anyone; g3: only a session still to come; g4: only an old one
    await makeSession(t, c.churchId, g2, null, daysAgo(30));
    await makeSession(t, c.churchId, g3, null, daysAgo(-7));
    await makeSession(t, c.churchId, g4, null, daysAgo(200));
    // another church's session of the same group id counts for nobody here
    const other = makeChurch();
    const foreign = await makeSession(t, other.churchId, g1, null, daysAgo(1));
    await makeVisit(t, other.churchId, randomUUID(), null, daysAgo(1), [foreign]);

    const res = await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary', { token: c.token(['Attendance.View Summary']) });
    expect(res.statusCode).toBe(200);
    const expected = [
      { groupId: g1, sessionCount: 3, totalVisits: 4, averageAttendance: 1.3, lastSessionDate: day(daysAgo(0)) },
      { groupId: g2, sessionCount: 1, totalVisits: 0, averageAttendance: 0, lastSessionDate: day(daysAgo(30)) },
    ].sort((x, y) => x.groupId.localeCompare(y.groupId));
    expect(res.json()).toEqual(expected);

    // ?weeks= widens or narrows the window
    const year = (await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary?weeks=52', { token: c.token(['Attendance.View Summary']) })).json();
    expect(year.find((r: { groupId: string }) => r.groupId === g1)).toEqual({ groupId: g1, sessionCount: 4, totalVisits: 5, averageAttendance: 1.3, lastSessionDate: day(daysAgo(0)) });
    expect(year.map((r: { groupId: string }) => r.groupId).sort()).toEqual([g1, g2, g4].sort());
    const week = (await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary?weeks=1', { token: c.token(['Attendance.View Summary']) })).json();
    expect(week).toEqual([{ groupId: g1, sessionCount: 2, totalVisits: 4, averageAttendance: 2, lastSessionDate: day(daysAgo(0)) }]);
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary?weeks=', { token: c.token(['Attendance.View Summary']) })).json()).toEqual(expected);
  });

  it('answers 400 naming weeks when it is not a whole number from 1 to 520, and [] for a church without sessions', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.View Summary']);
    for (const [weeks, msg] of [['0', 'must be at least 1'], ['521', 'must be at most 520'], ['1.5', 'must be a whole number of weeks']]) {
      const res = await call(t.app, 'GET', `/attendance/attendancerecords/groupsummary?weeks=${weeks}`, { token });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toEqual({ msg, param: 'weeks', location: 'query' });
    }
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary', { token })).json()).toEqual([]);
  });
});
