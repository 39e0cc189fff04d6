import { eq } from 'drizzle-orm';
import { call, expectGuarded, readMailbox, tokenFor } from '@church/common/testing';
import { API_NAMES, PERMISSIONS, permissionKey, type Claims } from '@church/auth';
import { useMembership } from '../setup';
import { PASSWORD, claimsOf, joinAsGuest, login, makeUser, registeredChurch, serverAdmin } from '../identity-factories';
import { clock } from '../../src/domain/clock';
import { passwords } from '../../src/domain/account';
import { domains, groupMembers, groups, people, roleMembers, userChurches, users } from '../../src/db/schema';

const t = useMembership({ config: { APP_URL: 'https://app.example.test', ALLOWED_APP_ORIGINS: 'https://admin.example.test, https://b1.example.test' } });
afterEach(() => jest.restoreAllMocks());

const APP = { appName: 'B1 Admin', appUrl: 'https://admin.example.test/app' };
const authGuidOf = (html: string) => /auth=([A-Za-z0-9_-]+)/.exec(html)?.[1];
const mailTo = (email: string) => readMailbox(t.config).filter((m) => m.to === email);

describe('POST /membership/users/login', () => {
  it('answers the login response field for field, with a token scoped to the church', async () => {
    const { user, church, personId } = await registeredChurch(t);
    const res = await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email.toUpperCase(), password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const adminApis = API_NAMES.map((keyName) => ({
      keyName,
      permissions: expect.arrayContaining(PERMISSIONS.filter((p) => p.apiName === keyName).map(({ contentType, action }) => ({ contentType, action }))),
    }));
    expect(body).toEqual({
      user: { id: user.id, firstName: 'Ada', lastName: 'Lovelace', email: user.email, jwt: expect.any(String) },
      churches: [{ church: { id: church.id, name: church.name, subDomain: church.subDomain }, person: { id: personId, membershipStatus: 'Staff' }, groups: [], apis: adminApis }],
      token: expect.any(String),
      userChurches: [expect.any(Object)],
    });
    // What the apps' login package reads (LoginUserChurchInterface): a token per church and per API, the
    // permissions spelled as the apps test them, and the church's address.
    const [uc] = body.userChurches;
    expect(uc).toEqual({
      church: { id: church.id, name: church.name, subDomain: church.subDomain, address1: '1 Main St', address2: null, city: 'Springfield', state: 'IL', zip: '62701', country: 'US', archivedDate: null },
      person: { id: personId, membershipStatus: 'Staff' },
      groups: [],
      apis: API_NAMES.map((keyName) => ({ keyName, permissions: expect.any(Array), jwt: body.token })),
      jwt: body.token,
    });
    const appApi = (name: string) => uc.apis.find((a: { keyName: string }) => a.keyName === name).permissions;
    expect(appApi('MembershipApi')).toEqual(expect.arrayContaining([{ contentType: 'Group Members', action: 'Edit' }, { contentType: 'People', action: 'View Members' }]));
    expect(appApi('AttendanceApi')).toEqual(expect.arrayContaining([{ contentType: 'Attendance', action: 'View Summary' }]));
    expect(appApi('ReportingApi')).toEqual(expect.arrayContaining([{ apiName: 'GivingApi', contentType: 'Donations', action: 'View' }]));
    // user.jwt is the user without a church: it may add or choose one, and logs in again (the login package's flow).
    expect(claimsOf(body.user.jwt)).toMatchObject({ id: user.id, personId: null, leaderGroupIds: [] });
    const relogin = await call(t.app, 'POST', '/membership/users/login', { body: { jwt: body.user.jwt } });
    expect(relogin.json().userChurches.map((c: { church: { id: string } }) => c.church.id)).toEqual([church.id]);
    const membership = body.churches[0].apis.find((a: { keyName: string }) => a.keyName === 'MembershipApi');
    // Domain Admins hold every permission; Everyone adds People.Edit Self (already there): no duplicates.
    expect(membership.permissions).toHaveLength(PERMISSIONS.filter((p) => p.apiName === 'MembershipApi').length);
    const claims = claimsOf(body.token);
    expect(claims).toMatchObject({ id: user.id, email: user.email, firstName: 'Ada', lastName: 'Lovelace', churchId: church.id, personId, membershipStatus: 'Staff', leaderGroupIds: [] });
    expect(claims.permissions).toMatchObject({ AttendanceApi: expect.arrayContaining(['Attendance.ViewSummary', 'Attendance.Checkin']) });
    expect((claims.permissions as Record<string, string[]>).MembershipApi).toContain(permissionKey('People', 'View Confidential Notes'));
    expect(Number(claims.exp) - Number(claims.iat)).toBe(2 * 24 * 3600);
    // The token works on a guarded route of its church.
    expect((await call(t.app, 'GET', `/membership/roles/church/${church.id}`, { token: body.token })).statusCode).toBe(200);
  });

  it('scopes the token to the most recently accessed church', async () => {
    const first = await registeredChurch(t);
    const second = await registeredChurch(t, { user: first.user });
    expect(claimsOf((await login(t, first.user.email)).token).churchId).toBe(second.church.id);
    await call(t.app, 'POST', '/membership/churches/select', { token: second.token, body: { churchId: first.church.id } });
    const body = await login(t, first.user.email);
    expect(claimsOf(body.token).churchId).toBe(first.church.id);
    expect(body.churches.map((c: { church: { id: string } }) => c.church.id)).toEqual([first.church.id, second.church.id]);
  });

  it('lists groups and leaderGroupIds of the person', async () => {
    const { user, church, personId } = await registeredChurch(t);
    const groupId = crypto.randomUUID();
    const other = crypto.randomUUID();
    await t.app.db.insert(groups).values([
      { id: groupId, churchId: church.id, name: 'Youth', slug: 'youth' },
      { id: other, churchId: church.id, name: 'Choir', slug: 'choir' },
    ]);
    await t.app.db.insert(groupMembers).values([
      { id: crypto.randomUUID(), churchId: church.id, groupId, personId, leader: true },
      { id: crypto.randomUUID(), churchId: church.id, groupId: other, personId, leader: false },
    ]);
    const body = await login(t, user.email);
    expect(body.churches[0].groups).toEqual(expect.arrayContaining([{ id: groupId, name: 'Youth', leader: true }, { id: other, name: 'Choir', leader: false }]));
    expect(claimsOf(body.token).leaderGroupIds).toEqual([groupId]);
  });

  it('gives a member without roles the Everyone permissions of the church', async () => {
    const { church } = await registeredChurch(t);
    const guest = await joinAsGuest(t, church.id);
    const body = await login(t, guest.user.email);
    const apis = Object.fromEntries(body.churches[0].apis.map((a: { keyName: string; permissions: unknown[] }) => [a.keyName, a.permissions]));
    expect(apis.MembershipApi).toEqual([{ contentType: 'People', action: 'Edit Self' }]);
    expect(apis.AttendanceApi).toEqual([{ contentType: 'Attendance', action: 'Checkin' }]);
    expect(body.churches[0].person.membershipStatus).toBe('Guest');
    expect(claimsOf(body.token).permissions).toEqual({ MembershipApi: ['People.EditSelf'], AttendanceApi: ['Attendance.Checkin'] });
  });

  it('answers empty strings, never null, for a user without names and a church without their person', async () => {
    const { church, token } = await registeredChurch(t);
    // A role member added by email gets an account without names and a link without a person.
    const email = `nameless-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const [members] = (await call(t.app, 'GET', `/membership/roles/church/${church.id}`, { token })).json().filter((r: { name: string }) => r.name === 'All Members');
    expect((await call(t.app, 'POST', '/membership/rolemembers', { token, body: { roleId: members.id, email } })).statusCode).toBe(200);
    const [nameless] = await t.app.db.select().from(users).where(eq(users.email, email));
    expect(nameless).toMatchObject({ firstName: null, lastName: null });
    // Give it the factories' password so that it can log in.
    const [known] = await t.app.db.select().from(users).where(eq(users.id, (await makeUser(t)).id));
    await t.app.db.update(users).set({ passwordHash: known!.passwordHash }).where(eq(users.id, nameless!.id));
    const body = await login(t, email);
    expect(body.user).toEqual({ id: nameless!.id, firstName: '', lastName: '', email, jwt: expect.any(String) });
    expect(body.churches).toEqual([expect.objectContaining({ church: expect.objectContaining({ id: church.id }), person: { id: '', membershipStatus: '' } })]);
    expect(claimsOf(body.token)).toMatchObject({ churchId: church.id, personId: null });
  });

  it('re-authenticates with a JWT, but not with an OAuth token or a forged one', async () => {
    const { user, token } = await registeredChurch(t);
    const res = await call(t.app, 'POST', '/membership/users/login', { body: { jwt: token } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(user.id);
    const oauthLike = t.deps.signToken({ ...(claimsOf(token) as unknown as Claims), scope: 'people:read' });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { jwt: oauthLike } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { jwt: `${token}x` } })).statusCode).toBe(401);
  });

  it('re-derives a JWT login from the database: current roles and church, and a deleted user → 401', async () => {
    const first = await registeredChurch(t);
    const second = await registeredChurch(t, { user: first.user });
    // the old token is for the second church; a later access of the first makes it the most recent
    await call(t.app, 'POST', '/membership/churches/select', { token: second.token, body: { churchId: first.church.id } });
    const again = (await call(t.app, 'POST', '/membership/users/login', { body: { jwt: second.token } })).json();
    expect(claimsOf(again.token).churchId).toBe(second.church.id);
    expect(Object.values(claimsOf(again.token).permissions as object).flat()).toContain('Roles.Edit');
    // removed from every role of the church: the fresh token carries only the Everyone permissions
    await t.app.db.delete(roleMembers).where(eq(roleMembers.userId, first.user.id));
    const demoted = (await call(t.app, 'POST', '/membership/users/login', { body: { jwt: second.token } })).json();
    expect(claimsOf(demoted.token).permissions).toEqual({ MembershipApi: ['People.EditSelf'], AttendanceApi: ['Attendance.Checkin'] });
    // removed from the church: the token is for a church the user still has
    await t.app.db.delete(userChurches).where(eq(userChurches.churchId, second.church.id));
    const moved = (await call(t.app, 'POST', '/membership/users/login', { body: { jwt: second.token } })).json();
    expect(moved.churches.map((c: { church: { id: string } }) => c.church.id)).toEqual([first.church.id]);
    expect(claimsOf(moved.token).churchId).toBe(first.church.id);
    // the account deleted: 401
    expect((await call(t.app, 'DELETE', '/membership/users', { token: second.token })).statusCode).toBe(200);
    const gone = await call(t.app, 'POST', '/membership/users/login', { body: { jwt: second.token } });
    expect(gone.statusCode).toBe(401);
    expect(gone.json().errors[0]).toEqual(expect.any(String));
  });

  it('refuses a wrong password and an unknown email alike with 401 in the error shape', async () => {
    const user = await makeUser(t);
    for (const body of [{ email: user.email, password: 'wrong-password' }, { email: 'nobody@example.test', password: PASSWORD }]) {
      const res = await call(t.app, 'POST', '/membership/users/login', { body });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ errors: ['Invalid email or password'] });
    }
  });

  it('accepts exactly one credential kind', async () => {
    const { token } = await registeredChurch(t);
    const cases: Array<[object, string]> = [
      [{}, 'email'],
      [{ email: 'a@b.c', password: 'x', jwt: token }, 'jwt'],
      [{ jwt: token, authGuid: 'abc' }, 'authGuid'],
      [{ email: 'a@b.c' }, 'password'],
      [{ password: 'secret' }, 'email'],
    ];
    for (const [body, param] of cases) {
      const res = await call(t.app, 'POST', '/membership/users/login', { body });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param, location: 'body' });
    }
  });

  it('leaves archived churches out unless the user is a server admin', async () => {
    const { user, church } = await registeredChurch(t);
    const admin = await serverAdmin(t);
    expect((await call(t.app, 'POST', `/membership/churches/${church.id}/archive`, { token: admin.token })).statusCode).toBe(200);
    const body = await login(t, user.email);
    expect(body.churches).toEqual([]);
    expect(claimsOf(body.token).churchId).toBe('00000000-0000-0000-0000-000000000000');
    const adminChurch = await registeredChurch(t, { user: admin.user });
    await call(t.app, 'POST', `/membership/churches/${adminChurch.church.id}/archive`, { token: admin.token });
    const adminLogin = await login(t, admin.user.email);
    expect(adminLogin.churches.map((c: { church: { id: string } }) => c.church.id)).toEqual([adminChurch.church.id]);
    expect(adminLogin.churches[0].apis[0].permissions).toContainEqual({ contentType: 'Server', action: 'Admin' });
  });
});

describe('POST /membership/users/register', () => {
  describe('on a new instance', () => {
    const fresh = useMembership();

    it('makes the first user of a new instance server admin, and nobody after', async () => {
      const first = await call(fresh.app, 'POST', '/membership/users/register', { body: { email: 'first@example.test', firstName: 'Fay', lastName: 'First', ...APP } });
      const second = await call(fresh.app, 'POST', '/membership/users/register', { body: { email: 'second@example.test', firstName: 'Sam', lastName: 'Second', ...APP } });
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      await fresh.drain();
      const guidOf = (to: string) => authGuidOf(readMailbox(fresh.config).find((m) => m.to === to)!.html)!;
      const loginFirst = (await call(fresh.app, 'POST', '/membership/users/login', { body: { authGuid: guidOf('first@example.test') } })).json();
      const loginSecond = (await call(fresh.app, 'POST', '/membership/users/login', { body: { authGuid: guidOf('second@example.test') } })).json();
      expect(claimsOf(loginFirst.token).permissions).toEqual({ MembershipApi: ['Server.Admin'] });
      expect(claimsOf(loginSecond.token).permissions).toEqual({});
      expect((await call(fresh.app, 'GET', '/membership/users/search?term=sam', { token: loginFirst.token })).json()).toEqual([
        { id: second.json().id, firstName: 'Sam', lastName: 'Second', email: 'second@example.test' },
      ]);
    });
  });

  // AppHelper:packages/login/src/components/LoginSetPassword.tsx logs in with the link's guid to greet the person,
  // then sets the password with the same guid; it refuses a link without `timestamp` or 10 minutes past it.
  it('registers and mails a link the login package can use: login {authGuid} greets without spending it, setPasswordGuid spends it', async () => {
    const email = `reg-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const sentAt = Date.now();
    const res = await call(t.app, 'POST', '/membership/users/register', { body: { email: email.toUpperCase(), firstName: 'Reg', lastName: 'Istered', ...APP } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: expect.any(String), firstName: 'Reg', lastName: 'Istered', email });
    expect(res.body).not.toMatch(/password|authGuid/i);
    await t.drain();
    const [mail] = mailTo(email);
    expect(mail!.subject).toBe('Welcome to B1 Admin');
    const href = /href="([^"]+)"/.exec(mail!.html)![1]!.replace(/&amp;/g, '&');
    const link = new URL(href);
    expect(`${link.origin}${link.pathname}`).toBe('https://admin.example.test/app/login');
    const authGuid = link.searchParams.get('auth')!;
    // The page's 10-minute window ends when the link's 24 hours do.
    const timestamp = Number(link.searchParams.get('timestamp'));
    expect(timestamp + 10 * 60 * 1000).toBeGreaterThanOrEqual(sentAt + 24 * 3600 * 1000);
    expect(timestamp + 10 * 60 * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600 * 1000);
    const [stored] = await t.app.db.select().from(users).where(eq(users.email, email));
    expect(stored!.authGuidHash).not.toBe(authGuid);
    expect(stored!.authGuidHash).toHaveLength(64);
    expect(stored!.emailVerified).toBe(false);

    const greet = await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } });
    expect(greet.statusCode).toBe(200);
    expect(greet.json()).toMatchObject({ user: { email, firstName: 'Reg', jwt: expect.any(String) }, churches: [], userChurches: [] });
    // Following the mailed link proves the address; the guid stays for the password.
    expect((await t.app.db.select().from(users).where(eq(users.email, email)))[0]).toMatchObject({ emailVerified: true, authGuidHash: stored!.authGuidHash });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } })).statusCode).toBe(200);

    const set = await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'brand-new-pass', appName: 'B1 Admin', appUrl: APP.appUrl } });
    expect([set.statusCode, set.json()]).toEqual([200, { success: true }]);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email, password: 'brand-new-pass' } })).statusCode).toBe(200);
    // Spent: the link neither logs in nor sets a password any more.
    const again = await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } });
    expect([again.statusCode, again.json()]).toEqual([401, { errors: ['Invalid or expired authGuid'] }]);
    const twice = await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'another-pass' } });
    expect([twice.statusCode, twice.json().errors[0]]).toEqual([400, { msg: 'The link is invalid, used or expired', param: 'authGuid', location: 'body' }]);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email, password: 'another-pass' } })).statusCode).toBe(401);
  });

  it('spends the guid when the password is set with the login token instead', async () => {
    const email = `tok-${crypto.randomUUID().slice(0, 8)}@example.test`;
    await call(t.app, 'POST', '/membership/users/register', { body: { email, firstName: 'To', lastName: 'Ken', ...APP } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(email)[0]!.html)!;
    const viaGuid = await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } });
    const set = await call(t.app, 'POST', '/membership/users/updatePassword', { token: viaGuid.json().token, body: { newPassword: 'brand-new-pass' } });
    expect(set.json()).toEqual({ success: true });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'x-another' } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email, password: 'brand-new-pass' } })).statusCode).toBe(200);
  });

  it('lets only one of two concurrent password settings with the same authGuid succeed', async () => {
    const email = `race-${crypto.randomUUID().slice(0, 8)}@example.test`;
    await call(t.app, 'POST', '/membership/users/register', { body: { email, firstName: 'Ra', lastName: 'Ce', ...APP } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(email)[0]!.html)!;
    const both = await Promise.all(['first-pass', 'second-pass'].map((newPassword) => call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword } })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('spends a reset link’s authGuid when it is used to set a password', async () => {
    const user = await makeUser(t);
    await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: user.email, ...APP } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(user.email)[0]!.html)!;
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'reset-once' } })).json()).toEqual({ success: true });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'reset-twice' } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: 'reset-once' } })).statusCode).toBe(200);
  });

  it('refuses a known email with 400 and validates the body', async () => {
    const user = await makeUser(t);
    const dup = await call(t.app, 'POST', '/membership/users/register', { body: { email: user.email, firstName: 'X', lastName: 'Y', ...APP } });
    expect(dup.statusCode).toBe(400);
    expect(dup.json().errors[0].param).toBe('email');
    // B1App:src/app/[sdSlug]/mobile/components/screens/LoginPage.tsx offers to sign in when the message says so.
    expect(dup.json().errors[0].msg.toLowerCase()).toContain('user already exists');
    const bad = await call(t.app, 'POST', '/membership/users/register', { body: { email: 'new@example.test', firstName: 'X', lastName: 'Y', appName: 'A', appUrl: 'javascript:alert(1)' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('appUrl');
    const noEmail = await call(t.app, 'POST', '/membership/users/register', { body: { firstName: 'X', lastName: 'Y', ...APP } });
    expect(noEmail.json().errors[0].param).toBe('email');
  });

  it('builds links only from allowed origins: the configured list, church domains, else the default app address', async () => {
    const { church } = await registeredChurch(t);
    await t.app.db.insert(domains).values({ id: crypto.randomUUID(), churchId: church.id, domainName: 'www.gracechurch.example' });
    const cases: Array<[string, string]> = [
      ['https://admin.example.test/app', 'https://admin.example.test/app/login?auth='],
      ['https://B1.example.test', 'https://b1.example.test/login?auth='],
      ['https://www.gracechurch.example/members', 'https://www.gracechurch.example/members/login?auth='],
      ['https://attacker.example/steal', 'https://app.example.test/login?auth='],
      ['http://admin.example.test/app', 'https://app.example.test/login?auth='],
      ['https://admin.example.test.attacker.example/', 'https://app.example.test/login?auth='],
      ['https://admin.example.test@attacker.example/', 'https://app.example.test/login?auth='],
      ['https://user@admin.example.test/', 'https://app.example.test/login?auth='],
    ];
    for (const [appUrl, expected] of cases) {
      const email = `o-${crypto.randomUUID().slice(0, 8)}@example.test`;
      expect((await call(t.app, 'POST', '/membership/users/register', { body: { email, firstName: 'O', lastName: 'Rigin', appName: 'B1', appUrl } })).statusCode).toBe(200);
      await t.drain();
      const html = mailTo(email)[0]!.html;
      expect(html).toContain(`href="${expected}`);
      expect(html).not.toContain('attacker');
    }
  });

  it('escapes appName and limits its length', async () => {
    const email = `x-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const appName = '<img src=x onerror=alert(1)>&Co';
    expect((await call(t.app, 'POST', '/membership/users/register', { body: { email, firstName: 'X', lastName: 'Y', appName, appUrl: APP.appUrl } })).statusCode).toBe(200);
    await t.drain();
    const [mail] = mailTo(email);
    expect(mail!.subject).toBe('Welcome to &lt;img src=x onerror=alert(1)&gt;&amp;Co');
    expect(mail!.html).toContain('&lt;img src=x onerror=alert(1)&gt;&amp;Co');
    expect(mail!.html).not.toContain('<img');
    for (const bad of ['A'.repeat(61), 'Line\nBreak']) {
      const res = await call(t.app, 'POST', '/membership/users/register', { body: { email: `y-${crypto.randomUUID().slice(0, 8)}@example.test`, firstName: 'X', lastName: 'Y', appName: bad, appUrl: APP.appUrl } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].param).toBe('appName');
      const forgot = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: email, appName: bad, appUrl: APP.appUrl } });
      expect(forgot.json().errors[0].param).toBe('appName');
    }
  });

  it('lets an authGuid expire after 24 hours', async () => {
    const email = `exp-${crypto.randomUUID().slice(0, 8)}@example.test`;
    await call(t.app, 'POST', '/membership/users/register', { body: { email, firstName: 'Ex', lastName: 'Pired', ...APP } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(email)[0]!.html)!;
    const later = new Date(Date.now() + 24 * 3600 * 1000 + 1000);
    jest.spyOn(clock, 'now').mockReturnValue(later);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { authGuid } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'whatever1' } })).statusCode).toBe(400);
  });
});

describe('POST /membership/users/forgot', () => {
  it('mails a one-hour reset link to a known email and answers the same for an unknown one', async () => {
    const user = await makeUser(t);
    const known = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: user.email, ...APP } });
    const unknown = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: 'ghost@example.test', ...APP } });
    // B1App's LoginPage and the login package's Forgot read `emailed` (and never learn whether the account exists).
    expect([known.statusCode, known.json()]).toEqual([200, { emailed: true }]);
    expect([unknown.statusCode, unknown.json()]).toEqual([200, { emailed: true }]);
    await t.drain();
    expect(mailTo('ghost@example.test')).toEqual([]);
    const [mail] = mailTo(user.email);
    expect(mail!.subject).toBe('B1 Admin password reset');
    const authGuid = authGuidOf(mail!.html)!;
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 3601 * 1000));
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'resetpass' } })).statusCode).toBe(400);
    jest.restoreAllMocks();
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'resetpass' } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: 'resetpass' } })).statusCode).toBe(200);
  });

  it('takes the same path for known and unknown emails: answers, then looks up and mails through the queue', async () => {
    const user = await makeUser(t);
    const enqueued: Array<[unknown, unknown]> = [];
    const enqueue = t.app.deps.queue.enqueue.bind(t.app.deps.queue);
    jest.spyOn(t.app.deps.queue, 'enqueue').mockImplementation(((job: unknown, data: unknown, opts?: unknown) => {
      enqueued.push([typeof job === 'string' ? job : (job as { name: string }).name, data]);
      return (enqueue as (j: unknown, d: unknown, o?: unknown) => Promise<void>)(job, data, opts);
    }) as typeof enqueue);
    const before = (await t.app.db.select().from(users).where(eq(users.id, user.id)))[0]!;
    const known = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: user.email, ...APP } });
    const unknown = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: 'ghost@example.test', ...APP } });
    expect([known.statusCode, unknown.statusCode]).toEqual([200, 200]);
    // the route itself only queues the request, the same for both; the job looks the account up afterwards
    expect(enqueued.filter(([name]) => name === 'membership.passwordReset')).toEqual([
      ['membership.passwordReset', { email: user.email, ...APP }],
      ['membership.passwordReset', { email: 'ghost@example.test', ...APP }],
    ]);
    expect(before.authGuidHash).toBeNull();
    await t.drain();
    expect(enqueued.filter(([name]) => name === 'membership.email').map(([, data]) => (data as { to: string }).to)).toEqual([user.email]);
    expect(mailTo('ghost@example.test')).toEqual([]);
    expect(authGuidOf(mailTo(user.email)[0]!.html)).toEqual(expect.any(String));
    expect((await t.app.db.select().from(users).where(eq(users.id, user.id)))[0]!.authGuidHash).toHaveLength(64);
  });

  it('sends an attacker’s appUrl to the default app address', async () => {
    const user = await makeUser(t);
    await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: user.email, appName: 'B1', appUrl: 'https://attacker.example/steal' } });
    await t.drain();
    const [mail] = mailTo(user.email);
    expect(mail!.html).toContain('href="https://app.example.test/login?auth=');
    expect(mail!.html).not.toContain('attacker');
  });

  it('validates the body', async () => {
    const res = await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: 'not-an-email', ...APP } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('userEmail');
  });
});

describe('POST /membership/users/setPasswordGuid', () => {
  it('requires a 6-character password and a valid guid', async () => {
    const short = await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid: 'x', newPassword: '12345' } });
    expect(short.json().errors[0]).toMatchObject({ param: 'newPassword', location: 'body' });
    const unknown = await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid: 'not-a-guid', newPassword: '123456' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].param).toBe('authGuid');
  });

  it('checks the guid before hashing the password', async () => {
    const hash = jest.spyOn(passwords, 'hash');
    const bad = await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid: 'no-such-guid', newPassword: '123456' } });
    expect(bad.statusCode).toBe(400);
    expect(hash).not.toHaveBeenCalled();
    const user = await makeUser(t);
    await call(t.app, 'POST', '/membership/users/forgot', { body: { userEmail: user.email, ...APP } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(user.email)[0]!.html)!;
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'good-pass' } })).statusCode).toBe(200);
    expect(hash).toHaveBeenCalledTimes(1);
    expect((await call(t.app, 'POST', '/membership/users/setPasswordGuid', { body: { authGuid, newPassword: 'good-pass' } })).statusCode).toBe(400);
    expect(hash).toHaveBeenCalledTimes(1);
  });
});

describe('POST /membership/users/verifyCredentials', () => {
  it('answers the churches of valid credentials and 401 otherwise', async () => {
    const { user, church } = await registeredChurch(t);
    const res = await call(t.app, 'POST', '/membership/users/verifyCredentials', { body: { email: user.email, password: PASSWORD } });
    expect(res.json()).toEqual({ churches: [{ id: church.id, name: church.name, subDomain: church.subDomain }] });
    expect((await call(t.app, 'POST', '/membership/users/verifyCredentials', { body: { email: user.email, password: 'nope-nope' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/verifyCredentials', { body: { email: user.email } })).json().errors[0].param).toBe('password');
  });
});

describe('POST /membership/users/loadOrCreate', () => {
  it('finds by id or email and creates an unknown email', async () => {
    const { token } = await registeredChurch(t);
    const other = await makeUser(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/loadOrCreate', body: { userEmail: other.email } }, crypto.randomUUID());
    const byId = await call(t.app, 'POST', '/membership/users/loadOrCreate', { token, body: { userId: other.id } });
    expect(byId.json()).toEqual({ id: other.id, firstName: 'Ada', lastName: 'Lovelace', email: other.email });
    expect((await call(t.app, 'POST', '/membership/users/loadOrCreate', { token, body: { userEmail: other.email.toUpperCase() } })).json().id).toBe(other.id);
    const created = await call(t.app, 'POST', '/membership/users/loadOrCreate', { token, body: { userEmail: 'brand.new@example.test', firstName: 'Bran', lastName: 'New' } });
    expect(created.json()).toEqual({ id: expect.any(String), firstName: 'Bran', lastName: 'New', email: 'brand.new@example.test' });
    expect(await t.app.db.select().from(users).where(eq(users.id, created.json().id))).toHaveLength(1);
    expect((await call(t.app, 'POST', '/membership/users/loadOrCreate', { token, body: {} })).json().errors[0].param).toBe('userEmail');
  });
});

describe('account changes', () => {
  it('POST /setDisplayName renames the caller', async () => {
    const { user, token } = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/setDisplayName', body: { firstName: 'A', lastName: 'B' } }, crypto.randomUUID());
    const res = await call(t.app, 'POST', '/membership/users/setDisplayName', { token, body: { firstName: 'Grace', lastName: 'Hopper' } });
    expect(res.json()).toEqual({ id: user.id, firstName: 'Grace', lastName: 'Hopper', email: user.email });
    expect((await call(t.app, 'POST', '/membership/users/setDisplayName', { token, body: { lastName: 'X' } })).json().errors[0].param).toBe('firstName');
  });

  it('POST /updateEmail mails a confirmation link to the new address and changes nothing until it is followed', async () => {
    const { user, token } = await registeredChurch(t);
    const other = await makeUser(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/updateEmail', body: { email: 'x@y.test' } }, crypto.randomUUID());
    const taken = await call(t.app, 'POST', '/membership/users/updateEmail', { token, body: { email: other.email } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().errors[0]).toMatch(/email/);
    const email = `new-${crypto.randomUUID().slice(0, 6)}@example.test`;
    const asked = await call(t.app, 'POST', '/membership/users/updateEmail', { token, body: { email, ...APP } });
    expect(asked.json()).toEqual({ id: user.id, firstName: 'Ada', lastName: 'Lovelace', email: user.email });
    // not changed yet: the old address still logs in, the new one does not
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email, password: PASSWORD } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(200);
    await t.drain();
    expect(mailTo(user.email)).toEqual([]);
    const [mail] = mailTo(email);
    expect(mail!.html).toContain('href="https://admin.example.test/app/confirm-email?auth=');
    const authGuid = authGuidOf(mail!.html)!;
    const wrong = await call(t.app, 'POST', '/membership/users/confirmEmail', { body: { authGuid: `${authGuid}x` } });
    expect([wrong.statusCode, wrong.json().errors[0].param]).toEqual([400, 'authGuid']);
    const confirmed = await call(t.app, 'POST', '/membership/users/confirmEmail', { body: { authGuid } });
    expect(confirmed.json()).toEqual({ id: user.id, firstName: 'Ada', lastName: 'Lovelace', email });
    expect((await t.app.db.select().from(users).where(eq(users.id, user.id)))[0]).toMatchObject({ email, emailVerified: true, pendingEmail: null, emailGuidHash: null });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email, password: PASSWORD } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/membership/users/confirmEmail', { body: { authGuid } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/membership/users/updateEmail', { token, body: { email: 'bad' } })).json().errors[0].param).toBe('email');
  });

  it('POST /confirmEmail refuses an expired link, and an address taken meanwhile', async () => {
    const { user, token } = await registeredChurch(t);
    const email = `late-${crypto.randomUUID().slice(0, 6)}@example.test`;
    await call(t.app, 'POST', '/membership/users/updateEmail', { token, body: { email } });
    await t.drain();
    const authGuid = authGuidOf(mailTo(email)[0]!.html)!;
    expect(mailTo(email)[0]!.html).toContain('href="https://app.example.test/confirm-email?auth=');
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 24 * 3600 * 1000 + 1000));
    expect((await call(t.app, 'POST', '/membership/users/confirmEmail', { body: { authGuid } })).statusCode).toBe(400);
    jest.restoreAllMocks();
    await makeUser(t, { email });
    const res = await call(t.app, 'POST', '/membership/users/confirmEmail', { body: { authGuid } });
    expect([res.statusCode, res.json().errors[0]]).toEqual([409, expect.stringMatching(/email/)]);
    expect((await t.app.db.select().from(users).where(eq(users.id, user.id)))[0]!.email).toBe(user.email);
  });

  it('POST /updatePassword needs 6 characters and changes the password', async () => {
    const { user, token } = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/updatePassword', body: { newPassword: 'abcdef' } }, crypto.randomUUID());
    const short = await call(t.app, 'POST', '/membership/users/updatePassword', { token, body: { newPassword: 'abc' } });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0]).toMatchObject({ param: 'newPassword', location: 'body', msg: expect.any(String) });
    expect((await call(t.app, 'POST', '/membership/users/updatePassword', { token, body: { newPassword: 'abcdef' } })).json()).toEqual({ success: true });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: 'abcdef' } })).statusCode).toBe(200);
  });

  it('account routes refuse OAuth access tokens', async () => {
    const { token } = await registeredChurch(t);
    const oauthToken = t.deps.signToken({ ...(claimsOf(token) as unknown as Claims), scope: 'people:write' });
    expect((await call(t.app, 'POST', '/membership/users/updatePassword', { token: oauthToken, body: { newPassword: 'abcdef' } })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', '/membership/users', { token: oauthToken })).statusCode).toBe(401);
  });
});

describe('POST /membership/users/updateOptedOut', () => {
  it('sets the caller’s own person; another person needs People.Edit; another church’s person is 404', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const guestPerson = guest.login.person.id;
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/updateOptedOut', body: { personId: guestPerson, optedOut: true } }, a.church.id);
    const own = await call(t.app, 'POST', '/membership/users/updateOptedOut', { token: guest.token, body: { personId: guestPerson, optedOut: true } });
    expect(own.json()).toEqual({ personId: guestPerson, optedOut: true });
    const optedOut = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0]!.optedOut;
    expect(await optedOut(guestPerson)).toBe(true);
    expect((await call(t.app, 'POST', '/membership/users/updateOptedOut', { token: guest.token, body: { personId: a.personId, optedOut: true } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/updateOptedOut', { token: a.token, body: { personId: guestPerson, optedOut: false } })).statusCode).toBe(200);
    expect(await optedOut(guestPerson)).toBe(false);
    expect((await call(t.app, 'POST', '/membership/users/updateOptedOut', { token: b.token, body: { personId: guestPerson, optedOut: true } })).statusCode).toBe(404);
    expect(await optedOut(guestPerson)).toBe(false);
    expect((await call(t.app, 'POST', '/membership/users/updateOptedOut', { token: a.token, body: { personId: 'x', optedOut: true } })).json().errors[0].param).toBe('personId');
  });
});

describe('GET /membership/users/search', () => {
  it('is for server admins and finds by name or email', async () => {
    const admin = await serverAdmin(t);
    const target = await makeUser(t, { firstName: 'Zebulon', lastName: 'Quist' });
    await expectGuarded(t.app, { method: 'GET', url: '/membership/users/search?term=zeb', permission: 'Server.Admin' }, crypto.randomUUID());
    const churchToken = tokenFor({ churchId: crypto.randomUUID(), permissions: 'all' });
    expect((await call(t.app, 'GET', '/membership/users/search?term=zeb', { token: churchToken })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/membership/users/search?term=zebulon q', { token: admin.token })).json()).toEqual([
      { id: target.id, firstName: 'Zebulon', lastName: 'Quist', email: target.email },
    ]);
    expect((await call(t.app, 'GET', `/membership/users/search?term=${target.email.slice(0, 10)}`, { token: admin.token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/membership/users/search', { token: admin.token })).json().errors[0]).toMatchObject({ param: 'term', location: 'query' });
  });
});

describe('DELETE /membership/users', () => {
  it('deletes the caller with their role memberships and church links', async () => {
    const { user, token, church, personId } = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'DELETE', url: '/membership/users' }, church.id);
    expect((await call(t.app, 'DELETE', '/membership/users', { token })).json()).toEqual({});
    expect(await t.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, user.id))).toEqual([]);
    expect(await t.app.db.select().from(userChurches).where(eq(userChurches.userId, user.id))).toEqual([]);
    const [person] = await t.app.db.select().from(people).where(eq(people.id, personId));
    expect(person).toMatchObject({ id: personId, userId: null });
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(401);
  });
});
