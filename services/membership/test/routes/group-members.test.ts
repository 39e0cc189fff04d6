import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded, signedCall } from '@church/common/testing';
import { groupMembershipChange } from '@church/common';
import { auditLogs, groupMembers, groups, people } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

async function group(churchId: string, values: Partial<typeof groups.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(groups).values({ id, churchId, name: `G ${id.slice(0, 4)}`, slug: `g-${id}`, ...values });
  return id;
}
async function person(churchId: string, firstName: string, lastName: string, extra: Partial<typeof people.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(people).values({ id, churchId, firstName, lastName, displayName: `${firstName} ${lastName}`, email: `${firstName.toLowerCase()}@example.test`, ...extra });
  return id;
}
async function member(churchId: string, groupId: string, personId: string, leader = false) {
  const id = randomUUID();
  await t.app.db.insert(groupMembers).values({ id, churchId, groupId, personId, leader, joinDate: new Date('2024-01-02T03:04:05Z') });
  return id;
}

/** A church with a group of two people (Ann leads), and the church's own person also in the group. */
async function scene() {
  const c = await makeChurch(t);
  const g = await group(c.churchId, { publicRoster: true });
  const ann = await person(c.churchId, 'Ann', 'Able', { photo: 'https://img/ann.png' });
  const bob = await person(c.churchId, 'Bob', 'Baker');
  const annM = await member(c.churchId, g, ann, true);
  const bobM = await member(c.churchId, g, bob);
  return { c, g, ann, bob, annM, bobM };
}

describe('GET /membership/groupmembers', () => {
  it('GroupMembers.View lists a group with names, photo and email', async () => {
    const { c, g, ann, annM } = await scene();
    const res = await call(t.app, 'GET', `/membership/groupmembers?groupId=${g}`, { token: c.token(['GroupMembers.View']) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toHaveLength(2);
    expect(body[0]).toEqual({
      id: annM,
      churchId: c.churchId,
      groupId: g,
      personId: ann,
      leader: true,
      joinDate: '2024-01-02T03:04:05.000Z',
      person: {
        id: ann,
        name: { first: 'Ann', last: 'Able', display: 'Ann Able' },
        photo: 'https://img/ann.png',
        membershipStatus: 'Guest',
        contactInfo: { email: 'ann@example.test' },
      },
      group: { id: g, name: expect.any(String), photoUrl: null },
    });
  });

  it('a member of the group may list it (without emails); a non-member may not', async () => {
    const { c, g, ann } = await scene();
    const asAnn = c.token([], { personId: ann });
    const res = await call(t.app, 'GET', `/membership/groupmembers?groupId=${g}`, { token: asAnn });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((m: { person: { name: { first: string } } }) => m.person.name.first)).toEqual(['Ann', 'Bob']);
    expect(res.json()[0].person.contactInfo).toBeUndefined();
    const outsider = await call(t.app, 'GET', `/membership/groupmembers?groupId=${g}`, { token: c.token() });
    expect(outsider.statusCode).toBe(401);
    const both = await call(t.app, 'GET', `/membership/groupmembers?groupIds=${g},${await group(c.churchId)}`, { token: asAnn });
    expect(both.statusCode).toBe(401);
  });

  it('anyone may list their own memberships by personId, not somebody else’s', async () => {
    const { c, g, ann, bob } = await scene();
    const own = await call(t.app, 'GET', `/membership/groupmembers?personId=${bob}`, { token: c.token([], { personId: bob }) });
    expect(own.statusCode).toBe(200);
    expect(own.json().map((m: { groupId: string; personId: string }) => [m.groupId, m.personId])).toEqual([[g, bob]]);
    const other = await call(t.app, 'GET', `/membership/groupmembers?personId=${ann}`, { token: c.token([], { personId: bob }) });
    expect(other.statusCode).toBe(401);
    const nothing = await call(t.app, 'GET', '/membership/groupmembers', { token: c.token() });
    expect(nothing.statusCode).toBe(401);
  });

  it("another church's group lists nothing", async () => {
    const { g } = await scene();
    const other = await makeChurch(t);
    const res = await call(t.app, 'GET', `/membership/groupmembers?groupId=${g}`, { token: other.token(['GroupMembers.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('validates ids and is guarded', async () => {
    const c = await makeChurch(t);
    const bad = await call(t.app, 'GET', '/membership/groupmembers?groupIds=abc', { token: c.token(['GroupMembers.View']) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'groupIds[0]', location: 'query' });
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groupmembers', permission: 'GroupMembers.View' }, c.churchId);
  });
});

describe('GET /membership/groupmembers/:id, /my, /basic/:groupId', () => {
  it('reads one membership with GroupMembers.View; 404 for another church', async () => {
    const { c, bobM, bob } = await scene();
    const res = await call(t.app, 'GET', `/membership/groupmembers/${bobM}`, { token: c.token(['GroupMembers.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: bobM, personId: bob, leader: false });
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/groupmembers/${bobM}`, { token: other.token(['GroupMembers.View']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groupmembers/${bobM}`, permission: 'GroupMembers.View' }, c.churchId);
  });

  it("/my answers the caller's memberships", async () => {
    const { c, g, ann } = await scene();
    const res = await call(t.app, 'GET', '/membership/groupmembers/my', { token: c.token([], { personId: ann }) });
    expect(res.json().map((m: { groupId: string; leader: boolean }) => [m.groupId, m.leader])).toEqual([[g, true]]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groupmembers/my' }, c.churchId);
  });

  it('/basic/:groupId lists names for any signed-in caller of the church', async () => {
    const { c, g } = await scene();
    const res = await call(t.app, 'GET', `/membership/groupmembers/basic/${g}`, { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((m: { person: { name: { display: string } } }) => m.person.name.display)).toEqual(['Ann Able', 'Bob Baker']);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/groupmembers/basic/${g}`, { token: other.token() })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groupmembers/basic/${g}` }, c.churchId);
  });
});

// B1Admin:src/people/components/Groups.tsx (a person's groups tab) reads gm.group.name and gm.group.photoUrl.
describe('GET /membership/groupmembers?personId=', () => {
  it('answers each membership with its group’s name and photo', async () => {
    const c = await makeChurch(t);
    const choir = await group(c.churchId, { name: 'Choir', photoUrl: 'https://img/choir.png' });
    const elders = await group(c.churchId, { name: 'Elders' });
    const ann = await person(c.churchId, 'Ann', 'Able');
    await member(c.churchId, choir, ann);
    await member(c.churchId, elders, ann, true);
    const res = await call(t.app, 'GET', `/membership/groupmembers?personId=${ann}`, { token: c.token(['GroupMembers.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((m: { group: unknown }) => m.group).sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([
      { id: choir, name: 'Choir', photoUrl: 'https://img/choir.png' },
      { id: elders, name: 'Elders', photoUrl: null },
    ]);
  });
});

describe('public rosters', () => {
  it('the roster of an opted-in group exposes only personId, displayName, leader, photo (also nested as person)', async () => {
    const { c, g, ann, bob } = await scene();
    const res = await call(t.app, 'GET', `/membership/groupmembers/public/${c.churchId}/${g}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { personId: ann, displayName: 'Ann Able', leader: true, photo: 'https://img/ann.png', person: { id: ann, name: { display: 'Ann Able' }, photo: 'https://img/ann.png' } },
      { personId: bob, displayName: 'Bob Baker', leader: false, photo: null, person: { id: bob, name: { display: 'Bob Baker' }, photo: null } },
    ]);
  });

  it('a group without publicRoster, or of another church, answers 404', async () => {
    const c = await makeChurch(t);
    const closed = await group(c.churchId);
    await member(c.churchId, closed, await person(c.churchId, 'Cy', 'Closed'));
    expect((await call(t.app, 'GET', `/membership/groupmembers/public/${c.churchId}/${closed}`)).statusCode).toBe(404);
    const { g } = await scene();
    expect((await call(t.app, 'GET', `/membership/groupmembers/public/${c.churchId}/${g}`)).statusCode).toBe(404);
  });

  // B1App:src/app/[sdSlug]/groups/details/[groupSlug]/page.tsx loads them for every visitor; UnauthenticatedView and
  // GroupContact read l.person.id, l.person.photo and l.person.name.display (and l.personId).
  it('leaders are public, with the nested person B1App’s group page reads and no contact details', async () => {
    const { c, g, ann } = await scene();
    const res = await call(t.app, 'GET', `/membership/groupMembers/public/leaders/${c.churchId}/${g}`);
    expect(res.json()).toEqual([
      { personId: ann, displayName: 'Ann Able', leader: true, photo: 'https://img/ann.png', person: { id: ann, name: { display: 'Ann Able' }, photo: 'https://img/ann.png' } },
    ]);
    expect(res.body).not.toContain('ann@example.test');
    expect((await call(t.app, 'GET', `/membership/groupmembers/public/leaders/${randomUUID()}/${g}`)).statusCode).toBe(404);
  });
});

describe('POST /membership/groupmembers', () => {
  it('adds members; adding again updates the membership', async () => {
    const c = await makeChurch(t);
    const g = await group(c.churchId);
    const p = await person(c.churchId, 'Dee', 'Dune');
    const token = c.token(['GroupMembers.Edit']);
    const res = await call(t.app, 'POST', '/membership/groupmembers', { token, body: { groupId: g, personId: p } });
    expect(res.statusCode).toBe(200);
    const [m] = res.json();
    expect(m).toEqual({ id: expect.any(String), churchId: c.churchId, groupId: g, personId: p, leader: false, joinDate: expect.any(String) });
    const again = await call(t.app, 'POST', '/membership/groupmembers', { token, body: [{ groupId: g, personId: p, leader: true }] });
    expect(again.json()[0]).toMatchObject({ id: m.id, leader: true });
    const rows = await t.app.db.select().from(groupMembers).where(eq(groupMembers.groupId, g));
    expect(rows.map((r) => [r.personId, r.leader])).toEqual([[p, true]]);
  });

  it("another church's group or person is a 404 and nothing is written", async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const gA = await group(a.churchId);
    const gB = await group(b.churchId);
    const pB = await person(b.churchId, 'Eve', 'East');
    const token = b.token(['GroupMembers.Edit']);
    const res = await call(t.app, 'POST', '/membership/groupmembers', { token, body: [{ groupId: gB, personId: pB }, { groupId: gA, personId: pB }] });
    expect(res.statusCode).toBe(404);
    expect(await t.app.db.select().from(groupMembers).where(eq(groupMembers.churchId, b.churchId))).toEqual([]);
    const foreignPerson = await call(t.app, 'POST', '/membership/groupmembers', { token: a.token(['GroupMembers.Edit']), body: { groupId: gA, personId: pB } });
    expect(foreignPerson.statusCode).toBe(404);
  });

  it('validates and is guarded', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/groupmembers', { token: c.token(['GroupMembers.Edit']), body: { leader: true } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('groupId');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/groupmembers', body: { groupId: randomUUID(), personId: randomUUID() }, permission: 'GroupMembers.Edit' }, c.churchId);
  });
});

describe('DELETE /membership/groupmembers/:id', () => {
  it('removes a membership; another church gets 404 and the row stays', async () => {
    const { c, annM, bobM } = await scene();
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${annM}`, { token: other.token(['GroupMembers.View']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(groupMembers).where(eq(groupMembers.id, annM))).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${annM}`, { token: c.token(['GroupMembers.View']) })).statusCode).toBe(200);
    const left = await t.app.db.select().from(groupMembers).where(eq(groupMembers.churchId, c.churchId));
    expect(left.map((r) => r.id)).toEqual([bobM]);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/groupmembers/${bobM}`, permission: 'GroupMembers.View' }, c.churchId);
  });
});

describe('POST /membership/internal/groups/members', () => {
  const url = '/membership/internal/groups/members';
  const signed = (body: unknown, secret?: string) => signedCall(t.app, url, body, secret);

  it("answers the group's people for a signed call", async () => {
    const { c, g, ann, bob } = await scene();
    const res = await signed({ churchId: c.churchId, groupId: g });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { personId: ann, displayName: 'Ann Able', firstName: 'Ann', lastName: 'Able', photo: 'https://img/ann.png', leader: true },
      { personId: bob, displayName: 'Bob Baker', firstName: 'Bob', lastName: 'Baker', photo: null, leader: false },
    ]);
    const other = await makeChurch(t);
    expect((await signed({ churchId: other.churchId, groupId: g })).json()).toEqual([]);
  });

  it("POST /membership/internal/groups/list answers the church's live groups for a signed call only", async () => {
    const { c, g } = await scene();
    const listUrl = '/membership/internal/groups/list';
    const list = (body: unknown) => signedCall(t.app, listUrl, body);
    const res = await list({ churchId: c.churchId });
    expect(res.statusCode).toBe(200);
    const uncounted = (await call(t.app, 'GET', '/membership/groups', { token: c.token() })).json().map(({ memberCount: _count, ...group }: { memberCount: number }) => group);
    expect(res.json()).toEqual(uncounted);
    expect(res.json().map((group: { id: string }) => group.id)).toContain(g);
    // Another church's list holds none of these groups.
    expect((await list({ churchId: (await makeChurch(t)).churchId })).json()).toEqual([]);
    expect((await call(t.app, 'POST', listUrl, { body: { churchId: c.churchId }, token: c.token('all') })).statusCode).toBe(401);
    const bad = await list({ churchId: 'nope' });
    expect([bad.statusCode, bad.json().errors[0]]).toEqual([400, expect.objectContaining({ param: 'churchId', location: 'body' })]);
  });

  it('refuses unsigned or badly signed calls and validates the body', async () => {
    const { c, g } = await scene();
    expect((await call(t.app, 'POST', url, { body: { churchId: c.churchId, groupId: g }, token: c.token('all') })).statusCode).toBe(401);
    expect((await signed({ churchId: c.churchId, groupId: g }, 'x'.repeat(40))).statusCode).toBe(401);
    const bad = await signed({ churchId: c.churchId });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('groupId');
  });
});

describe('membership.groupMembership (doing’s addToGroup / removeFromGroup step actions)', () => {
  const run = async (data: { churchId: string; groupId: string; personId: string; action: 'add' | 'remove' }) => {
    await t.deps.queue.enqueue(groupMembershipChange, data);
    await t.drain();
  };
  const membersOf = async (churchId: string, groupId: string) =>
    (await t.app.db.select().from(groupMembers).where(eq(groupMembers.groupId, groupId))).filter((m) => m.churchId === churchId).map((m) => m.personId);
  // the church's audit log, which membership writes from the changes reported
  const reported = async (churchId: string) =>
    (await t.app.db.select().from(auditLogs).where(eq(auditLogs.churchId, churchId)).orderBy(auditLogs.createdAt))
      .filter((r) => r.entityType === 'groupMember')
      .map((r) => r.action);

  it('adds the person once however often it runs, takes them out once, and reports each as the group screens do', async () => {
    const c = await makeChurch(t);
    const g = await group(c.churchId);
    const ann = await person(c.churchId, 'Ann', 'Able');
    await run({ churchId: c.churchId, groupId: g, personId: ann, action: 'add' });
    await run({ churchId: c.churchId, groupId: g, personId: ann, action: 'add' });
    expect(await membersOf(c.churchId, g)).toEqual([ann]);
    await run({ churchId: c.churchId, groupId: g, personId: ann, action: 'remove' });
    await run({ churchId: c.churchId, groupId: g, personId: ann, action: 'remove' });
    expect(await membersOf(c.churchId, g)).toEqual([]);
    expect(await reported(c.churchId)).toEqual(['created', 'deleted']);
  });

  it("skips a group or person that is not the church's, and writes nothing for them", async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = await group(other.churchId);
    const ours = await group(c.churchId);
    const ann = await person(c.churchId, 'Ann', 'Able');
    const stranger = await person(other.churchId, 'Sam', 'Stranger');
    await run({ churchId: c.churchId, groupId: theirs, personId: ann, action: 'add' });
    await run({ churchId: c.churchId, groupId: ours, personId: stranger, action: 'add' });
    expect(await membersOf(c.churchId, theirs)).toEqual([]);
    expect(await membersOf(other.churchId, theirs)).toEqual([]);
    expect(await membersOf(c.churchId, ours)).toEqual([]);
    expect(await reported(c.churchId)).toEqual([]);
  });
});
