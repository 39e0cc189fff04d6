import { and, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { visibilityPreferences } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

describe('visibility preferences', () => {
  it('guards both routes', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/visibilityPreferences/my' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/visibilityPreferences', body: { email: 'none' } }, c.churchId);
  });

  it('GET /my answers the defaults before anything is saved', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'GET', '/membership/visibilityPreferences/my', { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: null, personId: c.personId, address: 'members', phoneNumber: 'members', email: 'members' });
  });

  it('POST saves the caller’s preferences, one row per person, changing only what is sent', async () => {
    const c = await makeChurch(t);
    const token = c.token();
    const first = await call(t.app, 'POST', '/membership/visibilityPreferences', { token, body: { address: 'none', email: 'groups' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ id: expect.any(String), personId: c.personId, address: 'none', phoneNumber: 'members', email: 'groups' });
    const second = await call(t.app, 'POST', '/membership/visibilityPreferences', { token, body: { phoneNumber: 'everyone' } });
    expect(second.json()).toEqual({ id: first.json().id, personId: c.personId, address: 'none', phoneNumber: 'everyone', email: 'groups' });
    expect((await call(t.app, 'GET', '/membership/visibilityPreferences/my', { token })).json()).toEqual(second.json());
    const rows = await t.app.db.select().from(visibilityPreferences).where(and(eq(visibilityPreferences.churchId, c.churchId), eq(visibilityPreferences.personId, c.personId)));
    expect(rows).toHaveLength(1);
  });

  it('keeps churches apart: the same person id elsewhere has its own preferences', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    await call(t.app, 'POST', '/membership/visibilityPreferences', { token: c.token(), body: { email: 'none' } });
    const elsewhere = await call(t.app, 'GET', '/membership/visibilityPreferences/my', { token: other.token([], { personId: c.personId }) });
    expect(elsewhere.json()).toMatchObject({ id: null, email: 'members' });
  });

  it('validates values and needs a person', async () => {
    const c = await makeChurch(t);
    const bad = await call(t.app, 'POST', '/membership/visibilityPreferences', { token: c.token(), body: { email: 'friends' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'email', location: 'body' });
    const noPerson = await call(t.app, 'GET', '/membership/visibilityPreferences/my', { token: c.token([], { personId: null }) });
    expect(noPerson.statusCode).toBe(400);
  });
});
