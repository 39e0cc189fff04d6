import { and, eq, getTableName, isNull } from 'drizzle-orm';
import { call, expectGuarded, tokenFor } from '@church/common/testing';
import { PERMISSIONS } from '@church/auth';
import { useMembership } from '../setup';
import { claimsOf, joinAsGuest, login, makeUser, registeredChurch, serverAdmin } from '../identity-factories';
import { clock } from '../../src/domain/clock';
import { CHURCH_SCOPED_TABLES } from '../../src/repos/churches';
import {
  answers,
  churches,
  auditLogs,
  clientErrors,
  domains,
  formSubmissions,
  forms,
  groupMemberHistory,
  groupMembers,
  groups,
  households,
  memberPermissions,
  oauthCodes,
  oauthDeviceCodes,
  oauthRefreshTokens,
  people,
  personFieldValues,
  personFields,
  questions,
  roleMembers,
  rolePermissions,
  roles,
  settings,
  userChurches,
  visibilityPreferences,
  apiKeys,
  oauthRelaySessions,
  webhooks,
  webhookDeliveries,
  webhookAttempts,
  savedLists,
  householdPickups,
  groupJoinRequests,
  associatedGroups,
  batches,
  batchItems,
  sites,
} from '../../src/db/schema';

const t = useMembership();
afterEach(() => jest.restoreAllMocks());

const ADDRESS = { address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };
const publicOf = (c: Record<string, unknown>) => ({ id: c.id, name: c.name, subDomain: c.subDomain, address1: '1 Main St', address2: null, city: 'Springfield', state: 'IL', zip: '62701', country: 'US' });

describe('POST /membership/churches/add', () => {
  it('creates the church with its roles, Everyone permissions, the creator’s Staff person and link', async () => {
    const user = await makeUser(t, { firstName: 'Cal', lastName: 'Vin' });
    const { token } = await login(t, user.email);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/churches/add', body: { name: 'X', ...ADDRESS } }, crypto.randomUUID());
    const res = await call(t.app, 'POST', '/membership/churches/add', { token, body: { name: 'First Church of Springfield!', ...ADDRESS } });
    expect(res.statusCode).toBe(200);
    const church = res.json();
    expect(church).toEqual({ id: expect.any(String), name: 'First Church of Springfield!', subDomain: 'firstchurchofspringfield', ...ADDRESS, address2: null, archivedDate: null, lastActivity: expect.any(String) });
    const roleRows = await t.app.db.select().from(roles).where(eq(roles.churchId, church.id));
    expect(roleRows.map((r) => r.name).sort()).toEqual(['All Members', 'Domain Admins']);
    const admins = roleRows.find((r) => r.name === 'Domain Admins')!;
    const perms = await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.churchId, church.id));
    expect(perms.filter((p) => p.roleId === admins.id).map((p) => `${p.apiName}:${p.contentType}.${p.action}`).sort()).toEqual(
      PERMISSIONS.map((p) => `${p.apiName}:${p.contentType}.${p.action}`).sort(),
    );
    expect(perms.filter((p) => p.roleId === roleRows.find((r) => r.name === 'All Members')!.id).map((p) => [p.contentType, p.action])).toEqual([['People', 'View Members']]);
    expect(perms.filter((p) => p.roleId === null).map((p) => [p.apiName, p.contentType, p.action]).sort()).toEqual([
      ['AttendanceApi', 'Attendance', 'Checkin'],
      ['MembershipApi', 'People', 'Edit Self'],
    ]);
    expect(await t.app.db.select({ userId: roleMembers.userId }).from(roleMembers).where(eq(roleMembers.roleId, admins.id))).toEqual([{ userId: user.id }]);
    const [link] = await t.app.db.select().from(userChurches).where(eq(userChurches.churchId, church.id));
    const [person] = await t.app.db.select().from(people).where(eq(people.churchId, church.id));
    expect(link).toMatchObject({ userId: user.id, personId: person!.id });
    expect(person).toMatchObject({ userId: user.id, firstName: 'Cal', lastName: 'Vin', email: user.email, membershipStatus: 'Staff', householdId: expect.any(String) });
    expect(await t.app.db.select().from(households).where(eq(households.id, person!.householdId!))).toHaveLength(1);
  });

  it('names every missing required field', async () => {
    const { token } = await login(t, (await makeUser(t)).email);
    const res = await call(t.app, 'POST', '/membership/churches/add', { token, body: { name: 'Only a name', city: '  ' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { param: string }) => e.param).sort()).toEqual(['address1', 'city', 'country', 'state', 'zip']);
  });

  // AppHelper:packages/login/src/components/SelectChurchRegister.tsx suggests a subDomain from the name and expects
  // a church back: a chosen subDomain that is taken is numbered like a generated one.
  it('numbers a taken subDomain, generated or chosen, and answers the church', async () => {
    const { token } = await login(t, (await makeUser(t)).email);
    const name = `Hope ${crypto.randomUUID().slice(0, 6)}`;
    const a = (await call(t.app, 'POST', '/membership/churches/add', { token, body: { name, ...ADDRESS } })).json();
    const b = (await call(t.app, 'POST', '/membership/churches/add', { token, body: { name, ...ADDRESS } })).json();
    expect(b.subDomain).toBe(`${a.subDomain}2`);
    const taken = await call(t.app, 'POST', '/membership/churches/add', { token, body: { name: 'Other', subDomain: a.subDomain.toUpperCase(), ...ADDRESS } });
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toMatchObject({ name: 'Other', subDomain: `${a.subDomain}3` });
    const free = `free${crypto.randomUUID().slice(0, 6)}`;
    expect((await call(t.app, 'POST', '/membership/churches/add', { token, body: { name: 'Free', subDomain: free, ...ADDRESS } })).json().subDomain).toBe(free);
    const bad = await call(t.app, 'POST', '/membership/churches/add', { token, body: { name: 'Other', subDomain: 'not valid!', ...ADDRESS } });
    expect(bad.json().errors[0].param).toBe('subDomain');
  });
});

describe('GET /membership/churches and /:id', () => {
  it('lists the caller’s churches and reads only churches the caller belongs to', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/churches' }, a.church.id);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/churches/${a.church.id}` }, a.church.id);
    expect((await call(t.app, 'GET', '/membership/churches', { token: a.token })).json()).toEqual([{ ...a.church, lastActivity: expect.any(String) }]);
    expect((await call(t.app, 'GET', `/membership/churches/${a.church.id}`, { token: a.token })).json()).toMatchObject({ id: a.church.id, name: a.church.name });
    expect((await call(t.app, 'GET', `/membership/churches/${b.church.id}`, { token: a.token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/churches/nope', { token: a.token })).json().errors[0].param).toBe('id');
  });

  it('answers concurrent lists of several users (read together) each with only that user’s churches', async () => {
    const [a, b] = [await registeredChurch(t), await registeredChurch(t)];
    const lists = await Promise.all([a, b, a, b].map(({ token }) => call(t.app, 'GET', '/membership/churches', { token })));
    expect(lists.map((r) => r.json().map((church: { id: string }) => church.id))).toEqual([[a.church.id], [b.church.id], [a.church.id], [b.church.id]]);
  });

  it('GET /:id/getDomainAdmin answers the church’s domain admin', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/churches/${a.church.id}/getDomainAdmin` }, a.church.id);
    // staff (a member of one of the church's roles) read the address; anyone who linked themselves, the name alone
    expect((await call(t.app, 'GET', `/membership/churches/${a.church.id}/getDomainAdmin`, { token: a.token })).json()).toEqual({
      id: a.user.id,
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: a.user.email,
    });
    const guest = await joinAsGuest(t, a.church.id);
    const asGuest = await call(t.app, 'GET', `/membership/churches/${a.church.id}/getDomainAdmin`, { token: guest.token });
    expect(asGuest.statusCode).toBe(200);
    expect(asGuest.json()).toEqual({ id: a.user.id, firstName: 'Ada', lastName: 'Lovelace' });
    const admin = await serverAdmin(t);
    expect((await call(t.app, 'GET', `/membership/churches/${a.church.id}/getDomainAdmin`, { token: admin.token })).json().email).toBe(a.user.email);
    expect((await call(t.app, 'GET', `/membership/churches/${b.church.id}/getDomainAdmin`, { token: a.token })).statusCode).toBe(404);
  });
});

describe('public church lookups', () => {
  it('GET /search, POST /search, GET /lookup and POST /byIds answer public fields of unarchived churches', async () => {
    const tag = crypto.randomUUID().slice(0, 6);
    const a = await registeredChurch(t, { name: `Bethel ${tag}` });
    const b = await registeredChurch(t, { name: `Bethany ${tag}` });
    const admin = await serverAdmin(t);
    await call(t.app, 'POST', `/membership/churches/${b.church.id}/archive`, { token: admin.token });
    expect((await call(t.app, 'GET', `/membership/churches/search/?name=bethel ${tag}`)).json()).toEqual([publicOf(a.church)]);
    expect((await call(t.app, 'GET', `/membership/churches/search?name=${tag}`)).json()).toEqual([publicOf(a.church)]);
    expect((await call(t.app, 'POST', '/membership/churches/search', { body: { name: tag } })).json()).toEqual([publicOf(a.church)]);
    expect((await call(t.app, 'GET', `/membership/churches/lookup/?subDomain=${a.church.subDomain.toUpperCase()}`)).json()).toEqual(publicOf(a.church));
    expect((await call(t.app, 'GET', `/membership/churches/lookup?id=${a.church.id}`)).json()).toEqual(publicOf(a.church));
    expect((await call(t.app, 'GET', `/membership/churches/lookup?id=${b.church.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/churches/lookup')).json().errors[0]).toMatchObject({ param: 'subDomain', location: 'query' });
    expect((await call(t.app, 'POST', '/membership/churches/byIds', { body: [a.church.id, b.church.id] })).json()).toEqual([publicOf(a.church)]);
    expect((await call(t.app, 'POST', '/membership/churches/byIds', { body: { ids: [a.church.id] } })).json()).toEqual([publicOf(a.church)]);
    expect((await call(t.app, 'POST', '/membership/churches/byIds', { body: ['x'] })).statusCode).toBe(400);
    expect((await call(t.app, 'GET', '/membership/churches/search')).statusCode).toBe(400);
  });
});

describe('POST /membership/churches', () => {
  it('updates the token’s own church only, with Settings.Edit', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/churches', body: { name: 'X' }, permission: 'Settings.Edit' }, a.church.id);
    const res = await call(t.app, 'POST', '/membership/churches', { token: a.token, body: { id: a.church.id, name: 'Renamed', city: 'Shelbyville' } });
    expect(res.json()).toEqual([{ ...a.church, name: 'Renamed', city: 'Shelbyville', lastActivity: expect.any(String) }]);
    const other = await call(t.app, 'POST', '/membership/churches', { token: a.token, body: { id: b.church.id, name: 'Hijacked' } });
    expect(other.statusCode).toBe(404);
    expect((await t.app.db.select().from(churches).where(eq(churches.id, b.church.id)))[0]!.name).toBe(b.church.name);
    const taken = await call(t.app, 'POST', '/membership/churches', { token: a.token, body: { subDomain: b.church.subDomain } });
    expect(taken.statusCode).toBe(409);
  });

  it('refuses to clear a field that registration requires, and keeps the church as it was', async () => {
    const a = await registeredChurch(t);
    for (const [field, value] of [['city', null], ['address1', ''], ['country', '  '], ['name', null]] as const) {
      const res = await call(t.app, 'POST', '/membership/churches', { token: a.token, body: { id: a.church.id, [field]: value } });
      expect({ field, status: res.statusCode, error: res.json().errors[0] }).toEqual({ field, status: 400, error: expect.objectContaining({ param: field, location: 'body' }) });
    }
    const [row] = await t.app.db.select().from(churches).where(eq(churches.id, a.church.id));
    expect(row).toMatchObject({ name: a.church.name, address1: a.church.address1, city: a.church.city, country: a.church.country });
    const cleared = await call(t.app, 'POST', '/membership/churches', { token: a.token, body: { id: a.church.id, address2: null } });
    expect(cleared.statusCode).toBe(200);
  });
});

describe('POST /membership/churches/select', () => {
  it('switches to a church by id or subDomain; a newcomer gets a guest person and the Everyone permissions', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t, { user: a.user });
    const stranger = await makeUser(t);
    const { token } = await login(t, stranger.email);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/churches/select', body: { churchId: a.church.id } }, a.church.id);
    const bySub = await call(t.app, 'POST', '/membership/churches/select', { token: a.token, body: { subDomain: b.church.subDomain } });
    expect(claimsOf(bySub.json().token).churchId).toBe(b.church.id);
    expect(bySub.json().church.id).toBe(b.church.id);

    const res = await call(t.app, 'POST', '/membership/churches/select', { token, body: { churchId: a.church.id } });
    expect(res.statusCode).toBe(200);
    // One user-church, as the apps' login package reads it (`UserHelper.setupApiHelper(userChurch)`).
    const body = res.json();
    expect(body).toMatchObject({ church: { id: a.church.id, name: a.church.name }, person: { id: expect.any(String), membershipStatus: 'Guest' }, groups: [] });
    expect(body.jwt).toBe(body.token);
    expect(body.apis.map((api: { keyName: string }) => api.keyName)).toEqual(['MembershipApi', 'AttendanceApi', 'GivingApi', 'MessagingApi', 'ContentApi', 'DoingApi', 'ReportingApi']);
    expect(body.apis.every((api: { jwt: string }) => api.jwt === body.jwt)).toBe(true);
    expect(body.apis.find((api: { keyName: string }) => api.keyName === 'MembershipApi').permissions).toEqual([{ contentType: 'People', action: 'Edit Self' }]);
    expect(claimsOf(body.token)).toMatchObject({ churchId: a.church.id, personId: body.person.id, permissions: { MembershipApi: ['People.EditSelf'], AttendanceApi: ['Attendance.Checkin'] } });
    const [person] = await t.app.db.select().from(people).where(eq(people.id, body.person.id));
    expect(person).toMatchObject({ churchId: a.church.id, userId: stranger.id, membershipStatus: 'Guest', email: stranger.email });
    // Selecting again keeps the same person.
    const again = (await call(t.app, 'POST', '/membership/churches/select', { token, body: { churchId: a.church.id } })).json();
    expect(again.person.id).toBe(person!.id);
    expect(await t.app.db.select().from(people).where(and(eq(people.churchId, a.church.id), eq(people.userId, stranger.id)))).toHaveLength(1);
  });

  it('answers 404 for an unknown or archived church and 400 without a church', async () => {
    const a = await registeredChurch(t);
    const admin = await serverAdmin(t);
    expect((await call(t.app, 'POST', '/membership/churches/select', { token: a.token, body: { churchId: crypto.randomUUID() } })).statusCode).toBe(404);
    const b = await registeredChurch(t);
    await call(t.app, 'POST', `/membership/churches/${b.church.id}/archive`, { token: admin.token });
    expect((await call(t.app, 'POST', '/membership/churches/select', { token: a.token, body: { churchId: b.church.id } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/churches/select', { token: a.token, body: {} })).json().errors[0].param).toBe('churchId');
  });
});

describe('server-admin church routes', () => {
  it('GET /:id/impersonate mints a token for the church with every permission', async () => {
    const a = await registeredChurch(t);
    const admin = await serverAdmin(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/churches/${a.church.id}/impersonate`, permission: 'Server.Admin' }, a.church.id);
    expect((await call(t.app, 'GET', `/membership/churches/${a.church.id}/impersonate`, { token: a.token })).statusCode).toBe(401);
    const res = await call(t.app, 'GET', `/membership/churches/${a.church.id}/impersonate`, { token: admin.token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user.id).toBe(admin.user.id);
    expect(body.churches).toHaveLength(1);
    expect(body.churches[0].church.id).toBe(a.church.id);
    const claims = claimsOf(body.token) as { churchId: string; permissions: Record<string, string[]> };
    expect(claims.churchId).toBe(a.church.id);
    expect(Object.values(claims.permissions).flat()).toHaveLength(PERMISSIONS.length + 1);
    expect((await call(t.app, 'GET', `/membership/churches/${crypto.randomUUID()}/impersonate`, { token: admin.token })).statusCode).toBe(404);
  });

  it('GET /all searches every church, archived included', async () => {
    const tag = crypto.randomUUID().slice(0, 6);
    const a = await registeredChurch(t, { name: `Zion ${tag}` });
    const admin = await serverAdmin(t);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/churches/all?term=${tag}`, permission: 'Server.Admin' }, a.church.id);
    await call(t.app, 'POST', `/membership/churches/${a.church.id}/archive`, { token: admin.token });
    const res = (await call(t.app, 'GET', `/membership/churches/all?term=${tag}`, { token: admin.token })).json();
    expect(res).toEqual([{ ...a.church, archivedDate: expect.any(String), lastActivity: expect.any(String), registrationDate: expect.any(String) }]);
  });

  // B1Admin:src/serverAdmin/components/ChurchesTab.tsx shows DateHelper.toDate(c.registrationDate) and posts
  // `{archived}` to the archive route.
  it('GET /all answers when each church registered; POST /:id/archive takes {archived}', async () => {
    const tag = crypto.randomUUID().slice(0, 6);
    const before = Date.now();
    const a = await registeredChurch(t, { name: `Bethel ${tag}` });
    const admin = await serverAdmin(t);
    const [row] = (await call(t.app, 'GET', `/membership/churches/all?term=${tag}`, { token: admin.token })).json();
    expect(new Date(row.registrationDate).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(row.registrationDate).getTime()).toBeLessThanOrEqual(Date.now());
    const archive = (archived: boolean) => call(t.app, 'POST', `/membership/churches/${a.church.id}/archive`, { token: admin.token, body: { archived } });
    const archived = (await archive(true)).json();
    expect(archived).toMatchObject({ id: a.church.id, archivedDate: expect.any(String), registrationDate: row.registrationDate });
    // Sending the same state twice keeps it (the tab's double click does not restore the church).
    expect((await archive(true)).json().archivedDate).toBe(archived.archivedDate);
    expect((await archive(false)).json().archivedDate).toBeNull();
    expect((await archive(false)).json().archivedDate).toBeNull();
  });

  it('POST /:id/archive toggles the archived date', async () => {
    const a = await registeredChurch(t);
    const admin = await serverAdmin(t);
    await expectGuarded(t.app, { method: 'POST', url: `/membership/churches/${a.church.id}/archive`, permission: 'Server.Admin' }, a.church.id);
    expect((await call(t.app, 'POST', `/membership/churches/${a.church.id}/archive`, { token: a.token })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/membership/churches/${a.church.id}/archive`, { token: admin.token })).json().archivedDate).toEqual(expect.any(String));
    expect((await call(t.app, 'POST', `/membership/churches/${a.church.id}/archive`, { token: admin.token })).json().archivedDate).toBeNull();
  });

  it('DELETE /deleteAbandoned removes churches idle 7+ days that nobody else joined', async () => {
    const admin = await serverAdmin(t);
    await expectGuarded(t.app, { method: 'DELETE', url: '/membership/churches/deleteAbandoned', permission: 'Server.Admin' }, crypto.randomUUID());
    const abandoned = await registeredChurch(t);
    const joined = await registeredChurch(t);
    await joinAsGuest(t, joined.church.id);
    const recent = await registeredChurch(t);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const c of [abandoned, joined]) await t.app.db.update(churches).set({ lastActivity: eightDaysAgo }).where(eq(churches.id, c.church.id));
    const res = await call(t.app, 'DELETE', '/membership/churches/deleteAbandoned', { token: admin.token });
    expect(res.json().deletedChurchIds).toContain(abandoned.church.id);
    expect(res.json().deletedChurchIds).not.toContain(joined.church.id);
    expect(res.json().deletedChurchIds).not.toContain(recent.church.id);
    const gone = abandoned.church.id;
    for (const table of [roles, roleMembers, rolePermissions, userChurches, people]) {
      expect(await t.app.db.select().from(table).where(eq(table.churchId, gone))).toEqual([]);
    }
    expect(await t.app.db.select().from(churches).where(eq(churches.id, gone))).toEqual([]);
    expect(await t.app.db.select().from(churches).where(eq(churches.id, joined.church.id))).toHaveLength(1);
    // The recent church is deleted only once the clock says it has been idle for 7 days.
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 7 * 24 * 3600 * 1000 + 60_000));
    expect((await call(t.app, 'DELETE', '/membership/churches/deleteAbandoned', { token: admin.token })).json().deletedChurchIds).toContain(recent.church.id);
    expect(await t.app.db.select().from(rolePermissions).where(and(eq(rolePermissions.churchId, recent.church.id), isNull(rolePermissions.roleId)))).toEqual([]);
  });

  it('DELETE /deleteAbandoned deletes every church-scoped row of the church, and no other church’s', async () => {
    const admin = await serverAdmin(t);
    const abandoned = await registeredChurch(t);
    const kept = await registeredChurch(t);
    for (const c of [abandoned, kept]) await seedEveryTable(c.church.id, c.user.id, c.personId);
    await t.app.db.update(churches).set({ lastActivity: new Date(Date.now() - 8 * 24 * 3600 * 1000) }).where(eq(churches.id, abandoned.church.id));
    const tables = await churchScopedTables();
    // Every church-scoped table holds a row of the church, so the check below covers them all.
    const empty = [];
    for (const table of tables) if ((await rowsOf(table, abandoned.church.id)) === 0) empty.push(table);
    expect(empty).toEqual([]);
    const keptBefore = await Promise.all(tables.map((table) => rowsOf(table, kept.church.id)));

    const res = await call(t.app, 'DELETE', '/membership/churches/deleteAbandoned', { token: admin.token });
    expect(res.json().deletedChurchIds).toContain(abandoned.church.id);
    const left = [];
    for (const table of tables) if ((await rowsOf(table, abandoned.church.id)) > 0) left.push(table);
    expect(left).toEqual([]);
    expect(await t.app.db.select().from(churches).where(eq(churches.id, abandoned.church.id))).toEqual([]);
    expect(await Promise.all(tables.map((table) => rowsOf(table, kept.church.id)))).toEqual(keptBefore);
    // Its domain name is free again.
    const free = await call(t.app, 'POST', '/membership/domains', { token: kept.token, body: { domainName: `${abandoned.church.id}.example.test` } });
    expect(free.statusCode).toBe(200);
  });

  it('deleteAbandoned deletes from every table of the database that has a church_id', async () => {
    expect(CHURCH_SCOPED_TABLES.map(({ table }) => getTableName(table)).sort()).toEqual(await churchScopedTables());
  });

  it('a church-scoped token with every permission is still not a server admin', async () => {
    const token = tokenFor({ churchId: crypto.randomUUID(), permissions: 'all' });
    expect((await call(t.app, 'DELETE', '/membership/churches/deleteAbandoned', { token })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/membership/churches/all', { token })).statusCode).toBe(401);
  });
});

/** Tables of the test database with a `church_id` column, read from the catalogue (not from the schema). */
async function churchScopedTables(): Promise<string[]> {
  const rows = await t.deps.database.rows<{ name: string }>(
    "select table_name as name from information_schema.columns where column_name = 'church_id' and table_schema = current_schema() order by 1",
    [],
  );
  // Revocation stamps are not the church's data: they must outlive the church until the tokens they refuse expire.
  return rows.map((r) => r.name).filter((name) => name !== 'token_revocations');
}

async function rowsOf(table: string, churchId: string): Promise<number> {
  const [row] = await t.deps.database.rows<{ n: number }>(`select count(*)::int as n from "${table}" where church_id = $1`, [churchId]);
  return Number(row!.n);
}

/** A row of the church in every church-scoped table that registration leaves empty. */
async function seedEveryTable(churchId: string, userId: string, personId: string) {
  const db = t.app.db;
  const id = () => crypto.randomUUID();
  const [group] = await db.insert(groups).values({ id: id(), churchId, name: 'Youth', slug: `youth-${id().slice(0, 6)}` }).returning();
  await db.insert(groupMembers).values({ id: id(), churchId, groupId: group!.id, personId });
  await db.insert(groupMemberHistory).values({ id: id(), churchId, groupId: group!.id, personId, action: 'joined' });
  const [form] = await db.insert(forms).values({ id: id(), churchId, name: 'Signup' }).returning();
  const [question] = await db.insert(questions).values({ id: id(), churchId, formId: form!.id, title: 'Name?' }).returning();
  const [submission] = await db.insert(formSubmissions).values({ id: id(), churchId, formId: form!.id, contentType: 'person', contentId: personId }).returning();
  await db.insert(answers).values({ id: id(), churchId, formSubmissionId: submission!.id, questionId: question!.id, value: 'Ada' });
  await db.insert(memberPermissions).values({ id: id(), churchId, memberId: personId, contentId: form!.id });
  await db.insert(settings).values({ id: id(), churchId, keyName: 'directoryVisibility', value: 'Members' });
  await db.insert(domains).values({ id: id(), churchId, domainName: `${churchId}.example.test` });
  await db.insert(visibilityPreferences).values({ id: id(), churchId, personId, address: 'members' });
  const later = new Date(Date.now() + 3600 * 1000);
  await db.insert(oauthCodes).values({ id: id(), codeHash: id(), clientId: 'app', userId, churchId, redirectUri: 'https://app.example.test/cb', scopes: [], expiresAt: later });
  await db.insert(oauthRefreshTokens).values({ id: id(), tokenHash: id(), clientId: 'app', userId, churchId, scopes: [], expiresAt: later });
  await db.insert(oauthDeviceCodes).values({ id: id(), deviceCodeHash: id(), userCode: 'BCDFGHJK', clientId: 'app', scopes: [], userId, churchId, expiresAt: later });
  await db.insert(clientErrors).values({ id: id(), churchId, userId, message: 'boom' });
  await db.insert(auditLogs).values({ id: id(), churchId, userId, category: 'login', action: 'impersonate_church' });
  const [field] = await db.insert(personFields).values({ id: id(), churchId, name: 'Shirt size' }).returning();
  await db.insert(personFieldValues).values({ id: id(), churchId, personId, fieldId: field!.id, value: 'L' });
  await db.insert(apiKeys).values({ id: id(), churchId, userId, personId, name: 'Sync', prefix: id().slice(0, 8), keyHash: 'x', scopes: ['people:read'] });
  await db.insert(oauthRelaySessions).values({ id: id(), churchId, userId, sessionCode: id().slice(0, 8), provider: 'p', expiresAt: later });
  const [hook] = await db.insert(webhooks).values({ id: id(), churchId, name: 'H', url: 'https://example.org/h', secret: 'x', events: ['person.created'] }).returning();
  const [delivery] = await db.insert(webhookDeliveries).values({ id: id(), churchId, webhookId: hook!.id, messageId: 'm', event: 'person.created', payload: '{}' }).returning();
  await db.insert(webhookAttempts).values({ id: id(), churchId, deliveryId: delivery!.id, attempt: 1, durationMs: 1 });
  await db.insert(savedLists).values({ id: id(), churchId, name: 'Men' });
  const [household] = await db.insert(households).values({ id: id(), churchId, name: 'H' }).returning();
  await db.insert(householdPickups).values({ id: id(), churchId, householdId: household!.id, name: 'Grandma' });
  await db.insert(groupJoinRequests).values({ id: id(), churchId, groupId: group!.id, personId });
  await db.insert(associatedGroups).values({ id: id(), churchId, contentType: 'planType', contentId: id(), groupId: group!.id });
  const [batch] = await db.insert(batches).values({ id: id(), churchId, userId }).returning();
  await db.insert(batchItems).values({ id: id(), churchId, batchId: batch!.id, entityType: 'person', entityId: personId, action: 'updated', before: {} });
  await db.insert(sites).values({ id: id(), churchId, name: 'Youth site', subDomain: `s${id().slice(0, 8)}` });
}
