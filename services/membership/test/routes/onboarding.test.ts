import { eq } from 'drizzle-orm';
import { call, expectGuarded, readMailbox, tokenFor } from '@church/common/testing';
import { useMembership } from '../setup';
import { PASSWORD, claimsOf, joinAsGuest, login, makeUser, registeredChurch, serverAdmin } from '../identity-factories';
import { addPerson } from './fixtures';
import { clock } from '../../src/domain/clock';
import { auditLogs, users } from '../../src/db/schema';

const t = useMembership({ config: { APP_URL: 'https://app.example.test', ALLOWED_APP_ORIGINS: 'https://admin.example.test, https://b1.example.test' } });
afterEach(() => jest.restoreAllMocks());

const B1 = { appName: 'B1', appUrl: 'https://b1.example.test' };
const mailTo = (email: string) => readMailbox(t.config).filter((m) => m.to === email);
const codeOf = (html: string) => /font-family:monospace">(\d{6})</.exec(html)?.[1];
const newEmail = (p = 'on') => `${p}-${crypto.randomUUID().slice(0, 8)}@example.test`;
const post = (path: string, body: unknown, token?: string) => call(t.app, 'POST', `/membership/users/${path}`, { body, token });
const wrongCode = (code: string) => (code === '000000' ? '000001' : '000000');

async function registered(email = newEmail()) {
  expect((await post('register', { email, firstName: 'Cody', lastName: 'Verify', ...B1 })).statusCode).toBe(200);
  await t.drain();
  const [mail] = mailTo(email);
  return { email, code: codeOf(mail!.html)!, html: mail!.html };
}

// B1App:src/app/[sdSlug]/mobile/components/screens/LoginPage.tsx: register → 6-digit code → verifyCode {authGuid}
// → login {authGuid} (greeting) → setPasswordGuid with the same guid → login with the password.
describe('POST /membership/users/verifyCode', () => {
  it('runs B1App’s registration: the mailed code gives an authGuid that greets, then sets the password once', async () => {
    const { email, code, html } = await registered();
    expect(code).toMatch(/^\d{6}$/);
    expect(html).toContain('auth=');
    const [stored] = await t.app.db.select().from(users).where(eq(users.email, email));
    expect(stored!.verifyCodeHash).toHaveLength(64);
    expect(stored!.verifyCodeHash).not.toContain(code);

    const verified = await post('verifyCode', { email: email.toUpperCase(), code });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ authGuid: expect.any(String) });
    const { authGuid } = verified.json();
    // The code is spent: it gives no second guid.
    expect((await post('verifyCode', { email, code })).statusCode).toBe(400);
    // The guid replaced the mailed link's: only the newest way in works.
    const linkGuid = /auth=([A-Za-z0-9_-]+)/.exec(html)![1]!;
    expect((await post('login', { authGuid: linkGuid })).statusCode).toBe(401);

    const greet = await post('login', { authGuid });
    expect([greet.statusCode, greet.json().user.firstName]).toEqual([200, 'Cody']);
    expect((await post('setPasswordGuid', { authGuid, newPassword: 'chosen-pass' })).json()).toEqual({ success: true });
    expect((await post('login', { email, password: 'chosen-pass' })).statusCode).toBe(200);
    expect((await post('login', { authGuid })).statusCode).toBe(401);
  });

  it('answers 400 with a readable sentence for a wrong or expired code and for an unknown email, alike', async () => {
    const { email, code } = await registered();
    const wrong = await post('verifyCode', { email, code: wrongCode(code) });
    expect([wrong.statusCode, wrong.json()]).toEqual([400, { errors: [{ msg: 'This code is wrong or has expired', param: 'code', location: 'body' }] }]);
    const unknown = await post('verifyCode', { email: newEmail('ghost'), code });
    expect(unknown.json()).toEqual(wrong.json());
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 15 * 60 * 1000 + 1000));
    expect((await post('verifyCode', { email, code })).json()).toEqual(wrong.json());
    jest.restoreAllMocks();
    expect((await post('verifyCode', { email, code })).statusCode).toBe(200);
  });

  it('allows five tries per code: after the fifth wrong one the right code no longer works, and a new code does', async () => {
    const { email, code } = await registered();
    for (let i = 1; i <= 4; i++) expect((await post('verifyCode', { email, code: wrongCode(code) })).json().errors[0].msg).toBe('This code is wrong or has expired');
    const fifth = await post('verifyCode', { email, code: wrongCode(code) });
    expect([fifth.statusCode, fifth.json().errors[0].msg]).toEqual([400, 'This code is wrong, and it was tried too many times: ask for a new code']);
    expect((await post('verifyCode', { email, code })).statusCode).toBe(400);
    // "Resend code" in B1App asks forgot again: a new code with new tries.
    expect((await post('forgot', { userEmail: email })).json()).toEqual({ emailed: true });
    await t.drain();
    const fresh = codeOf(mailTo(email).at(-1)!.html)!;
    expect((await post('verifyCode', { email, code: fresh })).statusCode).toBe(200);
  });

  it('counts concurrent tries: ten at once compare at most five', async () => {
    const { email, code } = await registered();
    const tries = await Promise.all(Array.from({ length: 10 }, () => post('verifyCode', { email, code: wrongCode(code) })));
    expect(tries.every((r) => r.statusCode === 400)).toBe(true);
    expect((await post('verifyCode', { email, code })).statusCode).toBe(400);
  });

  it('runs B1App’s forgot flow: forgot mails a code, verifyCode, then setPasswordGuid', async () => {
    const user = await makeUser(t);
    expect((await post('forgot', { userEmail: user.email })).json()).toEqual({ emailed: true });
    await t.drain();
    const [mail] = mailTo(user.email);
    const link = new URL(/href="([^"]+)"/.exec(mail!.html)![1]!.replace(/&amp;/g, '&'));
    expect(link.searchParams.get('timestamp')).toMatch(/^\d{13}$/);
    const { authGuid } = (await post('verifyCode', { email: user.email, code: codeOf(mail!.html)! })).json();
    expect((await post('setPasswordGuid', { authGuid, newPassword: 'after-reset' })).json()).toEqual({ success: true });
    expect((await post('login', { email: user.email, password: 'after-reset' })).statusCode).toBe(200);
    expect((await post('login', { email: user.email, password: PASSWORD })).statusCode).toBe(401);
  });

  it('takes the login package’s register without an app address, and B1App’s forgot without an app name', async () => {
    const email = newEmail('plain');
    expect((await post('register', { email, firstName: 'Pl', lastName: 'Ain', appName: 'B1Admin', appUrl: null })).statusCode).toBe(200);
    expect((await post('forgot', { userEmail: email })).statusCode).toBe(200);
    await t.drain();
    expect(mailTo(email).map((m) => m.html).every((html) => html.includes('href="https://app.example.test/login?auth='))).toBe(true);
  });

  it('validates the body', async () => {
    expect((await post('verifyCode', { email: 'x@example.test', code: '12345' })).json().errors[0]).toMatchObject({ param: 'code', msg: 'must be the 6-digit code from the message' });
    expect((await post('verifyCode', { email: 'nope', code: '123456' })).json().errors[0].param).toBe('email');
  });
});

describe('POST /membership/users/checkEmail', () => {
  // B1App LoginPage reads exists and peopleMatches after a failed sign-in and on the register form.
  it('says whether an account exists and never names the church people of an address', async () => {
    const user = await makeUser(t);
    const { church } = await registeredChurch(t);
    const email = newEmail('person');
    await addPerson(t, church.id, { email, firstName: 'Pia', lastName: 'Person' });
    const known = await post('checkEmail', { email: user.email.toUpperCase() });
    expect([known.statusCode, known.json()]).toEqual([200, { exists: true, peopleMatches: [] }]);
    expect((await post('checkEmail', { email })).json()).toEqual({ exists: false, peopleMatches: [] });
    expect((await post('checkEmail', { email: 'bad' })).json().errors[0].param).toBe('email');
  });

  // AppHelper:packages/login/src/LoginPage.tsx selects the church, then claims the person.
  it('gives a registered person their own record when they select the church with the address they proved', async () => {
    const { church } = await registeredChurch(t);
    const email = newEmail('member');
    const person = await addPerson(t, church.id, { email, firstName: 'Mo', lastName: 'Member' });
    const { code } = await registered(email);
    const { authGuid } = (await post('verifyCode', { email, code })).json();
    await post('setPasswordGuid', { authGuid, newPassword: 'member-pass' });
    const first = (await post('login', { email, password: 'member-pass' })).json();
    const selected = await call(t.app, 'POST', '/membership/churches/select', { token: first.user.jwt, body: { churchId: church.id } });
    expect(selected.json().person).toEqual({ id: person.id, membershipStatus: 'Member' });
    const claimed = await call(t.app, 'GET', `/membership/people/claim/${church.id}`, { token: selected.json().token });
    expect(claimed.json().id).toBe(person.id);

    // An address nobody proved gets a guest record, and so does one whose record another user holds.
    const unproved = await makeUser(t, { email: newEmail('unproved') });
    await addPerson(t, church.id, { email: unproved.email });
    const guest = await call(t.app, 'POST', '/membership/churches/select', { token: (await login(t, unproved.email)).user.jwt, body: { churchId: church.id } });
    expect(guest.json().person.membershipStatus).toBe('Guest');
    const held = await makeUser(t, { email: newEmail('held') });
    await t.app.db.update(users).set({ emailVerified: true }).where(eq(users.id, held.id));
    await addPerson(t, church.id, { email: held.email, userId: crypto.randomUUID() });
    const other = await call(t.app, 'POST', '/membership/churches/select', { token: (await login(t, held.email)).user.jwt, body: { churchId: church.id } });
    expect(other.json().person.membershipStatus).toBe('Guest');
  });
});

describe('POST /membership/users/sendInviteEmail', () => {
  // B1Admin:src/components/SendInviteDialog.tsx posts {email, personName, contextName, churchName}.
  it('mails a person of the church the link that fits their account, with the church’s and person’s own names', async () => {
    const { church, token } = await registeredChurch(t, { name: 'Grace Chapel' });
    const cases = [
      { kind: 'none', email: newEmail('none'), expect: 'https://app.example.test/login?action=register' },
      { kind: 'unused', email: newEmail('unused'), expect: 'https://app.example.test/login?auth=' },
      { kind: 'used', email: newEmail('used'), expect: 'https://app.example.test/login"' },
    ];
    for (const c of cases) {
      await addPerson(t, church.id, { email: c.email, firstName: 'Ivy', lastName: 'Invitee' });
      if (c.kind !== 'none') await makeUser(t, { email: c.email });
      if (c.kind === 'used') await login(t, c.email);
      const res = await call(t.app, 'POST', '/membership/users/sendInviteEmail', {
        token,
        body: { email: c.email.toUpperCase(), personName: '<b>Spoof</b>', contextName: 'Youth & Co', churchName: 'Not The Church' },
      });
      expect([res.statusCode, res.json()]).toEqual([200, { success: true }]);
      await t.drain();
      const [mail] = mailTo(c.email);
      expect(mail!.subject).toBe('You have been added to Youth &amp; Co');
      expect(mail!.html).toContain('Hello Ivy,');
      expect(mail!.html).toContain('<strong>Youth &amp; Co</strong> at Grace Chapel');
      expect(mail!.html).not.toMatch(/Spoof|Not The Church/);
      expect(mail!.html).toContain(`href="${c.expect}`);
    }
    // The set-password link of an account nobody has used works as a welcome link does.
    const unused = cases[1]!.email;
    const guid = /auth=([A-Za-z0-9_-]+)/.exec(mailTo(unused)[0]!.html)![1]!;
    expect((await post('setPasswordGuid', { authGuid: guid, newPassword: 'invited-pass' })).json()).toEqual({ success: true });
  });

  it('is for People.Edit, Group Members.Edit or Roles.Edit, and only to an address of a person of the caller’s church', async () => {
    const { church, token } = await registeredChurch(t);
    const other = await registeredChurch(t);
    const email = newEmail('p');
    await addPerson(t, church.id, { email });
    const body = { email, contextName: 'Choir' };
    await expectGuarded(t.app, { method: 'POST', url: '/membership/users/sendInviteEmail', body, permission: 'People.Edit' }, church.id);
    const guest = await joinAsGuest(t, church.id);
    expect((await call(t.app, 'POST', '/membership/users/sendInviteEmail', { token: guest.token, body })).statusCode).toBe(401);
    const groupStaff = tokenFor({ churchId: church.id, permissions: ['GroupMembers.Edit'] });
    expect((await call(t.app, 'POST', '/membership/users/sendInviteEmail', { token: groupStaff, body })).statusCode).toBe(200);
    const stranger = await call(t.app, 'POST', '/membership/users/sendInviteEmail', { token: other.token, body });
    expect([stranger.statusCode, stranger.json().errors[0].param]).toEqual([400, 'email']);
    expect((await call(t.app, 'POST', '/membership/users/sendInviteEmail', { token, body: { email } })).json().errors[0].param).toBe('contextName');
    await t.drain();
    expect(mailTo(email)).toHaveLength(1);
  });
});

describe('another user’s account (B1Admin:src/settings/components/UserAdd.tsx sends userId)', () => {
  it('lets only server admins rename another user or change their address', async () => {
    const { token } = await registeredChurch(t);
    const other = await makeUser(t);
    const refused = await post('setDisplayName', { firstName: 'Not', lastName: 'Mine', userId: other.id }, token);
    expect([refused.statusCode, refused.json().errors[0]]).toEqual([401, "Only server admins can change another user's account"]);
    expect((await post('updateEmail', { email: newEmail(), userId: other.id }, token)).statusCode).toBe(401);
    // the caller's own id, or "", is the caller
    expect((await post('setDisplayName', { firstName: 'Own', lastName: 'Name', userId: '' }, token)).json().firstName).toBe('Own');
    const admin = await serverAdmin(t);
    expect((await post('setDisplayName', { firstName: 'Re', lastName: 'Named', userId: other.id }, admin.token)).json()).toEqual({ id: other.id, firstName: 'Re', lastName: 'Named', email: other.email });
    const email = newEmail('moved');
    expect((await post('updateEmail', { email, userId: other.id }, admin.token)).json().email).toBe(other.email);
    await t.drain();
    expect(mailTo(email)).toHaveLength(1);
    expect((await post('setDisplayName', { firstName: 'A', lastName: 'B', userId: crypto.randomUUID() }, admin.token)).statusCode).toBe(404);
  });
});

describe('server admin user tools', () => {
  // B1Admin:src/serverAdmin/components/UsersTab.tsx reads the details and the impersonation jwt.
  it('GET /users/:id/details answers the account and its churches by link and by role', async () => {
    const admin = await serverAdmin(t);
    const { user, church } = await registeredChurch(t);
    const second = await registeredChurch(t);
    await joinAsGuest(t, second.church.id, user);
    const res = await call(t.app, 'GET', `/membership/users/${user.id}/details`, { token: admin.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: user.id,
      email: user.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      registrationDate: expect.any(String),
      lastLogin: expect.any(String),
      churches: expect.arrayContaining([
        { id: church.id, name: church.name, subDomain: church.subDomain, viaMembership: true, viaRoles: true },
        { id: second.church.id, name: second.church.name, subDomain: second.church.subDomain, viaMembership: true, viaRoles: false },
      ]),
    });
    expect(res.json().churches).toHaveLength(2);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/users/${user.id}/details`, permission: 'Server.Admin' }, church.id);
    expect((await call(t.app, 'GET', `/membership/users/${user.id}/details`, { token: second.token })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/membership/users/${crypto.randomUUID()}/details`, { token: admin.token })).statusCode).toBe(404);
  });

  it('GET /users/:id/impersonate answers a short token that logs in as the user, and audits every use', async () => {
    const admin = await serverAdmin(t);
    const { user, church } = await registeredChurch(t);
    const adminChurch = claimsOf(admin.token).churchId as string;
    const res = await call(t.app, 'GET', `/membership/users/${user.id}/impersonate`, { token: admin.token });
    expect([res.statusCode, Object.keys(res.json())]).toEqual([200, ['jwt']]);
    const claims = claimsOf(res.json().jwt);
    expect(claims).toMatchObject({ id: user.id, email: user.email, personId: null });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(600);
    const as = await post('login', { jwt: res.json().jwt });
    expect(as.json().user.id).toBe(user.id);
    expect(as.json().userChurches.map((c: { church: { id: string } }) => c.church.id)).toEqual([church.id]);
    const [entry] = await t.app.db.select().from(auditLogs).where(eq(auditLogs.entityId, user.id));
    expect(entry).toMatchObject({ churchId: adminChurch, userId: admin.user.id, category: 'login', action: 'impersonate_user', entityType: 'user', module: 'membership' });
    expect(JSON.parse(entry!.details!)).toEqual({ adminEmail: admin.user.email, userEmail: user.email });
    expect((await call(t.app, 'GET', `/membership/users/${user.id}/impersonate`, { token: (await registeredChurch(t)).token })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/membership/users/${crypto.randomUUID()}/impersonate`, { token: admin.token })).statusCode).toBe(404);
  });
});

// B1Admin:src/settings/AuditLogPage.tsx reads {logs, count, limit, offset} and each log's fields.
describe('GET /membership/auditlogs', () => {
  it('answers the church’s own entries in the screen’s shape, newest first, filtered and paged; else an empty page', async () => {
    const { church, token } = await registeredChurch(t);
    const empty = await call(t.app, 'GET', '/membership/auditlogs?limit=50&offset=0', { token });
    expect([empty.statusCode, empty.json()]).toEqual([200, { logs: [], count: 0, limit: 50, offset: 0 }]);
    const admin = await serverAdmin(t);
    for (let i = 0; i < 3; i++) await call(t.app, 'GET', `/membership/churches/${church.id}/impersonate`, { token: admin.token });
    const other = await registeredChurch(t);
    await call(t.app, 'GET', `/membership/churches/${other.church.id}/impersonate`, { token: admin.token });

    const page = await call(t.app, 'GET', '/membership/auditlogs?category=login&module=membership&limit=2&offset=0', { token });
    expect(page.json()).toEqual({
      logs: [expect.any(Object), expect.any(Object)],
      count: 3,
      limit: 2,
      offset: 0,
    });
    const [log] = page.json().logs;
    expect(log).toEqual({
      id: expect.any(String),
      churchId: church.id,
      userId: admin.user.id,
      personId: null,
      category: 'login',
      action: 'impersonate_church',
      entityType: 'church',
      entityId: church.id,
      details: JSON.stringify({ adminEmail: admin.user.email }),
      ipAddress: expect.any(String),
      module: 'membership',
      batchId: null,
      created: expect.any(String),
    });
    expect((await call(t.app, 'GET', '/membership/auditlogs?limit=2&offset=2', { token })).json().logs).toHaveLength(1);
    expect((await call(t.app, 'GET', '/membership/auditlogs?category=person', { token })).json().count).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await call(t.app, 'GET', `/membership/auditlogs?startDate=${today}&endDate=${today}`, { token })).json().count).toBe(3);
    expect((await call(t.app, 'GET', '/membership/auditlogs?endDate=2000-01-01', { token })).json().count).toBe(0);
    expect((await call(t.app, 'GET', `/membership/auditlogs?entityType=church&entityId=${church.id}&limit=10`, { token })).json().count).toBe(3);
    expect((await call(t.app, 'GET', '/membership/auditlogs?startDate=soon', { token })).json().errors[0].param).toBe('startDate');
    expect((await call(t.app, 'GET', '/membership/auditlogs?limit=0', { token })).statusCode).toBe(400);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/auditlogs', permission: 'Settings.Edit' }, church.id);
    // another church's staff see none of these
    expect((await call(t.app, 'GET', '/membership/auditlogs', { token: other.token })).json().count).toBe(1);
  });
});
