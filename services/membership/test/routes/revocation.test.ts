import { and, eq } from 'drizzle-orm';
import { groupMembershipChange } from '@church/common';
import { call } from '@church/common/testing';
import { groupMembers, roleMembers, rolePermissions } from '../../src/db/schema';
import { useMembership } from '../setup';
import { PASSWORD, claimsOf, joinAsGuest, login, registeredChurch } from '../identity-factories';
import { addGroup, signedCall } from './fixtures';

const t = useMembership();
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

// The token lists the groups its person leads (join requests with contact details, content events, messaging
// reminders read it): a change of leadership refuses the older tokens, as a change of roles does.
describe('token revocation on a change of leadership', () => {
  async function scene() {
    const a = await registeredChurch(t);
    const groupId = await addGroup(t, a.church.id, 'Youth', { joinPolicy: 'request' });
    const leader = await joinAsGuest(t, a.church.id);
    const leaderPerson = leader.login.person.id as string;
    const asker = await joinAsGuest(t, a.church.id);
    expect((await call(t.app, 'POST', '/membership/groupjoinrequests', { token: asker.token, body: { groupId } })).statusCode).toBe(200);
    const requests = (token: string) => call(t.app, 'GET', `/membership/groupjoinrequests/group/${groupId}`, { token });
    /** The leader's fresh token (a login after the change), and the membership row. */
    const relogin = async () => {
      await pause();
      const body = await login(t, leader.user.email);
      return body.token as string;
    };
    const membership = async () => (await t.app.db.select().from(groupMembers).where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.personId, leaderPerson))))[0];
    return { a, groupId, leader, leaderPerson, requests, relogin, membership };
  }

  it('refuses the token of a leader removed from the group; a leader added gets a new token that lists the group', async () => {
    const s = await scene();
    await pause();
    const added = await call(t.app, 'POST', '/membership/groupmembers', { token: s.a.token, body: [{ groupId: s.groupId, personId: s.leaderPerson, leader: true }] });
    expect(added.statusCode).toBe(200);
    // made a leader: the older token (without the group) is refused; a new login lists it and reads the requests
    expect((await s.requests(s.leader.token)).statusCode).toBe(401);
    const token = await s.relogin();
    expect(claimsOf(token).leaderGroupIds).toEqual([s.groupId]);
    const listed = await s.requests(token);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toHaveLength(1);
    await pause();
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${(await s.membership())!.id}`, { token: s.a.token })).statusCode).toBe(200);
    expect((await s.requests(token)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/membership/groupjoinrequests/${listed.json()[0].id}/approve`, { token })).statusCode).toBe(401);
    // the administrator who removed them keeps their session
    expect((await s.requests(s.a.token)).statusCode).toBe(200);
  });

  it('refuses it when the leader flag is taken away by a batch save, or the leader taken out by the groupMembership job', async () => {
    const s = await scene();
    expect((await call(t.app, 'POST', '/membership/groupmembers', { token: s.a.token, body: [{ groupId: s.groupId, personId: s.leaderPerson, leader: true }] })).statusCode).toBe(200);
    let token = await s.relogin();
    expect((await s.requests(token)).statusCode).toBe(200);
    await pause();
    const flag = await call(t.app, 'POST', '/membership/groupmembers', { token: s.a.token, body: [{ id: (await s.membership())!.id, groupId: s.groupId, personId: s.leaderPerson, leader: false }] });
    expect(flag.statusCode).toBe(200);
    expect((await s.requests(token)).statusCode).toBe(401);
    // a save that leaves the flag as it was revokes nothing
    expect((await call(t.app, 'POST', '/membership/groupmembers', { token: s.a.token, body: [{ id: (await s.membership())!.id, groupId: s.groupId, personId: s.leaderPerson, leader: true }] })).statusCode).toBe(200);
    token = await s.relogin();
    expect((await call(t.app, 'POST', '/membership/groupmembers', { token: s.a.token, body: [{ id: (await s.membership())!.id, groupId: s.groupId, personId: s.leaderPerson, leader: true }] })).statusCode).toBe(200);
    expect((await s.requests(token)).statusCode).toBe(200);
    await pause();
    await t.deps.queue.enqueue(groupMembershipChange, { churchId: s.a.church.id, groupId: s.groupId, personId: s.leaderPerson, action: 'remove' });
    await t.drain();
    expect(await s.membership()).toBeUndefined();
    expect((await s.requests(token)).statusCode).toBe(401);
  });
});
