import { and, eq, isNull } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { PERMISSIONS } from '@church/auth';
import { useMembership } from '../setup';
import { claimsOf, joinAsGuest, login, makeUser, registeredChurch } from '../identity-factories';
import { roleMembers, rolePermissions, roles, userChurches, users } from '../../src/db/schema';

const t = useMembership();

const roleNamed = async (churchId: string, name: string) => (await t.app.db.select().from(roles).where(and(eq(roles.churchId, churchId), eq(roles.name, name))))[0]!;

describe('roles', () => {
  it('GET /roles/church/:churchId and GET /roles/:id answer the token’s church only', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    await expectGuarded(t.app, { method: 'GET', url: `/membership/roles/church/${a.church.id}`, permission: 'Roles.View' }, a.church.id);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/roles/${admins.id}`, permission: 'Roles.View' }, a.church.id);
    const list = (await call(t.app, 'GET', `/membership/roles/church/${a.church.id}`, { token: a.token })).json();
    expect(list).toEqual([
      { id: expect.any(String), churchId: a.church.id, name: 'All Members' },
      { id: admins.id, churchId: a.church.id, name: 'Domain Admins' },
    ]);
    expect((await call(t.app, 'GET', `/membership/roles/${admins.id}`, { token: a.token })).json()).toEqual({ id: admins.id, churchId: a.church.id, name: 'Domain Admins' });
    expect((await call(t.app, 'GET', `/membership/roles/church/${a.church.id}`, { token: b.token })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/membership/roles/${admins.id}`, { token: b.token })).statusCode).toBe(404);
  });

  it('POST /roles creates and renames; another church’s role is 404 and untouched', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/roles', body: { name: 'X' }, permission: 'Roles.Edit' }, a.church.id);
    const created = (await call(t.app, 'POST', '/membership/roles', { token: a.token, body: { name: 'Ushers' } })).json();
    expect(created).toEqual([{ id: expect.any(String), churchId: a.church.id, name: 'Ushers' }]);
    const renamed = (await call(t.app, 'POST', '/membership/roles', { token: a.token, body: [{ id: created[0].id, name: 'Greeters' }] })).json();
    expect(renamed).toEqual([{ id: created[0].id, churchId: a.church.id, name: 'Greeters' }]);
    expect((await call(t.app, 'POST', '/membership/roles', { token: b.token, body: { id: created[0].id, name: 'Stolen' } })).statusCode).toBe(404);
    expect((await roleNamed(a.church.id, 'Greeters')).id).toBe(created[0].id);
    expect((await call(t.app, 'POST', '/membership/roles', { token: a.token, body: { name: '' } })).json().errors[0].param).toBe('name');
  });

  it('DELETE /roles/:id deletes the role with its permissions and members', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const [role] = (await call(t.app, 'POST', '/membership/roles', { token: a.token, body: { name: 'Tech' } })).json();
    await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: role.id, contentType: 'Content', action: 'Edit' } });
    await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: role.id, userId: a.user.id } });
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/roles/${role.id}`, permission: 'Roles.Edit' }, a.church.id);
    expect((await call(t.app, 'DELETE', `/membership/roles/${role.id}`, { token: b.token })).statusCode).toBe(404);
    expect(await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, role.id))).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/membership/roles/${role.id}`, { token: a.token })).json()).toEqual({});
    expect(await t.app.db.select().from(roles).where(eq(roles.id, role.id))).toEqual([]);
    expect(await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, role.id))).toEqual([]);
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.roleId, role.id))).toEqual([]);
  });
});

describe('role members', () => {
  it('GET /rolemembers/roles/:id lists members, with users on ?include=users', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    await expectGuarded(t.app, { method: 'GET', url: `/membership/rolemembers/roles/${admins.id}`, permission: 'Roles.View' }, a.church.id);
    const plain = (await call(t.app, 'GET', `/membership/rolemembers/roles/${admins.id}`, { token: a.token })).json();
    expect(plain).toEqual([{ id: expect.any(String), churchId: a.church.id, roleId: admins.id, userId: a.user.id, addedBy: a.user.id, personId: a.personId }]);
    const withUsers = (await call(t.app, 'GET', `/membership/rolemembers/roles/${admins.id}?include=users`, { token: a.token })).json();
    expect(withUsers[0].user).toEqual({ id: a.user.id, email: a.user.email, firstName: 'Ada', lastName: 'Lovelace' });
    expect((await call(t.app, 'GET', `/membership/rolemembers/roles/${admins.id}`, { token: b.token })).statusCode).toBe(404);
  });

  it('POST /rolemembers adds users by id or email, creating an unknown email’s account, and grants the role at login', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    const existing = await makeUser(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/rolemembers', body: { roleId: admins.id, userId: existing.id }, permission: 'Roles.Edit' }, a.church.id);
    const email = `new-${crypto.randomUUID().slice(0, 6)}@example.test`;
    const res = await call(t.app, 'POST', '/membership/rolemembers', {
      token: a.token,
      body: [
        { roleId: admins.id, userId: existing.id },
        { roleId: admins.id, email, firstName: 'Neo', lastName: 'User' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [created] = await t.app.db.select().from(users).where(eq(users.email, email));
    expect(created).toMatchObject({ firstName: 'Neo', lastName: 'User', passwordHash: expect.stringMatching(/^\$argon2id\$/) });
    expect(res.json()).toEqual([
      { id: expect.any(String), churchId: a.church.id, roleId: admins.id, userId: existing.id, addedBy: a.user.id, user: { id: existing.id, email: existing.email, firstName: 'Ada', lastName: 'Lovelace' } },
      { id: expect.any(String), churchId: a.church.id, roleId: admins.id, userId: created!.id, addedBy: a.user.id, user: { id: created!.id, email, firstName: 'Neo', lastName: 'User' } },
    ]);
    // Adding again does not duplicate.
    const again = (await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: admins.id, userId: existing.id } })).json();
    expect(again[0].id).toBe(res.json()[0].id);
    expect(await t.app.db.select().from(userChurches).where(and(eq(userChurches.userId, existing.id), eq(userChurches.churchId, a.church.id)))).toHaveLength(1);
    const loggedIn = await login(t, existing.email);
    expect(loggedIn.churches[0].church.id).toBe(a.church.id);
    expect(Object.values(claimsOf(loggedIn.token).permissions as Record<string, string[]>).flat()).toHaveLength(PERMISSIONS.length);
    // Another church cannot add to this role.
    expect((await call(t.app, 'POST', '/membership/rolemembers', { token: b.token, body: { roleId: admins.id, userId: b.user.id } })).statusCode).toBe(404);
    expect(await t.app.db.select().from(roleMembers).where(and(eq(roleMembers.roleId, admins.id), eq(roleMembers.userId, b.user.id)))).toEqual([]);
    expect((await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: admins.id } })).json().errors[0].param).toBe('email');
  });

  it('POST /rolemembers by email matches only a verified address (or an account nobody has signed into)', async () => {
    const a = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    // someone signed into this account without ever proving its address
    const squatter = await makeUser(t);
    await login(t, squatter.email);
    const refused = await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: admins.id, email: squatter.email.toUpperCase() } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].param).toBe('email');
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, squatter.id))).toEqual([]);
    // once the address is verified (a mailed link followed), the same grant goes through
    await t.app.db.update(users).set({ emailVerified: true }).where(eq(users.id, squatter.id));
    const granted = await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: admins.id, email: squatter.email } });
    expect([granted.statusCode, granted.json()[0].userId]).toEqual([200, squatter.id]);
  });

  it('DELETE /rolemembers/:id removes a member of the church’s role', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    const [member] = (await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: admins.id, userId: (await makeUser(t)).id } })).json();
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/rolemembers/${member.id}`, permission: 'Roles.View' }, a.church.id);
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/${member.id}`, { token: b.token })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/${member.id}`, { token: a.token })).json()).toEqual({});
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.id, member.id))).toEqual([]);
  });

  it('DELETE /rolemembers/self/:churchId/:userId lets users leave a church, only themselves', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/rolemembers/self/${a.church.id}/${a.user.id}` }, a.church.id);
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/self/${a.church.id}/${a.user.id}`, { token: guest.token })).statusCode).toBe(401);
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id))).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/self/${a.church.id}/${a.user.id}`, { token: a.token })).json()).toEqual({});
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id))).toEqual([]);
    expect(await t.app.db.select().from(userChurches).where(eq(userChurches.userId, a.user.id))).toEqual([]);
    expect((await login(t, a.user.email)).churches).toEqual([]);
  });
});

describe('role permissions', () => {
  it('GET /rolepermissions/roles/:id lists a role’s permissions; `null` is the Everyone role', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const members = await roleNamed(a.church.id, 'All Members');
    await expectGuarded(t.app, { method: 'GET', url: '/membership/rolepermissions/roles/null', permission: 'Roles.View' }, a.church.id);
    expect((await call(t.app, 'GET', '/membership/rolepermissions/roles/null', { token: a.token })).json()).toEqual([
      { id: expect.any(String), churchId: a.church.id, roleId: null, apiName: 'AttendanceApi', contentType: 'Attendance', contentId: null, action: 'Checkin' },
      { id: expect.any(String), churchId: a.church.id, roleId: null, apiName: 'MembershipApi', contentType: 'People', contentId: null, action: 'Edit Self' },
    ]);
    expect((await call(t.app, 'GET', `/membership/rolepermissions/roles/${members.id}`, { token: a.token })).json()).toEqual([
      { id: expect.any(String), churchId: a.church.id, roleId: members.id, apiName: 'MembershipApi', contentType: 'People', contentId: null, action: 'View Members' },
    ]);
    expect((await call(t.app, 'GET', `/membership/rolepermissions/roles/${members.id}`, { token: b.token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/rolepermissions/roles/nope', { token: a.token })).statusCode).toBe(400);
  });

  it('POST /rolepermissions grants known permissions in canonical spelling, once; the Everyone role changes every member’s login', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/rolepermissions', body: { roleId: null, contentType: 'People', action: 'View' }, permission: 'Roles.Edit' }, a.church.id);
    const res = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, contentType: 'Attendance', action: 'ViewSummary' } });
    expect(res.json()).toEqual([{ id: expect.any(String), churchId: a.church.id, roleId: null, apiName: 'AttendanceApi', contentType: 'Attendance', contentId: null, action: 'View Summary' }]);
    const again = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, contentType: 'Attendance', action: 'View Summary' } });
    expect(again.json()[0].id).toBe(res.json()[0].id);
    const relogin = await login(t, guest.user.email);
    expect(claimsOf(relogin.token).permissions).toMatchObject({ AttendanceApi: expect.arrayContaining(['Attendance.ViewSummary', 'Attendance.Checkin']) });

    const unknown = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, contentType: 'Server', action: 'Admin' } });
    expect([unknown.statusCode, unknown.json().errors[0].param]).toEqual([400, 'action']);
    const ambiguous = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, contentType: 'Settings', action: 'Edit' } });
    expect(ambiguous.json().errors[0].param).toBe('apiName');
    const giving = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, apiName: 'GivingApi', contentType: 'Settings', action: 'Edit' } });
    expect(giving.json()[0]).toMatchObject({ apiName: 'GivingApi', contentType: 'Settings', action: 'Edit' });
    const bRole = await roleNamed(b.church.id, 'All Members');
    expect((await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: bRole.id, contentType: 'People', action: 'Edit' } })).statusCode).toBe(404);
    expect(await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, bRole.id))).toHaveLength(1);
  });

  it('POST /rolepermissions addresses the Everyone role only by an explicit `roleId: null`', async () => {
    const a = await registeredChurch(t);
    const members = await roleNamed(a.church.id, 'All Members');
    const everyone = async () => (await t.app.db.select().from(rolePermissions).where(and(eq(rolePermissions.churchId, a.church.id), isNull(rolePermissions.roleId)))).length;
    const before = await everyone();
    // Creating without roleId is a 400 naming the field (the item of an array body), and nothing is written.
    const single = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { contentType: 'People', action: 'View' } });
    expect([single.statusCode, single.json().errors[0]]).toEqual([400, { msg: expect.any(String), param: 'roleId', location: 'body' }]);
    const batch = [
      { roleId: members.id, contentType: 'Content', action: 'Edit' },
      { contentType: 'People', action: 'View' },
    ];
    const listed = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: batch });
    expect([listed.statusCode, listed.json().errors[0]]).toEqual([400, { msg: expect.any(String), param: '[1].roleId', location: 'body' }]);
    const one = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: [{ contentType: 'People', action: 'View' }] });
    expect(one.json().errors[0].param).toBe('[0].roleId');
    expect(await everyone()).toBe(before);
    expect(await t.app.db.select().from(rolePermissions).where(and(eq(rolePermissions.roleId, members.id), eq(rolePermissions.contentType, 'Content')))).toEqual([]);

    // Updating without roleId keeps the grant's role; `roleId: null` moves it to Everyone.
    const [grant] = (await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: members.id, contentType: 'People', action: 'View' } })).json();
    const kept = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { id: grant.id, contentType: 'People', action: 'Edit' } });
    expect(kept.json()).toEqual([{ ...grant, action: 'Edit' }]);
    expect(await everyone()).toBe(before);
    const moved = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { id: grant.id, roleId: null, contentType: 'People', action: 'Edit' } });
    expect(moved.json()).toEqual([{ ...grant, roleId: null, action: 'Edit' }]);
    expect(await everyone()).toBe(before + 1);
  });

  it('DELETE /rolepermissions/:id deletes one of the church’s grants', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const [grant] = (await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: { roleId: null, contentType: 'People', action: 'View' } })).json();
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/rolepermissions/${grant.id}`, permission: 'Roles.Edit' }, a.church.id);
    expect((await call(t.app, 'DELETE', `/membership/rolepermissions/${grant.id}`, { token: b.token })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/rolepermissions/${grant.id}`, { token: a.token })).json()).toEqual({});
    expect(await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.id, grant.id))).toEqual([]);
  });
});

describe('GET /membership/permissions', () => {
  it('lists every permission of the reference to any signed-in user', async () => {
    const a = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/permissions' }, a.church.id);
    const guest = await joinAsGuest(t, a.church.id);
    const res = (await call(t.app, 'GET', '/membership/permissions', { token: guest.token })).json();
    expect(res).toEqual(PERMISSIONS.map((p) => ({ ...p })));
  });
});

// B1Admin:src/settings/RolePage.tsx reads /roles/:roleId and /rolemembers/roles/:roleId?include=users, with
// `everyone` for the Everyone role (whose permissions RolePermissions.tsx reads at /rolepermissions/roles/undefined).
describe('the role page as B1Admin reads it', () => {
  it('answers members with their user and person, the Everyone role as no members, and its permissions', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const admins = await roleNamed(a.church.id, 'Domain Admins');
    const members = await call(t.app, 'GET', `/membership/rolemembers/roles/${admins.id}?include=users`, { token: a.token });
    expect(members.json()).toEqual([
      {
        id: expect.any(String),
        churchId: a.church.id,
        roleId: admins.id,
        userId: a.user.id,
        addedBy: a.user.id,
        personId: a.personId,
        user: { id: a.user.id, email: a.user.email, firstName: 'Ada', lastName: 'Lovelace' },
      },
    ]);
    expect((await call(t.app, 'GET', '/membership/rolemembers/roles/everyone?include=users', { token: a.token })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/membership/rolemembers/roles?include=users', { token: a.token })).json()).toEqual(members.json());
    expect((await call(t.app, 'GET', '/membership/rolemembers/roles/', { token: b.token })).json().map((m: { userId: string }) => m.userId)).toEqual([b.user.id]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/rolemembers/roles/everyone', permission: 'Roles.View' }, a.church.id);
    const everyone = await call(t.app, 'GET', '/membership/rolepermissions/roles/undefined', { token: a.token });
    expect(everyone.json().map((p: { contentType: string; action: string; roleId: string | null }) => [p.contentType, p.action, p.roleId]).sort()).toEqual([
      ['Attendance', 'Checkin', null],
      ['People', 'Edit Self', null],
    ]);
    expect((await call(t.app, 'GET', '/membership/rolepermissions/roles/everyone', { token: a.token })).json()).toEqual(everyone.json());
    // The roles list of the token's church.
    const list = await call(t.app, 'GET', '/membership/roles/', { token: a.token });
    expect(list.json().map((r: { name: string }) => r.name)).toEqual(['All Members', 'Domain Admins']);
    expect((await call(t.app, 'GET', '/membership/roles', { token: b.token })).json().every((r: { churchId: string }) => r.churchId === b.church.id)).toBe(true);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/roles', permission: 'Roles.View' }, a.church.id);
  });
});
