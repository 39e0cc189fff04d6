import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { serviceTimes, sessions, visitSessions, visits } from '../../src/db/schema';
import { makeChurch, makePlaces, makeSession, makeVisit, useAttendance } from '../setup';

const t = useAttendance();

const ID = '00000000-0000-4000-8000-000000000001';

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/sessions', permission: 'Attendance.View or Group Leader' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/sessions/${ID}`, permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/sessions', body: { groupId: ID, sessionDate: '2024-01-07' }, permission: 'Attendance.Edit or Group Leader' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/sessions/${ID}`, permission: 'Attendance.Edit' }, c.churchId);
  });
});

describe('GET /attendance/sessions', () => {
  it('lists newest first with names; ?groupId= narrows', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId, { time: '9:00' });
    const g1 = randomUUID();
    const g2 = randomUUID();
    const s1 = await makeSession(t, c.churchId, g1, p.serviceTimeId, '2024-01-07');
    const s2 = await makeSession(t, c.churchId, g1, null, '2024-01-14');
    const s3 = await makeSession(t, c.churchId, g2, p.serviceTimeId, '2024-01-10');
    const res = await call(t.app, 'GET', `/attendance/sessions?groupId=${g1}`, { token: c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: s2, groupId: g1, serviceTimeId: null, sessionDate: '2024-01-14T00:00:00.000Z', serviceTimeName: null, displayName: '01/14/2024' },
      { id: s1, groupId: g1, serviceTimeId: p.serviceTimeId, sessionDate: '2024-01-07T00:00:00.000Z', serviceTimeName: '9:00', displayName: '01/07/2024 - 9:00' },
    ]);
    const all = await call(t.app, 'GET', '/attendance/sessions', { token: c.token(['Attendance.View']) });
    expect(all.json().map((s: { id: string }) => s.id)).toEqual([s2, s3, s1]);
    expect((await call(t.app, 'GET', '/attendance/sessions', { token: makeChurch().token(['Attendance.View']) })).json()).toEqual([]);
  });

  it('shows a group leader only the sessions of the groups they lead', async () => {
    const c = makeChurch();
    const mine = randomUUID();
    const theirs = randomUUID();
    const s1 = await makeSession(t, c.churchId, mine, null, '2024-02-04');
    await makeSession(t, c.churchId, theirs, null, '2024-02-04');
    const leader = c.token([], { leaderGroupIds: [mine] });
    expect((await call(t.app, 'GET', '/attendance/sessions', { token: leader })).json().map((s: { id: string }) => s.id)).toEqual([s1]);
    expect((await call(t.app, 'GET', `/attendance/sessions?groupId=${theirs}`, { token: leader })).json()).toEqual([]);
  });
});

describe('POST /attendance/sessions', () => {
  it('creates and updates sessions', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const groupId = randomUUID();
    const res = await call(t.app, 'POST', '/attendance/sessions', {
      token: c.token(['Attendance.Edit']),
      body: [{ groupId, serviceTimeId: p.serviceTimeId, sessionDate: '2024-03-03T00:00:00Z' }],
    });
    expect(res.statusCode).toBe(200);
    const [s] = res.json();
    expect(s).toEqual({ id: expect.any(String), groupId, serviceTimeId: p.serviceTimeId, sessionDate: '2024-03-03T00:00:00.000Z' });
    const upd = await call(t.app, 'POST', '/attendance/sessions', { token: c.token(['Attendance.Edit']), body: { id: s.id, sessionDate: '2024-03-10T00:00:00Z' } });
    expect(upd.json()).toEqual([{ ...s, sessionDate: '2024-03-10T00:00:00.000Z' }]);
    const got = await call(t.app, 'GET', `/attendance/sessions/${s.id}`, { token: c.token(['Attendance.View']) });
    expect(got.json()).toEqual({ ...s, sessionDate: '2024-03-10T00:00:00.000Z' });
  });

  it('validates: required fields, service time of the church', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, a.churchId);
    const token = b.token(['Attendance.Edit']);
    const noGroup = await call(t.app, 'POST', '/attendance/sessions', { token, body: [{ sessionDate: '2024-01-01' }] });
    expect(noGroup.statusCode).toBe(400);
    expect(noGroup.json().errors[0].param).toBe('[0].groupId');
    const noDate = await call(t.app, 'POST', '/attendance/sessions', { token, body: { groupId: randomUUID() } });
    expect(noDate.json().errors[0].param).toBe('sessionDate');
    const badDate = await call(t.app, 'POST', '/attendance/sessions', { token, body: { groupId: randomUUID(), sessionDate: 'soon' } });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().errors[0].param).toBe('sessionDate');
    const foreign = await call(t.app, 'POST', '/attendance/sessions', { token, body: { groupId: randomUUID(), serviceTimeId: p.serviceTimeId, sessionDate: '2024-01-01' } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0].param).toBe('serviceTimeId');
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, b.churchId))).toEqual([]);
  });

  it('lets a leader save sessions of their own groups only (401 otherwise, nothing written)', async () => {
    const c = makeChurch();
    const mine = randomUUID();
    const theirs = randomUUID();
    const leader = c.token([], { leaderGroupIds: [mine] });
    const ok = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: { groupId: mine, sessionDate: '2024-01-07' } });
    expect(ok.statusCode).toBe(200);
    const refused = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: [{ groupId: mine, sessionDate: '2024-01-14' }, { groupId: theirs, sessionDate: '2024-01-14' }] });
    expect(refused.statusCode).toBe(401);
    const other = await makeSession(t, c.churchId, theirs, null, '2024-01-21');
    const move = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: { id: other, groupId: mine } });
    expect(move.statusCode).toBe(401);
    const rows = await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId));
    expect(rows.map((r) => [r.groupId, r.sessionDate.toISOString().slice(0, 10)]).sort()).toEqual(
      [[mine, '2024-01-07'], [theirs, '2024-01-21']].sort(),
    );
  });

  it("cannot update another church's session", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const s = await makeSession(t, a.churchId, randomUUID(), null, '2024-01-07');
    const res = await call(t.app, 'POST', '/attendance/sessions', { token: b.token(['Attendance.Edit']), body: { id: s, sessionDate: '2025-01-01' } });
    expect(res.statusCode).toBe(404);
    expect((await t.app.db.select().from(sessions).where(eq(sessions.id, s)))[0]!.sessionDate.toISOString()).toBe('2024-01-07T00:00:00.000Z');
    expect((await call(t.app, 'GET', `/attendance/sessions/${s}`, { token: b.token(['Attendance.View']) })).statusCode).toBe(404);
  });
});

describe('POST /attendance/sessions (checks before writing)', () => {
  it("refuses a leader's update of an unknown session (404) and a removed service time (400), writing nothing", async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const mine = randomUUID();
    const leader = c.token([], { leaderGroupIds: [mine] });
    const unknown = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: [{ groupId: mine, sessionDate: '2024-01-07' }, { id: ID, sessionDate: '2024-01-14' }] });
    expect(unknown.statusCode).toBe(404);
    await t.app.db.update(serviceTimes).set({ removed: true }).where(eq(serviceTimes.id, p.serviceTimeId));
    const removed = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: [{ groupId: mine, serviceTimeId: p.serviceTimeId, sessionDate: '2024-01-07' }] });
    expect(removed.statusCode).toBe(400);
    expect(removed.json().errors[0]).toMatchObject({ param: '[0].serviceTimeId', location: 'body' });
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toEqual([]);
  });

  it('names every missing field of every new session at once', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/attendance/sessions', { token: c.token(['Attendance.Edit']), body: [{ groupId: randomUUID() }, {}] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { param: string }) => e.param)).toEqual(['[0].sessionDate', '[1].groupId', '[1].sessionDate']);
  });
});

describe('DELETE /attendance/sessions/:id', () => {
  it('deletes the session, its visit sessions, and visits that attended nothing else', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const s1 = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-01-07');
    const s2 = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-01-07');
    const only = await makeVisit(t, c.churchId, randomUUID(), p.serviceId, '2024-01-07', [s1]);
    const both = await makeVisit(t, c.churchId, randomUUID(), p.serviceId, '2024-01-07', [s1, s2]);

    const b = makeChurch();
    expect((await call(t.app, 'DELETE', `/attendance/sessions/${s1}`, { token: b.token(['Attendance.Edit']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(visitSessions).where(eq(visitSessions.sessionId, s1))).toHaveLength(2);

    expect((await call(t.app, 'DELETE', `/attendance/sessions/${s1}`, { token: c.token(['Attendance.Edit']) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.id, s1))).toEqual([]);
    expect(await t.app.db.select().from(visitSessions).where(eq(visitSessions.sessionId, s1))).toEqual([]);
    expect((await t.app.db.select({ id: visits.id }).from(visits).where(eq(visits.churchId, c.churchId))).map((v) => v.id)).toEqual([both]);
    expect(only).not.toBe(both);
  });
});
