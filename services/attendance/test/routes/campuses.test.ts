import { and, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { campuses } from '../../src/db/schema';
import { makeChurch, useAttendance } from '../setup';

const t = useAttendance();

// The same campus routes on the same rows under the spec's path and the one the current apps call.
describe.each(['/attendance/campuses', '/membership/campuses'])('%s', (base) => {
  const save = (token: string, body: unknown) => call(t.app, 'POST', base, { token, body });
  const blank = { address1: null, address2: null, city: null, state: null, zip: null, timezone: null, website: null };

  describe('access', () => {
    it('guards every route', async () => {
      const c = makeChurch();
      const id = '00000000-0000-4000-8000-000000000001';
      await expectGuarded(t.app, { method: 'GET', url: base }, c.churchId);
      await expectGuarded(t.app, { method: 'GET', url: `${base}/${id}` }, c.churchId);
      await expectGuarded(t.app, { method: 'POST', url: base, body: { name: 'X' }, permission: 'Services.Edit' }, c.churchId);
      await expectGuarded(t.app, { method: 'DELETE', url: `${base}/${id}`, permission: 'Services.Edit' }, c.churchId);
    });

    it('refuses Settings.Edit alone: the campus edit permission is Services.Edit on both paths', async () => {
      const c = makeChurch();
      const res = await save(c.token(['Settings.Edit']), { name: 'North' });
      expect(res.statusCode).toBe(401);
      expect(typeof res.json().errors[0]).toBe('string');
      expect(await t.app.db.select().from(campuses).where(eq(campuses.churchId, c.churchId))).toHaveLength(0);
    });
  });

  describe('POST', () => {
    it('creates and updates in one batch, answering an array in input order', async () => {
      const c = makeChurch();
      const token = c.token(['Services.Edit']);
      const first = await save(token, { name: 'North', city: 'Tulsa', timezone: 'America/Chicago', website: 'https://north.example.org' });
      expect(first.statusCode).toBe(200);
      const [north] = first.json();
      expect(north).toEqual({ ...blank, id: expect.any(String), churchId: c.churchId, name: 'North', city: 'Tulsa', timezone: 'America/Chicago', website: 'https://north.example.org' });

      const res = await save(token, [{ id: north.id, name: 'North Campus' }, { name: 'South' }]);
      expect(res.statusCode).toBe(200);
      expect(res.json().map((x: { name: string }) => x.name)).toEqual(['North Campus', 'South']);
      // an update leaves the fields it does not send as they were
      expect(res.json()[0]).toMatchObject({ city: 'Tulsa', timezone: 'America/Chicago' });

      const list = await call(t.app, 'GET', base, { token: c.token() });
      expect(list.json().map((x: { name: string }) => x.name)).toEqual(['North Campus', 'South']);
    });

    it('answers 400 naming the field', async () => {
      const c = makeChurch();
      const res = await save(c.token(['Services.Edit']), [{ name: 'ok' }, { name: '' }]);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param: '[1].name', location: 'body' });
      const zone = await save(c.token(['Services.Edit']), { name: 'ok', timezone: 'Mars/Olympus' });
      expect(zone.statusCode).toBe(400);
      expect(zone.json().errors[0]).toEqual({ msg: 'must be a time zone such as America/Chicago', param: 'timezone', location: 'body' });
      expect(await t.app.db.select().from(campuses).where(eq(campuses.churchId, c.churchId))).toHaveLength(0);
    });

    it("cannot update another church's campus", async () => {
      const a = makeChurch();
      const b = makeChurch();
      const [campus] = (await save(a.token(['Services.Edit']), { name: 'Mine' })).json();
      const res = await save(b.token(['Services.Edit']), { id: campus.id, name: 'Stolen', churchId: b.churchId });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ errors: ['Campus not found'] });
      const [row] = await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id));
      expect(row).toMatchObject({ churchId: a.churchId, name: 'Mine' });
    });
  });

  describe('GET /:id', () => {
    it("reads the church's campus, 404 for another church and 400 for a bad id", async () => {
      const a = makeChurch();
      const b = makeChurch();
      const [campus] = (await save(a.token(['Services.Edit']), { name: 'Mine' })).json();
      const res = await call(t.app, 'GET', `${base}/${campus.id}`, { token: a.token() });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(campus);
      expect((await call(t.app, 'GET', `${base}/${campus.id}`, { token: b.token() })).statusCode).toBe(404);
      const bad = await call(t.app, 'GET', `${base}/nope`, { token: a.token() });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].param).toBe('id');
      expect((await call(t.app, 'GET', base, { token: b.token() })).json()).toEqual([]);
    });
  });

  describe('DELETE /:id', () => {
    it('soft-deletes; another church gets 404 and nothing changes', async () => {
      const a = makeChurch();
      const b = makeChurch();
      const [campus] = (await save(a.token(['Services.Edit']), { name: 'Old' })).json();
      expect((await call(t.app, 'DELETE', `${base}/${campus.id}`, { token: b.token(['Services.Edit']) })).statusCode).toBe(404);
      expect((await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id)))[0]!.removed).toBe(false);

      const res = await call(t.app, 'DELETE', `${base}/${campus.id}`, { token: a.token(['Services.Edit']) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({});
      const [row] = await t.app.db.select().from(campuses).where(and(eq(campuses.id, campus.id), eq(campuses.churchId, a.churchId)));
      expect(row!.removed).toBe(true);
      expect((await call(t.app, 'GET', base, { token: a.token() })).json()).toEqual([]);
      expect((await call(t.app, 'GET', `${base}/${campus.id}`, { token: a.token() })).statusCode).toBe(404);
    });
  });

  describe('GET /public/:churchId', () => {
    it("answers the church's live campuses by name, id and name only, without a token", async () => {
      const a = makeChurch();
      const b = makeChurch();
      const token = a.token(['Services.Edit']);
      const [south, north, gone] = (await save(token, [{ name: 'South', city: 'Tulsa' }, { name: 'North', website: 'https://n.example.org' }, { name: 'Gone' }])).json();
      await save(b.token(['Services.Edit']), { name: 'Elsewhere' });
      await call(t.app, 'DELETE', `${base}/${gone.id}`, { token });

      const res = await call(t.app, 'GET', `${base}/public/${a.churchId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        { id: north.id, name: 'North' },
        { id: south.id, name: 'South' },
      ]);
      expect((await call(t.app, 'GET', `${base}/public/${makeChurch().churchId}`)).json()).toEqual([]);
      const bad = await call(t.app, 'GET', `${base}/public/nope`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0]).toMatchObject({ param: 'churchId', location: 'params' });
    });
  });
});

it('one set of rows: a campus saved under one path is read, changed and removed under the other', async () => {
  const c = makeChurch();
  const token = c.token(['Services.Edit']);
  const [campus] = (await call(t.app, 'POST', '/membership/campuses', { token, body: [{ name: 'Main' }] })).json();
  expect((await call(t.app, 'GET', `/attendance/campuses/${campus.id}`, { token })).json()).toEqual(campus);
  await call(t.app, 'POST', '/attendance/campuses', { token, body: { id: campus.id, name: 'Main Campus' } });
  expect((await call(t.app, 'GET', '/membership/campuses', { token })).json()).toEqual([{ ...campus, name: 'Main Campus' }]);
  await call(t.app, 'DELETE', `/membership/campuses/${campus.id}`, { token });
  expect((await call(t.app, 'GET', '/attendance/campuses', { token })).json()).toEqual([]);
});
