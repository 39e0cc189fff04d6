import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { groupServiceTimes, services } from '../../src/db/schema';
import { linkGroup, makeChurch, makePlaces, useAttendance } from '../setup';

const t = useAttendance();

const ID = '00000000-0000-4000-8000-000000000001';

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/groupservicetimes' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/groupservicetimes/${ID}` }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/groupservicetimes', body: { groupId: ID, serviceTimeId: ID }, permission: 'Services.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/groupservicetimes/${ID}`, permission: 'Services.Edit' }, c.churchId);
  });
});

describe('POST /attendance/groupservicetimes', () => {
  it('links groups to service times; ?groupId= adds the "Campus - Service - Time" name', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday', time: '9:00' });
    const groupId = randomUUID();
    const res = await call(t.app, 'POST', '/attendance/groupservicetimes', { token: c.token(['Services.Edit']), body: [{ groupId, serviceTimeId: p.serviceTimeId }] });
    expect(res.statusCode).toBe(200);
    const [link] = res.json();
    expect(link).toEqual({ id: expect.any(String), groupId, serviceTimeId: p.serviceTimeId });

    const byGroup = await call(t.app, 'GET', `/attendance/groupservicetimes?groupId=${groupId}`, { token: c.token() });
    expect(byGroup.json()).toEqual([{ ...link, serviceTime: { id: p.serviceTimeId, name: 'Main - Sunday - 9:00', serviceId: p.serviceId } }]);
    expect((await call(t.app, 'GET', '/attendance/groupservicetimes', { token: c.token() })).json()).toEqual([link]);
    expect((await call(t.app, 'GET', `/attendance/groupservicetimes/${link.id}`, { token: c.token() })).json()).toEqual(link);

    // the same link twice is a conflict, not a duplicate
    const again = await call(t.app, 'POST', '/attendance/groupservicetimes', { token: c.token(['Services.Edit']), body: { groupId, serviceTimeId: p.serviceTimeId } });
    expect(again.statusCode).toBe(409);
  });

  it('hides links to a removed service from ?groupId=', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const groupId = randomUUID();
    await linkGroup(t, c.churchId, groupId, p.serviceTimeId);
    await t.app.db.update(services).set({ removed: true }).where(eq(services.id, p.serviceId));
    expect((await call(t.app, 'GET', `/attendance/groupservicetimes?groupId=${groupId}`, { token: c.token() })).json()).toEqual([]);
  });

  it("refuses another church's service time and isolates reads and deletes", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, a.churchId);
    const linkId = await linkGroup(t, a.churchId, randomUUID(), p.serviceTimeId);
    const res = await call(t.app, 'POST', '/attendance/groupservicetimes', { token: b.token(['Services.Edit']), body: { groupId: randomUUID(), serviceTimeId: p.serviceTimeId } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('serviceTimeId');
    expect((await call(t.app, 'GET', `/attendance/groupservicetimes/${linkId}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/attendance/groupservicetimes', { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'DELETE', `/attendance/groupservicetimes/${linkId}`, { token: b.token(['Services.Edit']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(groupServiceTimes).where(eq(groupServiceTimes.id, linkId))).toHaveLength(1);

    expect((await call(t.app, 'DELETE', `/attendance/groupservicetimes/${linkId}`, { token: a.token(['Services.Edit']) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(groupServiceTimes).where(eq(groupServiceTimes.id, linkId))).toEqual([]);
  });
});
