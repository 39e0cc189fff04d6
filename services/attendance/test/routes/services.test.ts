import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { services } from '../../src/db/schema';
import { makeChurch, makePlaces, useAttendance } from '../setup';

const t = useAttendance();

const ID = '00000000-0000-4000-8000-000000000001';

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/services' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/services/${ID}` }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/services/search?campusId=${ID}` }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/services', body: { name: 'X' }, permission: 'Services.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/services/${ID}`, permission: 'Services.Edit' }, c.churchId);
  });
});

describe('POST /attendance/services', () => {
  it('saves services and lists them with their campus', async () => {
    const c = makeChurch();
    const { campusId, serviceId } = await makePlaces(t, c.churchId, { campus: 'Main', service: 'Sunday' });
    const res = await call(t.app, 'POST', '/attendance/services', { token: c.token(['Services.Edit']), body: [{ campusId, name: 'Wednesday' }, { name: 'Online' }] });
    expect(res.statusCode).toBe(200);
    const [wed, online] = res.json();
    expect(wed).toEqual({ id: expect.any(String), churchId: c.churchId, campusId, name: 'Wednesday' });
    expect(online).toEqual({ id: expect.any(String), churchId: c.churchId, campusId: null, name: 'Online' });

    const list = await call(t.app, 'GET', '/attendance/services', { token: c.token() });
    expect(list.json()).toEqual([
      { id: serviceId, churchId: c.churchId, campusId, name: 'Sunday', campus: { id: campusId, name: 'Main' } },
      { ...wed, campus: { id: campusId, name: 'Main' } },
      { ...online, campus: null },
    ]);
  });

  it('accepts a service as read back (joined campus and churchId are ignored)', async () => {
    const c = makeChurch();
    const { serviceId } = await makePlaces(t, c.churchId);
    const [read] = (await call(t.app, 'GET', '/attendance/services', { token: c.token() })).json();
    const res = await call(t.app, 'POST', '/attendance/services', { token: c.token(['Services.Edit']), body: [{ ...read, churchId: makeChurch().churchId, name: 'Sunday AM' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: serviceId, churchId: c.churchId, campusId: read.campusId, name: 'Sunday AM' }]);
  });

  it("refuses another church's campus with 400 and writes nothing", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const { campusId } = await makePlaces(t, a.churchId);
    const res = await call(t.app, 'POST', '/attendance/services', { token: b.token(['Services.Edit']), body: [{ name: 'Ok' }, { campusId, name: 'Sneaky' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].campusId' });
    expect(await t.app.db.select().from(services).where(eq(services.churchId, b.churchId))).toEqual([]);
  });

  it('names a missing name', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/attendance/services', { token: c.token(['Services.Edit']), body: { campusId: null } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('name');
  });
});

describe('GET /attendance/services/search', () => {
  it('lists the services of a campus; another church sees none', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const main = await makePlaces(t, a.churchId, { campus: 'Main', service: 'Sunday' });
    await makePlaces(t, a.churchId, { campus: 'East', service: 'Saturday' });
    const res = await call(t.app, 'GET', `/attendance/services/search?campusId=${main.campusId}`, { token: a.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: main.serviceId, churchId: a.churchId, campusId: main.campusId, name: 'Sunday', campus: { id: main.campusId, name: 'Main' } }]);
    expect((await call(t.app, 'GET', `/attendance/services/search?campusId=${main.campusId}`, { token: b.token() })).json()).toEqual([]);
    // Without a campus (`?campusId=` as clients send "any"), every service of the church.
    for (const url of ['/attendance/services/search?campusId=', '/attendance/services/search']) {
      expect((await call(t.app, 'GET', url, { token: a.token() })).json().map((s: { name: string }) => s.name).sort()).toEqual(['Saturday', 'Sunday']);
    }
    const bad = await call(t.app, 'GET', '/attendance/services/search?campusId=main', { token: a.token() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'campusId', location: 'query' });
  });
});

describe('GET and DELETE /attendance/services/:id', () => {
  it('reads with campus, soft-deletes, and keeps other churches out', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const { campusId, serviceId } = await makePlaces(t, a.churchId);
    const got = await call(t.app, 'GET', `/attendance/services/${serviceId}`, { token: a.token() });
    expect(got.json()).toEqual({ id: serviceId, churchId: a.churchId, campusId, name: 'Sunday', campus: { id: campusId, name: 'Main' } });
    expect((await call(t.app, 'GET', `/attendance/services/${serviceId}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/attendance/services/${serviceId}`, { token: b.token(['Services.Edit']) })).statusCode).toBe(404);
    expect((await t.app.db.select().from(services).where(eq(services.id, serviceId)))[0]!.removed).toBe(false);

    expect((await call(t.app, 'DELETE', `/attendance/services/${serviceId}`, { token: a.token(['Services.Edit']) })).statusCode).toBe(200);
    expect((await t.app.db.select().from(services).where(eq(services.id, serviceId)))[0]!.removed).toBe(true);
    expect((await call(t.app, 'GET', `/attendance/services/${serviceId}`, { token: a.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/attendance/services', { token: a.token() })).json()).toEqual([]);
  });
});
