import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, expectGuarded, offContract, fakeInternal } from '@church/common/testing';
import { HttpError } from '@church/common';
import { groupMembers, groups } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';

let attendanceAnswer: (body: Record<string, unknown>) => Promise<unknown> = async () => ({ groupIds: [] });
// Attendance, asked which groups meet at a place (groups/search).
const internal = fakeInternal({ 'POST /attendance/internal/groups': (body) => attendanceAnswer(body) });

const t = useMembership({ overrides: { internal } });

async function save(token: string, body: unknown) {
  return call(t.app, 'POST', '/membership/groups', { token, body });
}

async function addMember(churchId: string, groupId: string, personId: string, leader = false) {
  await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId, groupId, personId, leader });
}

describe('POST /membership/groups', () => {
  it('creates groups with unique slugs, default tag and check-in flags', async () => {
    const c = await makeChurch(t);
    const res = await save(c.token(['Groups.Edit']), [
      { name: 'Youth Group', trackAttendance: true, parentPickup: true, printNametag: true, labels: 'teens,weekly' },
      { name: 'Youth  Group!' },
      { name: 'Ünïcode Cafe', tags: ['standard'] },
    ]);
    expect(res.statusCode).toBe(200);
    const [a, b, c3] = res.json();
    expect(a).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      categoryName: null,
      name: 'Youth Group',
      slug: 'youth-group',
      trackAttendance: true,
      parentPickup: true,
      printNametag: true,
      about: null,
      photoUrl: null,
      tags: 'standard',
      labels: 'teens,weekly',
      labelArray: ['teens', 'weekly'],
      meetingTime: null,
      meetingLocation: null,
      publicRoster: false,
      parentGroupId: null,
      archived: false,
      joinPolicy: 'closed',
    });
    expect(b.slug).toBe('youth-group-2');
    expect(c3.slug).toBe('unicode-cafe');
    const third = (await save(c.token(['Groups.Edit']), { name: 'Youth Group' })).json();
    expect(third[0].slug).toBe('youth-group-3');
  });

  it('keeps the slug on an update that does not rename, and re-slugs on rename', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [g] = (await save(token, { name: 'Choir' })).json();
    const [same] = (await save(token, { id: g.id, about: 'Sings' })).json();
    expect(same).toMatchObject({ slug: 'choir', about: 'Sings', name: 'Choir' });
    const [renamed] = (await save(token, { id: g.id, name: 'Praise Choir' })).json();
    expect(renamed.slug).toBe('praise-choir');
  });

  it('slugs are per church', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    await save(a.token(['Groups.Edit']), { name: 'Men' });
    const [g] = (await save(b.token(['Groups.Edit']), { name: 'Men' })).json();
    expect(g.slug).toBe('men');
  });

  it('a team must reference a ministry group', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const noParent = await save(token, { name: 'Ushers', tags: ['team'] });
    expect(noParent.statusCode).toBe(400);
    expect(noParent.json().errors[0].param).toBe('parentGroupId');
    const [plain] = (await save(token, { name: 'Plain' })).json();
    const notMinistry = await save(token, { name: 'Ushers', tags: 'team', parentGroupId: plain.id });
    expect(notMinistry.statusCode).toBe(400);
    const [ministry] = (await save(token, { name: 'Hospitality', tags: ['ministry'] })).json();
    const ok = await save(token, { name: 'Ushers', tags: ['team'], parentGroupId: ministry.id });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()[0]).toMatchObject({ tags: 'team', parentGroupId: ministry.id });
  });

  it('refuses a parentGroupId of another church (or none at all), and writes nothing', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [foreign] = (await save(other.token(['Groups.Edit']), { name: 'Theirs', tags: ['ministry'] })).json();
    for (const body of [{ name: 'Mine', parentGroupId: foreign.id }, { name: 'Mine', tags: ['team'], parentGroupId: foreign.id }, { name: 'Mine', parentGroupId: randomUUID() }]) {
      const res = await save(token, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].param).toBe('parentGroupId');
    }
    const [mine] = (await save(token, { name: 'Mine' })).json();
    const update = await save(token, { id: mine.id, parentGroupId: foreign.id });
    expect(update.statusCode).toBe(400);
    expect((await t.app.db.select().from(groups).where(eq(groups.churchId, c.churchId))).map((g) => g.parentGroupId)).toEqual([null]);
    const [parent] = (await save(token, { name: 'Parent' })).json();
    expect((await save(token, { id: mine.id, parentGroupId: parent.id })).json()[0].parentGroupId).toBe(parent.id);
    expect((await save(token, { id: mine.id, parentGroupId: null })).json()[0].parentGroupId).toBeNull();
  });

  it('validates the body', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const noName = await save(token, { about: 'x' });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().errors[0]).toMatchObject({ param: 'name', location: 'body' });
    const badTag = await save(token, [{ name: 'A', tags: ['club'] }]);
    expect(badTag.statusCode).toBe(400);
    expect(badTag.json().errors[0].param).toBe('[0].tags[0]');
  });

  it("another church's group is a 404 and the batch writes nothing", async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const [g] = (await save(a.token(['Groups.Edit']), { name: 'Original' })).json();
    const res = await save(b.token(['Groups.Edit']), [{ name: 'New in B' }, { id: g.id, name: 'Hijacked' }]);
    expect(res.statusCode).toBe(404);
    const rows = await t.app.db.select().from(groups).where(eq(groups.churchId, b.churchId));
    expect(rows).toEqual([]);
    const [orig] = await t.app.db.select().from(groups).where(eq(groups.id, g.id));
    expect(orig!.name).toBe('Original');
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/groups', body: { name: 'x' }, permission: 'Groups.Edit' }, c.churchId);
  });
});

describe('GET /membership/groups, /:id, /tag/:tag', () => {
  it('lists the church groups by name, excluding removed ones and other churches', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const token = a.token(['Groups.Edit']);
    const [z, y] = (await save(token, [{ name: 'Zeta' }, { name: 'Alpha', tags: ['ministry'] }])).json();
    await save(b.token(['Groups.Edit']), { name: 'Other church' });
    const gone = (await save(token, { name: 'Gone' })).json()[0];
    await call(t.app, 'DELETE', `/membership/groups/${gone.id}`, { token });
    const list = await call(t.app, 'GET', '/membership/groups', { token: a.token() });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((g: { name: string }) => g.name)).toEqual(['Alpha', 'Zeta']);
    expect((await call(t.app, 'GET', `/membership/groups/${z.id}`, { token: a.token() })).json()).toEqual(z);
    expect((await call(t.app, 'GET', `/membership/groups/${z.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/groups/not-a-uuid`, { token: a.token() })).statusCode).toBe(400);
    const tagged = await call(t.app, 'GET', '/membership/groups/tag/Ministry', { token: a.token() });
    expect(tagged.json()).toEqual([{ ...y, memberCount: 0 }]);
    // kept per data version: a repeat is a 304, a new member or a newly tagged group shows at once
    expect((await call(t.app, 'GET', '/membership/groups/tag/ministry', { token: a.token(), headers: { 'if-none-match': tagged.headers.etag as string } })).statusCode).toBe(304);
    await addMember(a.churchId, y.id, a.personId);
    expect((await call(t.app, 'GET', '/membership/groups/tag/ministry', { token: a.token() })).json()).toEqual([{ ...y, memberCount: 1 }]);
    const [x] = (await save(token, { id: z.id, name: 'Zeta', tags: ['ministry'] })).json();
    expect((await call(t.app, 'GET', '/membership/groups/tag/ministry', { token: a.token() })).json().map((g: { id: string }) => g.id)).toEqual([y.id, x.id]);
    expect((await call(t.app, 'GET', '/membership/groups/tag/ministry', { token: b.token() })).json()).toEqual([]);
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groups/${randomUUID()}` }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups/tag/team' }, c.churchId);
  });
});

describe('GET /membership/groups/my and /my/:tag', () => {
  it("answers the caller's groups", async () => {
    const c = await makeChurch(t);
    const [g1, g2, g3] = (await save(c.token(['Groups.Edit']), [{ name: 'B team', tags: ['ministry'] }, { name: 'A group' }, { name: 'Not mine' }])).json();
    await addMember(c.churchId, g1.id, c.personId, true);
    await addMember(c.churchId, g2.id, c.personId);
    await addMember(c.churchId, g3.id, randomUUID());
    const my = await call(t.app, 'GET', '/membership/groups/my', { token: c.token() });
    expect(my.json().map((g: { id: string }) => g.id)).toEqual([g2.id, g1.id]);
    const ministries = await call(t.app, 'GET', '/membership/groups/my/ministry', { token: c.token() });
    expect(ministries.json()).toEqual([g1]);
    const nobody = await call(t.app, 'GET', '/membership/groups/my', { token: c.token([], { personId: null }) });
    expect(nobody.json()).toEqual([]);
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups/my' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups/my/team' }, c.churchId);
  });
});

describe('GET /membership/groups/search', () => {
  it('asks attendance which groups meet at the service time', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const [g1, g2] = (await save(c.token(['Groups.Edit']), [{ name: 'Kids' }, { name: 'Adults' }])).json();
    const [foreign] = (await save(other.token(['Groups.Edit']), { name: 'Foreign' })).json();
    const serviceTimeId = randomUUID();
    attendanceAnswer = async () => ({ groupIds: [g1.id, foreign.id, 'junk'] });
    internal.calls.length = 0;
    const res = await call(t.app, 'GET', `/membership/groups/search?serviceTimeId=${serviceTimeId}`, { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([g1]);
    expect(internal.calls).toEqual([{ module: 'attendance', method: 'POST', path: '/attendance/internal/groups', body: { churchId: c.churchId, serviceTimeId } }]);
    expect(g2).toBeDefined();
  });

  it.each([
    ['is unreachable', async () => Promise.reject(new Error('connect ECONNREFUSED'))],
    ['fails', async () => Promise.reject(new HttpError(502, [{ msg: 'attendance answered 500' }]))],
    ['answers nonsense', async () => offContract({ groups: 'all' })],
  ])('answers 502 in the error shape when attendance %s (never an empty list)', async (_what, failure) => {
    const c = await makeChurch(t);
    await save(c.token(['Groups.Edit']), { name: 'Kids' });
    attendanceAnswer = failure;
    const res = await call(t.app, 'GET', `/membership/groups/search?campusId=${randomUUID()}`, { token: c.token() });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ errors: [expect.stringContaining('attendance')] });
  });

  it('validates ids and is guarded', async () => {
    const c = await makeChurch(t);
    const bad = await call(t.app, 'GET', '/membership/groups/search?serviceId=nope', { token: c.token() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'serviceId', location: 'query' });
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups/search' }, c.churchId);
  });
});

describe('public group reads', () => {
  it('reads by id, tag, label and slug without a token', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [g, h] = (await save(token, [{ name: 'Small Group North', labels: ['north'], tags: ['standard'] }, { name: 'Worship', tags: ['ministry'] }])).json();
    const base = `/membership/groups/public/${c.churchId}`;
    expect((await call(t.app, 'GET', `${base}/${g.id}`)).json()).toEqual(g);
    expect((await call(t.app, 'GET', `${base}/tag/ministry`)).json()).toEqual([h]);
    expect((await call(t.app, 'GET', `${base}/label?label=north`)).json()).toEqual([g]);
    expect((await call(t.app, 'GET', `${base}/slug/small-group-north`)).json()).toEqual(g);
    expect((await call(t.app, 'GET', `${base}/slug/nope`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `${base}/label`)).statusCode).toBe(400);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/groups/public/${other.churchId}/${g.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/groups/public/${other.churchId}/slug/small-group-north`)).statusCode).toBe(404);
  });
});

describe('DELETE /membership/groups/:id', () => {
  it('soft-deletes; a ministry takes its teams with it', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [ministry] = (await save(token, { name: 'Kids Ministry', tags: ['ministry'] })).json();
    const [team, keep] = (await save(token, [{ name: 'Nursery', tags: ['team'], parentGroupId: ministry.id }, { name: 'Keep' }])).json();
    const res = await call(t.app, 'DELETE', `/membership/groups/${ministry.id}`, { token });
    expect(res.statusCode).toBe(200);
    const rows = await t.app.db.select().from(groups).where(eq(groups.churchId, c.churchId));
    const removed = Object.fromEntries(rows.map((r) => [r.id, r.removed]));
    expect(removed).toEqual({ [ministry.id]: true, [team.id]: true, [keep.id]: false });
    expect((await call(t.app, 'DELETE', `/membership/groups/${ministry.id}`, { token })).statusCode).toBe(404);
  });

  it("another church's group is a 404 and stays", async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const [g] = (await save(a.token(['Groups.Edit']), { name: 'Mine' })).json();
    expect((await call(t.app, 'DELETE', `/membership/groups/${g.id}`, { token: b.token(['Groups.Edit']) })).statusCode).toBe(404);
    const [row] = await t.app.db.select().from(groups).where(and(eq(groups.id, g.id), eq(groups.removed, false)));
    expect(row).toBeDefined();
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/groups/${randomUUID()}`, permission: 'Groups.Edit' }, c.churchId);
  });
});
