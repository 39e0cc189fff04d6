import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { serviceTimes } from '../../src/db/schema';
import { fakeMembership, linkGroup, makeChurch, makePlaces, makeServiceTime, useAttendance } from '../setup';

const membership = fakeMembership();
const t = useAttendance({ overrides: { internal: membership.internal } });

const ID = '00000000-0000-4000-8000-000000000001';

describe('access', () => {
  it('guards every authenticated route; the public tree needs no token', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/servicetimes' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/servicetimes/${ID}` }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/servicetimes/search' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/servicetimes', body: { serviceId: ID, name: 'X' }, permission: 'Services.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/servicetimes/${ID}`, permission: 'Services.Edit' }, c.churchId);
    expect((await call(t.app, 'GET', `/attendance/servicetimes/public/${c.churchId}`)).statusCode).toBe(200);
  });
});

describe('GET /attendance/servicetimes', () => {
  it('filters by service and adds linked groups with ?include=groups', async () => {
    const c = makeChurch();
    const a = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday', time: '9:00' });
    const late = await makeServiceTime(t, c.churchId, a.serviceId, '11:00');
    const other = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Wednesday', time: '19:00' });
    const g1 = membership.addGroup(c.churchId, randomUUID(), 'Nursery');
    const g2 = membership.addGroup(c.churchId, randomUUID(), 'Preschool');
    const gone = randomUUID(); // removed in membership, still linked here
    await linkGroup(t, c.churchId, g1.id, a.serviceTimeId);
    await linkGroup(t, c.churchId, g2.id, a.serviceTimeId);
    await linkGroup(t, c.churchId, gone, late);

    const res = await call(t.app, 'GET', `/attendance/servicetimes?serviceId=${a.serviceId}`, { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: late, serviceId: a.serviceId, name: '11:00', longName: 'Main - Sunday - 11:00' },
      { id: a.serviceTimeId, serviceId: a.serviceId, name: '9:00', longName: 'Main - Sunday - 9:00' },
    ]);
    const all = await call(t.app, 'GET', '/attendance/servicetimes?include=groups', { token: c.token() });
    expect(all.json()).toEqual([
      { id: late, serviceId: a.serviceId, name: '11:00', longName: 'Main - Sunday - 11:00', groups: [] },
      { id: a.serviceTimeId, serviceId: a.serviceId, name: '9:00', longName: 'Main - Sunday - 9:00', groups: [g1, g2] },
      { id: other.serviceTimeId, serviceId: other.serviceId, name: '19:00', longName: 'Main - Wednesday - 19:00', groups: [] },
    ]);
    expect((await call(t.app, 'GET', '/attendance/servicetimes', { token: makeChurch().token() })).json()).toEqual([]);
  });
});

describe('GET /attendance/servicetimes/search', () => {
  it('combines campus and service filters', async () => {
    const c = makeChurch();
    const main = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday', time: '9:00' });
    const east = await makePlaces(t, c.churchId, { campus: 'East', service: 'Sunday', time: '10:00' });
    const byCampus = await call(t.app, 'GET', `/attendance/servicetimes/search?campusId=${east.campusId}&serviceId=`, { token: c.token() });
    expect(byCampus.json()).toEqual([{ id: east.serviceTimeId, serviceId: east.serviceId, name: '10:00', longName: 'East - Sunday - 10:00' }]);
    const both = await call(t.app, 'GET', `/attendance/servicetimes/search?campusId=${east.campusId}&serviceId=${main.serviceId}`, { token: c.token() });
    expect(both.json()).toEqual([]);
    const bad = await call(t.app, 'GET', '/attendance/servicetimes/search?campusId=1', { token: c.token() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('campusId');
  });
});

describe('GET /attendance/servicetimes/public/:churchId', () => {
  it('answers the campus → service → time tree without removed parts', async () => {
    const c = makeChurch();
    const main = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday', time: '9:00' });
    const gone = await makeServiceTime(t, c.churchId, main.serviceId, '7:00');
    await t.app.db.update(serviceTimes).set({ removed: true }).where(eq(serviceTimes.id, gone));
    const res = await call(t.app, 'GET', `/attendance/servicetimes/public/${c.churchId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: main.campusId, name: 'Main', services: [{ id: main.serviceId, name: 'Sunday', serviceTimes: [{ id: main.serviceTimeId, name: '9:00' }] }] },
    ]);
    expect((await call(t.app, 'GET', `/attendance/servicetimes/public/${randomUUID()}`)).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/attendance/servicetimes/public/x')).statusCode).toBe(400);
  });
});

describe('POST, GET and DELETE /attendance/servicetimes', () => {
  it('saves under a service of the church and soft-deletes', async () => {
    const c = makeChurch();
    const { serviceId } = await makePlaces(t, c.churchId);
    const res = await call(t.app, 'POST', '/attendance/servicetimes', { token: c.token(['Services.Edit']), body: { serviceId, name: '10:30' } });
    expect(res.statusCode).toBe(200);
    const [time] = res.json();
    expect(time).toEqual({ id: expect.any(String), serviceId, name: '10:30' });
    const got = await call(t.app, 'GET', `/attendance/servicetimes/${time.id}`, { token: c.token() });
    expect(got.json()).toEqual({ ...time, longName: 'Main - Sunday - 10:30' });

    const other = makeChurch();
    expect((await call(t.app, 'GET', `/attendance/servicetimes/${time.id}`, { token: other.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/attendance/servicetimes/${time.id}`, { token: other.token(['Services.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/attendance/servicetimes/${time.id}`, { token: c.token(['Services.Edit']) })).statusCode).toBe(200);
    expect((await t.app.db.select().from(serviceTimes).where(eq(serviceTimes.id, time.id)))[0]!.removed).toBe(true);
    expect((await call(t.app, 'GET', `/attendance/servicetimes/${time.id}`, { token: c.token() })).statusCode).toBe(404);
  });

  it("refuses another church's service with 400 naming serviceId", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const { serviceId } = await makePlaces(t, a.churchId);
    const res = await call(t.app, 'POST', '/attendance/servicetimes', { token: b.token(['Services.Edit']), body: [{ serviceId, name: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].serviceId');
    expect(await t.app.db.select().from(serviceTimes).where(eq(serviceTimes.churchId, b.churchId))).toEqual([]);
    const missing = await call(t.app, 'POST', '/attendance/servicetimes', { token: b.token(['Services.Edit']), body: [{ name: 'x' }] });
    expect(missing.json().errors[0].param).toBe('[0].serviceId');
  });
});
