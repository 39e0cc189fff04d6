import { eq } from 'drizzle-orm';
import { call, type TestApp } from '@church/common/testing';
import { roleMembers, rolePermissions } from '../../src/db/schema';
import { startMembership } from '../setup';
import { PASSWORD, registeredChurch } from '../identity-factories';
import { signedCall } from './fixtures';

let t: TestApp;
beforeAll(async () => {
  t = await startMembership();
});
afterAll(() => t.close());
const settings = (token: string) => call(t.app, 'GET', '/membership/settings', { token });
const pause = () => new Promise((r) => setTimeout(r, 5));

// A session does not outlive its rights: tokens minted before a password change, an account deletion, or the
// loss of a role or a church are refused at once on this replica (and by every service within its poll).
describe('token revocation', () => {
  it('refuses every older token after a password change, also for login {jwt}; a new login works', async () => {
    const a = await registeredChurch(t);
    expect((await settings(a.token)).statusCode).toBe(200);
    await pause();
    expect((await call(t.app, 'POST', '/membership/users/updatePassword', { token: a.token, body: { newPassword: 'another good password' } })).statusCode).toBe(200);
    expect((await settings(a.token)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { jwt: a.token } })).statusCode).toBe(401);
    await pause();
    const fresh = await call(t.app, 'POST', '/membership/users/login', { body: { email: a.user.email, password: 'another good password' } });
    expect(fresh.statusCode).toBe(200);
    expect(PASSWORD).not.toBe('another good password');
  });

  it("refuses a removed role member's church token, until they log in again without the role", async () => {
    const a = await registeredChurch(t);
    const [member] = await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id));
    expect((await settings(a.token)).statusCode).toBe(200);
    await pause();
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/${member!.id}`, { token: a.token })).statusCode).toBe(200);
    // the old token no longer reads settings, nor re-adds itself to the role
    expect((await settings(a.token)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/rolemembers', { token: a.token, body: { roleId: member!.roleId, userId: a.user.id } })).statusCode).toBe(401);
  });

  it("refuses the role holders' tokens once a grant of their role is taken away, in that church only; a grant added revokes nothing", async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const [member] = await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id));
    const grants = await t.app.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, member!.roleId));
    const grant = grants.find((g) => g.contentType === 'People' && g.action === 'View')!;
    await pause();
    const added = await call(t.app, 'POST', '/membership/rolepermissions', { token: a.token, body: [{ roleId: member!.roleId, contentType: 'Attendance', action: 'Checkin', apiName: 'AttendanceApi' }] });
    expect(added.statusCode).toBe(200);
    expect((await settings(a.token)).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/membership/rolepermissions/${grant.id}`, { token: a.token })).statusCode).toBe(200);
    expect((await settings(a.token)).statusCode).toBe(401);
    expect((await settings(b.token)).statusCode).toBe(200);
  });

  it("refuses the members' tokens of a deleted role", async () => {
    const a = await registeredChurch(t);
    const [member] = await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id));
    await pause();
    expect((await call(t.app, 'DELETE', `/membership/roles/${member!.roleId}`, { token: a.token })).statusCode).toBe(200);
    expect((await settings(a.token)).statusCode).toBe(401);
  });

  it('refuses the token of a deleted account', async () => {
    const a = await registeredChurch(t);
    await pause();
    expect((await call(t.app, 'DELETE', '/membership/users', { token: a.token })).statusCode).toBe(200);
    expect((await settings(a.token)).statusCode).toBe(401);
  });

  it('tells the other services through the internal route what was revoked since a time', async () => {
    const since = Date.now() - 1;
    const a = await registeredChurch(t);
    await call(t.app, 'POST', '/membership/users/updatePassword', { token: a.token, body: { newPassword: 'a third good password' } });
    const res = await signedCall(t, '/membership/internal/revocations', { since });
    expect(res.statusCode).toBe(200);
    expect(res.json().entries).toEqual(expect.arrayContaining([{ userId: a.user.id, churchId: null, at: expect.any(Number) }]));
    expect((await call(t.app, 'POST', '/membership/internal/revocations', { body: { since } })).statusCode).toBe(401);
  });
});
