import { and, eq } from 'drizzle-orm';
import { call, expectGuarded, tokenFor } from '@church/common/testing';
import { useMembership } from '../setup';
import { claimsOf, joinAsGuest, makeUser, registeredChurch, serverAdmin } from '../identity-factories';
import { churches, people, userChurches } from '../../src/db/schema';

const t = useMembership();

const linkOf = async (userId: string, churchId: string) =>
  (await t.app.db.select().from(userChurches).where(and(eq(userChurches.userId, userId), eq(userChurches.churchId, churchId))))[0];

describe('GET /membership/userchurch/userid/:userId', () => {
  it('answers the user’s link to the token’s church', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/userchurch/userid/${a.user.id}` }, a.church.id);
    const res = await call(t.app, 'GET', `/membership/userchurch/userid/${a.user.id}`, { token: a.token });
    expect(res.json()).toEqual({ id: expect.any(String), userId: a.user.id, churchId: a.church.id, personId: a.personId, lastAccessed: expect.any(String) });
    expect((await call(t.app, 'GET', `/membership/userchurch/userid/${a.user.id}`, { token: b.token })).statusCode).toBe(404);
  });
});

describe('GET /membership/userchurch/personid/:personId', () => {
  it('answers the email of the person’s user, in the token’s church only', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/userchurch/personid/${a.personId}`, permission: 'People.View' }, a.church.id);
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${a.personId}`, { token: a.token })).json()).toEqual({ email: a.user.email });
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${a.personId}`, { token: b.token })).statusCode).toBe(404);
  });

  it('gives another person’s login email only to People.View holders; one’s own to anyone', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    const admins = await call(t.app, 'GET', `/membership/userchurch/personid/${a.personId}`, { token: guest.token });
    expect(admins.statusCode).toBe(401);
    expect(admins.body).not.toContain(a.user.email);
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${guestPerson}`, { token: guest.token })).json()).toEqual({ email: guest.user.email });
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${guestPerson}`, { token: a.token })).json()).toEqual({ email: guest.user.email });
  });
});

describe('GET /membership/userchurch/user/:userId', () => {
  it('lists every church of a user for server admins', async () => {
    const a = await registeredChurch(t);
    const second = await registeredChurch(t, { user: a.user });
    const admin = await serverAdmin(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/userchurch/user/${a.user.id}`, permission: 'Server.Admin' }, a.church.id);
    expect((await call(t.app, 'GET', `/membership/userchurch/user/${a.user.id}`, { token: a.token })).statusCode).toBe(401);
    const res = (await call(t.app, 'GET', `/membership/userchurch/user/${a.user.id}`, { token: admin.token })).json();
    expect(res.map((r: { church: { id: string } }) => r.church.id).sort()).toEqual([a.church.id, second.church.id].sort());
    expect(res[0]).toEqual({ id: expect.any(String), userId: a.user.id, churchId: expect.any(String), personId: expect.any(String), lastAccessed: expect.any(String), church: expect.objectContaining({ name: expect.any(String) }) });
  });
});

describe('POST /membership/userchurch', () => {
  it('links the caller (or, as a server admin, another user) to a person of the token’s church', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const outsider = await makeUser(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/userchurch', body: {} }, a.church.id);
    // A church admin cannot attach an arbitrary user of the platform to their church.
    const refused = await call(t.app, 'POST', '/membership/userchurch', { token: a.token, body: { userId: outsider.id, personId: a.personId } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].param).toBe('userId');
    expect(await linkOf(outsider.id, a.church.id)).toBeUndefined();
    const admin = tokenFor({ churchId: a.church.id, personId: null, permissions: [], serverAdmin: true });
    const res = await call(t.app, 'POST', '/membership/userchurch', { token: admin, body: { userId: outsider.id, personId: a.personId } });
    expect(res.json()).toEqual({ id: expect.any(String), userId: outsider.id, churchId: a.church.id, personId: a.personId, lastAccessed: null });
    // A guest may link only themself.
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body: { userId: outsider.id } })).statusCode).toBe(401);
    // Another church's person is 404 and nothing is written.
    const stranger = await makeUser(t);
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: b.token, body: { personId: a.personId } })).statusCode).toBe(404);
    expect((await linkOf(b.user.id, b.church.id))!.personId).toBe(b.personId);
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: b.token, body: { userId: stranger.id, personId: a.personId } })).statusCode).toBe(400);
    expect(await linkOf(stranger.id, b.church.id)).toBeUndefined();
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: a.token, body: { personId: 'x' } })).json().errors[0].param).toBe('personId');
  });

  it('refuses a caller without People.Edit another person of the church, and writes nothing', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    for (const body of [{ personId: a.personId }, { userId: guest.user.id, personId: a.personId }]) {
      const res = await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body });
      expect([res.statusCode, res.json()]).toEqual([401, { errors: ['Missing permission: People.Edit'] }]);
    }
    // An unknown person answers the same: a guest cannot probe for person ids.
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body: { personId: crypto.randomUUID() } })).statusCode).toBe(401);
    expect((await linkOf(guest.user.id, a.church.id))!.personId).toBe(guestPerson);
    // Logging in again still gives the guest their own Guest person and nothing of the Staff admin's.
    const relogin = (await call(t.app, 'POST', '/membership/churches/select', { token: guest.token, body: { churchId: a.church.id } })).json();
    expect(relogin.person).toEqual({ id: guestPerson, membershipStatus: 'Guest' });
    expect(claimsOf(relogin.token)).toMatchObject({ personId: guestPerson, membershipStatus: 'Guest', leaderGroupIds: [] });
  });

  it('lets the caller name their own person, link without a person, and People.Edit link any person', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    const own = await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body: { personId: guestPerson } });
    expect(own.json()).toEqual({ id: expect.any(String), userId: guest.user.id, churchId: a.church.id, personId: guestPerson, lastAccessed: expect.any(String) });
    const none = await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body: {} });
    expect([none.statusCode, none.json().personId]).toEqual([200, guestPerson]);
    // A person recorded as the caller's (people.user_id) is theirs too, even when the link names another.
    const [spare] = await t.app.db.insert(people).values({ id: crypto.randomUUID(), churchId: a.church.id, userId: guest.user.id, firstName: 'G' }).returning();
    expect((await call(t.app, 'POST', '/membership/userchurch', { token: guest.token, body: { personId: spare!.id } })).json().personId).toBe(spare!.id);
    const admin = await call(t.app, 'POST', '/membership/userchurch', { token: a.token, body: { userId: guest.user.id, personId: guestPerson } });
    expect([admin.statusCode, admin.json().personId]).toEqual([200, guestPerson]);
    const self = await call(t.app, 'POST', '/membership/userchurch', { token: a.token, body: { personId: guestPerson } });
    expect([self.statusCode, self.json()]).toEqual([200, expect.objectContaining({ userId: a.user.id, personId: guestPerson })]);
  });
});

describe('POST /membership/userchurch?userId= (B1Admin’s role screen, settings/components/UserAdd.tsx)', () => {
  /** "Add person to role" as the screen does it: load or create the user, add them to the role, then link. */
  const addToRole = async (token: string, person: { id: string; first: string; last: string; email: string }) => {
    const role = (await call(t.app, 'POST', '/membership/roles', { token, body: [{ name: 'Ushers' }] })).json()[0];
    const user = (await call(t.app, 'POST', '/membership/users/loadOrCreate', { token, body: { firstName: person.first, lastName: person.last, userEmail: person.email } })).json();
    const members = await call(t.app, 'POST', '/membership/rolemembers/', { token, body: [{ userId: user.id, roleId: role.id }] });
    expect(members.statusCode).toBe(200);
    return { user, link: await call(t.app, 'POST', `/membership/userchurch?userId=${user.id}`, { token, body: { personId: person.id } }) };
  };

  it('links the user named in the query to the person, and leaves the admin’s own link alone', async () => {
    const a = await registeredChurch(t);
    const [jennifer] = await t.app.db
      .insert(people)
      .values({ id: crypto.randomUUID(), churchId: a.church.id, firstName: 'Jennifer', lastName: 'Williams', displayName: 'Jennifer Williams', email: `jw-${crypto.randomUUID().slice(0, 6)}@example.test` })
      .returning();
    const { user, link } = await addToRole(a.token, { id: jennifer!.id, first: 'Jennifer', last: 'Williams', email: jennifer!.email! });
    expect([link.statusCode, link.json()]).toEqual([200, { id: expect.any(String), userId: user.id, churchId: a.church.id, personId: jennifer!.id, lastAccessed: null }]);
    expect((await linkOf(user.id, a.church.id))!.personId).toBe(jennifer!.id);
    expect((await linkOf(a.user.id, a.church.id))!.personId).toBe(a.personId);
    // The admin still signs in as themself.
    const relogin = (await call(t.app, 'POST', '/membership/churches/select', { token: a.token, body: { churchId: a.church.id } })).json();
    expect(relogin.person.id).toBe(a.personId);
  });

  it('takes People.Edit to name another user, a person of the caller’s church, and a valid id', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    // A guest naming the admin's login in the query: 401, and neither link moves.
    const refused = await call(t.app, 'POST', `/membership/userchurch?userId=${a.user.id}`, { token: guest.token, body: { personId: guestPerson } });
    expect([refused.statusCode, refused.json()]).toEqual([401, { errors: ['Missing permission: People.Edit'] }]);
    expect((await linkOf(a.user.id, a.church.id))!.personId).toBe(a.personId);
    expect((await linkOf(guest.user.id, a.church.id))!.personId).toBe(guestPerson);
    // Another church's person: 404, nothing written.
    const other = await call(t.app, 'POST', `/membership/userchurch?userId=${guest.user.id}`, { token: a.token, body: { personId: b.personId } });
    expect(other.statusCode).toBe(404);
    expect((await linkOf(guest.user.id, a.church.id))!.personId).toBe(guestPerson);
    // A user of the platform who is not one of the church's: 400 on userId (a server admin may).
    const outsider = await makeUser(t);
    const pulled = await call(t.app, 'POST', `/membership/userchurch?userId=${outsider.id}`, { token: a.token, body: { personId: a.personId } });
    expect([pulled.statusCode, pulled.json().errors[0].param]).toEqual([400, 'userId']);
    expect(await linkOf(outsider.id, a.church.id)).toBeUndefined();
    const bad = await call(t.app, 'POST', '/membership/userchurch?userId=nope', { token: a.token, body: { personId: a.personId } });
    expect([bad.statusCode, bad.json().errors[0]]).toEqual([400, expect.objectContaining({ param: 'userId', location: 'query' })]);
    expect((await linkOf(a.user.id, a.church.id))!.personId).toBe(a.personId);
  });
});

describe('PATCH /membership/userchurch/:userId', () => {
  it('records the caller’s access to the token’s church', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    await expectGuarded(t.app, { method: 'PATCH', url: `/membership/userchurch/${a.user.id}` }, a.church.id);
    await t.app.db.update(churches).set({ lastActivity: new Date('2020-01-01') }).where(eq(churches.id, a.church.id));
    const before = (await linkOf(a.user.id, a.church.id))!.lastAccessed!;
    const res = await call(t.app, 'PATCH', `/membership/userchurch/${a.user.id}`, { token: a.token });
    expect(res.statusCode).toBe(200);
    expect(new Date(res.json().lastAccessed).getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect((await t.app.db.select().from(churches).where(eq(churches.id, a.church.id)))[0]!.lastActivity.getFullYear()).toBeGreaterThan(2020);
    expect((await call(t.app, 'PATCH', `/membership/userchurch/${a.user.id}`, { token: guest.token })).statusCode).toBe(401);
  });
});

describe('DELETE /membership/userchurch/record/:userId/:churchId/:personId', () => {
  it('deletes a link of the token’s church: one’s own, or another’s with People.Edit', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    const url = (userId: string, churchId: string, personId: string) => `/membership/userchurch/record/${userId}/${churchId}/${personId}`;
    await expectGuarded(t.app, { method: 'DELETE', url: url(guest.user.id, a.church.id, guestPerson) }, a.church.id);
    expect((await call(t.app, 'DELETE', url(a.user.id, a.church.id, a.personId), { token: guest.token })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', url(guest.user.id, a.church.id, guestPerson), { token: b.token })).statusCode).toBe(404);
    expect(await linkOf(guest.user.id, a.church.id)).toBeDefined();
    expect((await call(t.app, 'DELETE', url(guest.user.id, a.church.id, guestPerson), { token: a.token })).json()).toEqual({});
    expect(await linkOf(guest.user.id, a.church.id)).toBeUndefined();
    // The person record stays.
    expect(await t.app.db.select().from(people).where(eq(people.id, guestPerson))).toHaveLength(1);
  });
});
