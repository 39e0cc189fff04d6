import { and, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { campuses } from '../../src/db/schema';
import { makeChurch, useAttendance } from '../setup';

const t = useAttendance();

const save = (token: string, body: unknown) => call(t.app, 'POST', '/attendance/campuses', { token, body });

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    const id = '00000000-0000-4000-8000-000000000001';
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/campuses' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/campuses/${id}` }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/campuses', body: { name: 'X' }, permission: 'Services.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/campuses/${id}`, permission: 'Services.Edit' }, c.churchId);
  });
});

describe('POST /attendance/campuses', () => {
  it('creates and updates in one batch, answering an array in input order', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    const first = await save(token, { name: 'North', city: 'Tulsa' });
    expect(first.statusCode).toBe(200);
    const [north] = first.json();
    expect(north).toEqual({ id: expect.any(String), name: 'North', city: 'Tulsa', address1: null, address2: null, state: null, zip: null });

    const res = await save(token, [{ id: north.id, name: 'North Campus' }, { name: 'South' }]);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((x: { name: string }) => x.name)).toEqual(['North Campus', 'South']);

    const list = await call(t.app, 'GET', '/attendance/campuses', { token: c.token() });
    expect(list.json().map((x: { name: string }) => x.name)).toEqual(['North Campus', 'South']);
  });

  it('answers 400 naming the field', async () => {
    const c = makeChurch();
    const res = await save(c.token(['Services.Edit']), [{ name: 'ok' }, { name: '' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].name', location: 'body' });
    expect(await t.app.db.select().from(campuses).where(eq(campuses.churchId, c.churchId))).toHaveLength(0);
  });

  it("cannot update another church's campus", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [campus] = (await save(a.token(['Services.Edit']), { name: 'Mine' })).json();
    const res = await save(b.token(['Services.Edit']), { id: campus.id, name: 'Stolen' });
    expect(res.statusCode).toBe(404);
    const [row] = await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id));
    expect(row).toMatchObject({ churchId: a.churchId, name: 'Mine' });
  });
});

describe('GET /attendance/campuses/:id', () => {
  it("reads the church's campus, 404 for another church and 400 for a bad id", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [campus] = (await save(a.token(['Services.Edit']), { name: 'Mine' })).json();
    const res = await call(t.app, 'GET', `/attendance/campuses/${campus.id}`, { token: a.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(campus);
    expect((await call(t.app, 'GET', `/attendance/campuses/${campus.id}`, { token: b.token() })).statusCode).toBe(404);
    const bad = await call(t.app, 'GET', '/attendance/campuses/nope', { token: a.token() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('id');
    expect((await call(t.app, 'GET', '/attendance/campuses', { token: b.token() })).json()).toEqual([]);
  });
});

describe('DELETE /attendance/campuses/:id', () => {
  it('soft-deletes; another church gets 404 and nothing changes', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [campus] = (await save(a.token(['Services.Edit']), { name: 'Old' })).json();
    expect((await call(t.app, 'DELETE', `/attendance/campuses/${campus.id}`, { token: b.token(['Services.Edit']) })).statusCode).toBe(404);
    expect((await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id)))[0]!.removed).toBe(false);

    const res = await call(t.app, 'DELETE', `/attendance/campuses/${campus.id}`, { token: a.token(['Services.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    const [row] = await t.app.db.select().from(campuses).where(and(eq(campuses.id, campus.id), eq(campuses.churchId, a.churchId)));
    expect(row!.removed).toBe(true);
    expect((await call(t.app, 'GET', '/attendance/campuses', { token: a.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/attendance/campuses/${campus.id}`, { token: a.token() })).statusCode).toBe(404);
  });
});
