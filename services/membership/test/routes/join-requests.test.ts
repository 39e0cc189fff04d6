import { call, expectGuarded } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';
import { notifyPeople } from '@church/common';

// B1App:src/app/[sdSlug]/mobile/components/details/RequestToJoinDialog.tsx posts {groupId, message};
// GroupDetail.tsx and screens/GroupsPage.tsx read /my (status, group); B1Admin:src/groups/components/PendingJoinRequests.tsx
// reads person.name.display, person photo, group.name, message, requestDate and approves or declines {declineReason}.
const t = useMembership();

async function setting(policy = 'request') {
  const c = await makeChurch(t);
  const groupId = await addGroup(t, c.churchId, 'Bible Study', { joinPolicy: policy });
  const leader = await addPerson(t, c.churchId, { firstName: 'Lee', lastName: 'Der' });
  await t.deps.database.rows(`insert into group_members (id, church_id, group_id, person_id, leader) values (gen_random_uuid(), $1, $2, $3, true)`, [c.churchId, groupId, leader.id]);
  const asker = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Asker' });
  const askerToken = c.token([], { personId: asker.id });
  const leaderToken = c.token([], { personId: leader.id, leaderGroupIds: [groupId] });
  return { c, groupId, leader, asker, askerToken, leaderToken };
}
const ask = (token: string, body: unknown) => call(t.app, 'POST', '/membership/groupjoinrequests', { token, body });

describe('group join requests', () => {
  it('a person asks, the leaders are told, and asking again answers the same request', async () => {
    const s = await setting();
    const res = await ask(s.askerToken, { groupId: s.groupId, message: 'I would love to join' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: expect.any(String),
      churchId: s.c.churchId,
      groupId: s.groupId,
      personId: s.asker.id,
      message: 'I would love to join',
      status: 'pending',
      requestDate: expect.any(String),
      decidedBy: null,
      decidedDate: null,
      declineReason: null,
      person: { id: s.asker.id, name: { display: 'Ann Asker', first: 'Ann', last: 'Asker' }, photo: null },
      group: { id: s.groupId, name: 'Bible Study' },
    });
    expect((await ask(s.askerToken, { groupId: s.groupId })).json().id).toBe(res.json().id);
    await t.drain();
    const told = t.deps.queue.handedOff.filter((j) => j.name === notifyPeople.name && (j.data as { contentId: string }).contentId === res.json().id);
    expect(told.map((j) => (j.data as { personIds: string[] }).personIds)).toEqual([[s.leader.id]]);
    const mine = (await call(t.app, 'GET', '/membership/groupjoinrequests/my', { token: s.askerToken })).json();
    expect(mine.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[res.json().id, 'pending']]);
  });

  it('refuses groups that do not take requests, members, archived and other churches’ groups', async () => {
    const s = await setting('open');
    expect((await ask(s.askerToken, { groupId: s.groupId })).statusCode).toBe(400);
    const closed = await setting('closed');
    expect((await ask(closed.askerToken, { groupId: closed.groupId })).statusCode).toBe(400);
    const member = await setting();
    await addToGroup(t, member.c.churchId, member.groupId, member.asker.id);
    expect((await ask(member.askerToken, { groupId: member.groupId })).statusCode).toBe(409);
    const other = await makeChurch(t);
    expect((await ask(other.token([], { personId: other.personId }), { groupId: member.groupId })).statusCode).toBe(404);
    expect((await ask(member.askerToken, { groupId: 'x' })).json().errors[0]).toMatchObject({ param: 'groupId' });
  });

  it('the group’s leader approves: the person becomes a member, is told, and the request is decided once', async () => {
    const s = await setting();
    const request = (await ask(s.askerToken, { groupId: s.groupId })).json();
    const pending = await call(t.app, 'GET', `/membership/groupjoinrequests/group/${s.groupId}`, { token: s.leaderToken });
    expect(pending.json().map((r: { id: string }) => r.id)).toEqual([request.id]);
    // Someone who neither leads the group nor holds Group Members.Edit may not decide.
    expect((await call(t.app, 'POST', `/membership/groupjoinrequests/${request.id}/approve`, { token: s.askerToken, body: {} })).statusCode).toBe(401);
    const approved = await call(t.app, 'POST', `/membership/groupjoinrequests/${request.id}/approve`, { token: s.leaderToken, body: {} });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', decidedBy: s.leader.id, decidedDate: expect.any(String) });
    expect(await t.deps.database.rows('select leader from group_members where group_id = $1 and person_id = $2', [s.groupId, s.asker.id])).toEqual([{ leader: false }]);
    expect((await call(t.app, 'POST', `/membership/groupjoinrequests/${request.id}/decline`, { token: s.leaderToken, body: {} })).statusCode).toBe(400);
  });

  it('staff decline with a reason; the person withdraws a pending request; the church’s pending list needs Group Members.Edit', async () => {
    const s = await setting();
    const first = (await ask(s.askerToken, { groupId: s.groupId })).json();
    const staff = s.c.token(['GroupMembers.Edit']);
    const list = (await call(t.app, 'GET', '/membership/groupjoinrequests/pending', { token: staff })).json();
    expect(list).toEqual([expect.objectContaining({ id: first.id, person: expect.objectContaining({ contactInfo: { email: null } }), group: { id: s.groupId, name: 'Bible Study' } })]);
    const declined = await call(t.app, 'POST', `/membership/groupjoinrequests/${first.id}/decline`, { token: staff, body: { declineReason: 'The group is full' } });
    expect(declined.json()).toMatchObject({ status: 'declined', declineReason: 'The group is full' });
    const second = (await ask(s.askerToken, { groupId: s.groupId })).json();
    expect(second.id).not.toBe(first.id);
    expect((await call(t.app, 'DELETE', `/membership/groupjoinrequests/${second.id}`, { token: s.askerToken })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/groupjoinrequests/pending', { token: staff })).json()).toEqual([]);
    // Someone else cannot withdraw it, nor can another church see it.
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/groupjoinrequests/${first.id}`, { token: s.c.token([]) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/groupjoinrequests/pending', { token: other.token(['GroupMembers.Edit']) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groupjoinrequests/pending', permission: 'GroupMembers.Edit' }, s.c.churchId);
  });
});
