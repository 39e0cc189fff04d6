import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { households } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addPerson } from './fixtures';

const t = useMembership();

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const household = async (churchId: string, name: string) => {
  const id = randomUUID();
  await t.app.db.insert(households).values({ id, churchId, name });
  return id;
};

describe('access', () => {
  it('guards reads for any user and writes with People.Edit', async () => {
    const c = await makeChurch(t);
    const id = await household(c.churchId, 'Guarded');
    await expectGuarded(t.app, { method: 'GET', url: '/membership/households' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/households/${id}` }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/households', body: { name: 'X' }, permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/households/${id}`, permission: 'People.Edit' }, c.churchId);
  });
});

describe('GET /membership/households', () => {
  it('lists the church’s households by name, to any user', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const b = await household(c.churchId, 'Baker');
    const a = await household(c.churchId, 'Adams');
    await household(other.churchId, 'Elsewhere');
    const res = await call(t.app, 'GET', '/membership/households', { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: a, churchId: c.churchId, name: 'Adams', createdAt: ISO },
      { id: b, churchId: c.churchId, name: 'Baker', createdAt: ISO },
    ]);
  });

  it('answers again from its kept body until a household changes (rename, new, delete, direct write)', async () => {
    const c = await makeChurch(t);
    const a = await household(c.churchId, 'Adams');
    const list = (headers: Record<string, string> = {}) => call(t.app, 'GET', '/membership/households', { token: c.token(), headers });
    const names = async () => (await list()).json().map((h: { name: string }) => h.name);
    const first = await list();
    expect(first.json().map((h: { id: string }) => h.id)).toEqual([a]);
    expect((await list({ 'if-none-match': first.headers.etag as string })).statusCode).toBe(304);
    const edit = c.token(['People.Edit']);
    await call(t.app, 'POST', '/membership/households', { token: edit, body: [{ id: a, name: 'Zane' }, { name: 'Brown' }] });
    expect(await names()).toEqual(['Brown', 'Zane']);
    expect((await list({ 'if-none-match': first.headers.etag as string })).statusCode).toBe(200);
    await t.app.db.update(households).set({ name: 'Able' }).where(eq(households.id, a));
    expect(await names()).toEqual(['Able', 'Brown']);
    expect((await call(t.app, 'DELETE', `/membership/households/${a}`, { token: edit })).statusCode).toBe(200);
    expect(await names()).toEqual(['Brown']);
  });

  it('GET /:id answers 404 for another church’s household', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const mine = await household(c.churchId, 'Mine');
    const theirs = await household(other.churchId, 'Theirs');
    expect((await call(t.app, 'GET', `/membership/households/${mine}`, { token: c.token() })).json()).toEqual({ id: mine, churchId: c.churchId, name: 'Mine', createdAt: ISO });
    expect((await call(t.app, 'GET', `/membership/households/${theirs}`, { token: c.token() })).statusCode).toBe(404);
  });
});

describe('POST /membership/households', () => {
  it('creates and renames in one batch', async () => {
    const c = await makeChurch(t);
    const existing = await household(c.churchId, 'Old');
    const res = await call(t.app, 'POST', '/membership/households', { token: c.token(['People.Edit']), body: [{ id: existing, name: 'Renamed' }, { name: 'Fresh' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: existing, churchId: c.churchId, name: 'Renamed', createdAt: ISO },
      { id: expect.any(String), churchId: c.churchId, name: 'Fresh', createdAt: ISO },
    ]);
    expect((await t.app.db.select().from(households).where(eq(households.churchId, c.churchId))).map((h) => h.name).sort()).toEqual(['Fresh', 'Renamed']);
  });

  it('answers 404 and writes nothing for another church’s household', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = await household(other.churchId, 'Theirs');
    const res = await call(t.app, 'POST', '/membership/households', { token: c.token(['People.Edit']), body: [{ name: 'New' }, { id: theirs, name: 'Mine now' }] });
    expect(res.statusCode).toBe(404);
    expect((await t.app.db.select().from(households).where(eq(households.id, theirs)))[0]!.name).toBe('Theirs');
    expect(await t.app.db.select().from(households).where(eq(households.churchId, c.churchId))).toEqual([]);
  });

  it('validates the body', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/households', { token: c.token(['People.Edit']), body: { name: 'x'.repeat(201) } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'name', location: 'body' });
  });
});

describe('DELETE /membership/households/:id', () => {
  it('deletes an empty household and refuses one that still has people', async () => {
    const c = await makeChurch(t);
    const empty = await household(c.churchId, 'Empty');
    const person = await addPerson(t, c.churchId);
    const token = c.token(['People.Edit']);
    expect((await call(t.app, 'DELETE', `/membership/households/${empty}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(households).where(eq(households.id, empty))).toEqual([]);
    const busy = await call(t.app, 'DELETE', `/membership/households/${person.householdId}`, { token });
    expect(busy.statusCode).toBe(409);
    expect(await t.app.db.select().from(households).where(eq(households.id, person.householdId!))).toHaveLength(1);
  });

  it('answers 404 for another church’s household and keeps it', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = await household(other.churchId, 'Theirs');
    expect((await call(t.app, 'DELETE', `/membership/households/${theirs}`, { token: c.token(['People.Edit']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(households).where(eq(households.id, theirs))).toHaveLength(1);
  });
});

describe('the audit log of household changes (reportChanges through crud)', () => {
  it('keeps who changed what, field by field, readable on the audit log screen', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit', 'Settings.Edit']);
    const [made] = (await call(t.app, 'POST', '/membership/households', { token, body: { name: 'Smith' } })).json();
    await call(t.app, 'POST', '/membership/households', { token, body: { id: made.id, name: 'Smith-Jones' } });
    await t.drain();
    const page = (await call(t.app, 'GET', `/membership/auditlogs?entityType=household&entityId=${made.id}`, { token })).json();
    expect(page.count).toBe(2);
    const [renamed, created] = page.logs;
    // The category is the audit screen's filter a household belongs under (people), the module its own column.
    expect([created.action, renamed.action, renamed.category, renamed.module, renamed.entityType]).toEqual(['created', 'updated', 'person', 'membership', 'household']);
    expect(JSON.parse(renamed.details).changes).toEqual({ name: { before: 'Smith', after: 'Smith-Jones' } });
    // another church sees none of it
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/auditlogs?entityId=${made.id}`, { token: other.token(['Settings.Edit']) })).json().count).toBe(0);
  });
});
