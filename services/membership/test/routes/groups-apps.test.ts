import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, expectGuarded, tokenFor, fakeInternal } from '@church/common/testing';
import { groupMemberHistory, groupMembers } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addPerson } from './fixtures';

let attendanceGroups: string[] = [];
// Attendance, asked which groups meet at a service time (groups/search).
const internal = fakeInternal({ 'POST /attendance/internal/groups': () => ({ groupIds: attendanceGroups }) });
const t = useMembership({ overrides: { internal } });
afterEach(() => jest.restoreAllMocks());

const save = (token: string, body: unknown) => call(t.app, 'POST', '/membership/groups', { token, body });
const get = (token: string | undefined, url: string) => call(t.app, 'GET', url, { token });

// B1Admin:src/groups/GroupsPage.tsx splits `tags` and reads `labelArray`; GroupBanner and GroupDetails read both.
describe('groups in the apps’ shape', () => {
  it('answers tags and labels as comma strings and labelArray as a list, in every answer that carries groups', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    // B1Admin:src/groups/components/GroupAdd.tsx posts {name, categoryName, tags: "standard"} as a new row.
    const [g] = (await save(token, [{ id: '', name: 'North Small Group', categoryName: 'Small Groups', tags: 'standard', labels: 'north, weekly' }])).json();
    expect(g).toMatchObject({ tags: 'standard', labels: 'north,weekly', labelArray: ['north', 'weekly'], joinPolicy: 'closed', archived: false });
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: g.id, personId: c.personId });
    attendanceGroups = [g.id];
    const pub = `/membership/groups/public/${c.churchId}`;
    // The staff lists add how many members each group has (B1Admin's groups page shows it).
    expect((await get(c.token(), '/membership/groups')).json()).toEqual([{ ...g, memberCount: 1 }]);
    expect((await get(c.token(), '/membership/groups/tag/standard')).json()).toEqual([{ ...g, memberCount: 1 }]);
    const answers = [
      (await get(c.token(), '/membership/groups/my')).json()[0],
      (await get(c.token(), '/membership/groups/my/standard')).json()[0],
      (await get(c.token(), `/membership/groups/${g.id}`)).json(),
      (await get(c.token(), `/membership/groups/search?serviceTimeId=${randomUUID()}`)).json()[0],
      (await get(undefined, `${pub}/${g.id}`)).json(),
      (await get(undefined, `${pub}/tag/standard`)).json()[0],
      (await get(undefined, `${pub}/label?label=north`)).json()[0],
      (await get(undefined, `${pub}/slug/${g.slug}`)).json(),
    ];
    for (const answer of answers) expect(answer).toEqual(g);
    // The login's groups carry tags as a string too (AppHelper's UserHelper reads them).
    expect(typeof (await get(c.token(), '/membership/groups/my')).json()[0].tags).toBe('string');
  });

  // B1Admin:src/dashboard/components/QuickSetupModal.tsx and serving/components/TeamList.tsx (GroupAdd with
  // categoryName = the ministry's id) make a team; TeamList finds a ministry's teams in /groups/tag/team by it.
  it('makes a team the apps’ way (categoryName: the ministry’s id) and lists it under its ministry', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [ministry] = (await save(token, [{ name: 'Worship', tags: 'ministry', categoryName: 'Ministry' }])).json();
    const made = await save(token, [{ name: 'Band', tags: 'team', categoryName: ministry.id }]);
    expect([made.statusCode, made.json()[0]]).toEqual([200, expect.objectContaining({ name: 'Band', tags: 'team', categoryName: ministry.id, parentGroupId: ministry.id })]);
    // The spec's way lists under the ministry as well.
    const [tech] = (await save(token, [{ name: 'Tech', tags: 'team', parentGroupId: ministry.id }])).json();
    expect(tech).toMatchObject({ categoryName: ministry.id, parentGroupId: ministry.id });
    const teams = (await get(c.token(), '/membership/groups/tag/team')).json();
    expect(teams.filter((g: { categoryName: string }) => g.categoryName === ministry.id).map((g: { name: string }) => g.name).sort()).toEqual(['Band', 'Tech']);
    // An edit posts back what it loaded: the team stays the ministry's.
    const renamed = await save(token, [{ ...made.json()[0], name: 'Band 2' }]);
    expect(renamed.json()[0]).toMatchObject({ name: 'Band 2', categoryName: ministry.id, parentGroupId: ministry.id });
    // The ministry must be a ministry group of the caller's church.
    const [theirs] = (await save(other.token(['Groups.Edit']), [{ name: 'Theirs', tags: 'ministry' }])).json();
    const [plain] = (await save(token, [{ name: 'Plain' }])).json();
    for (const categoryName of [theirs.id, plain.id, randomUUID()]) {
      const res = await save(token, [{ name: 'Stray', tags: 'team', categoryName }]);
      expect([res.statusCode, res.json().errors[0].param]).toEqual([400, 'categoryName']);
    }
    const noMinistry = await save(token, [{ name: 'Stray', tags: 'team', categoryName: 'Volunteers' }]);
    expect([noMinistry.statusCode, noMinistry.json().errors[0].param]).toEqual([400, 'parentGroupId']);
    expect((await get(c.token(), '/membership/groups/tag/team')).json()).toHaveLength(2);
  });

  // B1Admin:src/groups/GroupsPage.tsx lists /groups/tag/standard, prints a category heading where categoryName
  // changes and shows `memberCount` people per group.
  it('lists groups by category then name, each with its number of live members', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const made = (await save(token, [
      { name: 'Zeta', categoryName: 'Adults' },
      { name: 'Alpha', categoryName: 'Youth' },
      { name: 'Beta', categoryName: 'Adults' },
    ])).json();
    const [zeta, alpha] = made;
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann' });
    const gone = await addPerson(t, c.churchId, { firstName: 'Gone', removed: true });
    for (const personId of [c.personId, ann.id, gone.id]) await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: zeta.id, personId });
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: alpha.id, personId: ann.id });
    const list = (await get(c.token(), '/membership/groups/tag/standard')).json();
    expect(list.map((g: { categoryName: string; name: string; memberCount: number }) => [g.categoryName, g.name, g.memberCount])).toEqual([
      ['Adults', 'Beta', 0],
      ['Adults', 'Zeta', 2],
      ['Youth', 'Alpha', 1],
    ]);
    expect((await get(c.token(), '/membership/groups')).json().map((g: { name: string; memberCount: number }) => [g.name, g.memberCount])).toEqual([
      ['Beta', 0],
      ['Zeta', 2],
      ['Alpha', 1],
    ]);
  });

  // B1App:src/app/[sdSlug]/groups/[label]/page.tsx lower-cases nothing but turns the URL's `small-groups` into
  // `small groups`; components/groups/GroupList.tsx asks /groups/public/:churchId/label?label= with it.
  it('finds groups by label whatever its case, with hyphens as spaces, in the church asked only', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    await save(token, [{ name: 'Alpha', labels: 'Small Groups' }, { name: 'Beta', labelArray: ['small groups', 'Men'] }, { name: 'Gamma', labels: 'Youth-Group' }, { name: 'Delta', labels: 'Smaller Groups' }]);
    await save(other.token(['Groups.Edit']), [{ name: 'Theirs', labels: 'Small Groups' }]);
    const byLabel = async (label: string) =>
      (await get(undefined, `/membership/groups/public/${c.churchId}/label?label=${encodeURIComponent(label)}`)).json().map((g: { name: string }) => g.name);
    expect(await byLabel('small groups')).toEqual(['Alpha', 'Beta']);
    expect(await byLabel('SMALL GROUPS')).toEqual(['Alpha', 'Beta']);
    expect(await byLabel('youth group')).toEqual(['Gamma']);
    expect(await byLabel('men')).toEqual(['Beta']);
    expect(await byLabel('small')).toEqual([]);
    // What was saved keeps its case.
    expect((await get(c.token(), '/membership/groups')).json().find((g: { name: string }) => g.name === 'Alpha').labelArray).toEqual(['Small Groups']);
  });

  // B1Admin:src/groups/components/GroupDetailsEdit.tsx posts the group it loaded (labels as a string) with the
  // edited `labelArray`, which is what the labels become.
  it('takes labels as a string or a list, and labelArray over labels', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [g] = (await save(token, { name: 'Choir', labels: ['alto', 'bass'] })).json();
    const edited = { ...g, name: 'Choir', labels: g.labels, labelArray: ['alto', 'tenor'], trackAttendance: 'true' === 'true', campusId: null, minGrade: null };
    const [after] = (await save(token, [edited])).json();
    expect(after).toMatchObject({ labels: 'alto,tenor', labelArray: ['alto', 'tenor'] });
    const [cleared] = (await save(token, { ...after, labelArray: [] })).json();
    expect(cleared).toMatchObject({ labels: '', labelArray: [] });
    const [fromString] = (await save(token, { id: g.id, labels: 'one,two,,one' })).json();
    expect(fromString.labelArray).toEqual(['one', 'two']);
    // A post without labels leaves them.
    expect((await save(token, { id: g.id, about: 'Sings' })).json()[0].labelArray).toEqual(['one', 'two']);
    // B1Admin:src/groups/components/GroupBanner.tsx duplicates a group from what it read.
    const [copy] = (await save(token, { name: 'Choir Copy', tags: fromString.tags, labelArray: fromString.labelArray, joinPolicy: 'open' })).json();
    expect(copy).toMatchObject({ tags: 'standard', labelArray: ['one', 'two'], joinPolicy: 'open' });
    expect((await save(token, { id: g.id, joinPolicy: 'anyone' })).json().errors[0].param).toBe('joinPolicy');
  });

  // B1Admin:src/groups/GroupsPage.tsx lists `/groups?archived=1` and archives or restores with `archived`.
  it('archives and restores a group: archived groups leave the lists and the public pages, and are listed apart', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [a, b] = (await save(token, [{ name: 'Active' }, { name: 'Old' }])).json();
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: b.id, personId: c.personId });
    const [archived] = (await save(token, [{ ...b, archived: true }])).json();
    expect(archived.archived).toBe(true);
    expect((await get(c.token(), '/membership/groups')).json().map((g: { id: string }) => g.id)).toEqual([a.id]);
    expect((await get(c.token(), '/membership/groups?archived=1')).json()).toEqual([{ ...archived, memberCount: 1 }]);
    expect((await get(c.token(), '/membership/groups/tag/standard')).json().map((g: { id: string }) => g.id)).toEqual([a.id]);
    expect((await get(c.token(), '/membership/groups/my')).json()).toEqual([]);
    expect((await get(c.token(), `/membership/groups/${b.id}`)).json().archived).toBe(true);
    expect((await get(undefined, `/membership/groups/public/${c.churchId}/${b.id}`)).statusCode).toBe(404);
    expect((await get(undefined, `/membership/groupmembers/public/leaders/${c.churchId}/${b.id}`)).statusCode).toBe(404);
    expect((await get(undefined, `/membership/groupmembers/public/leaders/${c.churchId}/${a.id}`)).statusCode).toBe(200);
    const [restored] = (await save(token, [{ ...archived, archived: 0 }])).json();
    expect(restored.archived).toBe(false);
    expect((await get(c.token(), '/membership/groups')).json()).toHaveLength(2);
  });
});

describe('GET /membership/groups/:id/health and /groups/health/summary', () => {
  // B1Admin:src/groups/components/GroupHealthTab.tsx and GroupsHealthPage.tsx read these shapes.
  it('answers members, leaders, age, genders, 90-day joins, leaves and churn, 12 months and demographics', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit', 'GroupMembers.Edit', 'GroupMembers.View']);
    const [g, empty] = (await save(token, [{ name: 'Youth' }, { name: 'Empty' }])).json();
    const thisYear = new Date().getUTCFullYear();
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', gender: 'Female', birthDate: new Date(Date.UTC(thisYear - 30, 0, 1)) });
    const bob = await addPerson(t, c.churchId, { firstName: 'Bob', gender: 'male', birthDate: new Date(Date.UTC(thisYear - 16, 0, 1)) });
    const cy = await addPerson(t, c.churchId, { firstName: 'Cy' });
    const dee = await addPerson(t, c.churchId, { firstName: 'Dee', gender: 'Female' });
    const add = await call(t.app, 'POST', '/membership/groupmembers', {
      token,
      body: [ann, bob, cy, dee].map((p, i) => ({ groupId: g.id, personId: p.id, leader: i === 0 })),
    });
    expect(add.statusCode).toBe(200);
    // Adding again is no new join.
    await call(t.app, 'POST', '/membership/groupmembers', { token, body: { groupId: g.id, personId: ann.id, leader: true } });
    const deeMember = add.json()[3].id;
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${deeMember}`, { token })).statusCode).toBe(200);
    // A join older than 90 days, within the 12 months.
    const old = new Date(Date.now() - 120 * 24 * 3600 * 1000);
    await t.app.db.insert(groupMemberHistory).values({ id: randomUUID(), churchId: c.churchId, groupId: g.id, personId: randomUUID(), action: 'joined', at: old });

    const res = await get(token, `/membership/groups/${g.id}/health`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const month = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(body).toEqual({
      memberCount: 3,
      leaderCount: 1,
      averageAge: 23,
      joins90: 4,
      leaves90: 1,
      // the group started the period with 3 - 4 + 1 = 0 members: leaves of everyone who was in it, 1 of 4
      churnRate90: 25,
      monthly: expect.any(Array),
      demographics: {
        gender: [
          { name: 'Female', count: 1 },
          { name: 'male', count: 1 },
          { name: 'Unassigned', count: 1 },
        ],
        ageGroups: expect.arrayContaining([
          { group: '12-18', female: 0, male: 1, unassigned: 0 },
          { group: '26-35', female: 1, male: 0, unassigned: 0 },
        ]),
      },
    });
    expect(body.monthly).toHaveLength(12);
    expect(body.monthly.at(-1)).toEqual({ month: month(new Date()), joins: 4, leaves: 1 });
    expect(body.monthly.find((m: { month: string }) => m.month === month(old))).toEqual({ month: month(old), joins: 1, leaves: 0 });
    expect(body.demographics.ageGroups.map((a: { group: string }) => a.group)).toEqual(['0-3', '4-11', '12-18', '19-25', '26-35', '36-50', '51-64', '65+']);

    const summary = await get(token, '/membership/groups/health/summary');
    expect(summary.json()).toEqual([
      { groupId: empty.id, name: 'Empty', categoryName: null, memberCount: 0, leaderCount: 0, averageAge: null, femaleCount: 0, maleCount: 0, joins90: 0, leaves90: 0, churnRate90: 0 },
      { groupId: g.id, name: 'Youth', categoryName: null, memberCount: 3, leaderCount: 1, averageAge: 23, femaleCount: 1, maleCount: 1, joins90: 4, leaves90: 1, churnRate90: 25 },
    ]);
    // The empty group's year is twelve empty months.
    expect((await get(token, `/membership/groups/${empty.id}/health`)).json()).toMatchObject({ memberCount: 0, averageAge: null, joins90: 0, churnRate90: 0, demographics: { gender: [] } });
  });

  it('answers the summary anew when members change, and reads the 90 days of joins and leaves each time', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit', 'GroupMembers.Edit', 'GroupMembers.View']);
    const [g] = (await save(token, [{ name: 'Choir' }])).json();
    const row = (res: { json: () => Array<Record<string, unknown>> }) => res.json().find((r) => r.groupId === g.id);
    const first = await get(token, '/membership/groups/health/summary');
    expect(row(first)).toMatchObject({ memberCount: 0, joins90: 0, leaves90: 0 });
    const again = await call(t.app, 'GET', '/membership/groups/health/summary', { token, headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', gender: 'Female' });
    expect((await call(t.app, 'POST', '/membership/groupmembers', { token, body: { groupId: g.id, personId: ann.id } })).statusCode).toBe(200);
    expect(row(await get(token, '/membership/groups/health/summary'))).toMatchObject({ memberCount: 1, femaleCount: 1, joins90: 1, leaves90: 0 });
    // history written without a change to members or people (the window is read live)
    await t.app.db.insert(groupMemberHistory).values({ id: randomUUID(), churchId: c.churchId, groupId: g.id, personId: randomUUID(), action: 'left', at: new Date() });
    expect(row(await get(token, '/membership/groups/health/summary'))).toMatchObject({ memberCount: 1, joins90: 1, leaves90: 1, churnRate90: 100 });
  });

  it('is for GroupMembers.View or the group’s leader, in the caller’s church', async () => {
    const c = await makeChurch(t);
    const [g, h] = (await save(c.token(['Groups.Edit']), [{ name: 'Led' }, { name: 'Other' }])).json();
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groups/${g.id}/health`, permission: 'GroupMembers.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/groups/health/summary', permission: 'GroupMembers.View' }, c.churchId);
    const leader = tokenFor({ churchId: c.churchId, personId: c.personId, permissions: [], leaderGroupIds: [g.id] });
    expect((await get(leader, `/membership/groups/${g.id}/health`)).statusCode).toBe(200);
    expect((await get(leader, `/membership/groups/${h.id}/health`)).statusCode).toBe(401);
    expect((await get(leader, '/membership/groups/health/summary')).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await get(other.token(['GroupMembers.View']), `/membership/groups/${g.id}/health`)).statusCode).toBe(404);
    expect((await get(other.token(['GroupMembers.View']), '/membership/groups/health/summary')).json()).toEqual([]);
  });
});

describe('GET /membership/groups/:id/plans', () => {
  // B1App:src/app/[sdSlug]/mobile/components/group/GroupPlansTab.tsx reads an array of plans.
  it('answers an empty list (no plan types are associated with groups yet) to members and staff only', async () => {
    const c = await makeChurch(t);
    const [g] = (await save(c.token(['Groups.Edit']), { name: 'Band' })).json();
    const member = await addPerson(t, c.churchId);
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: g.id, personId: member.id });
    const asMember = tokenFor({ churchId: c.churchId, personId: member.id, permissions: [] });
    expect((await get(asMember, `/membership/groups/${g.id}/plans`)).json()).toEqual([]);
    expect((await get(c.token(['Plans.Edit']), `/membership/groups/${g.id}/plans`)).json()).toEqual([]);
    const outsider = tokenFor({ churchId: c.churchId, personId: randomUUID(), permissions: [] });
    expect((await get(outsider, `/membership/groups/${g.id}/plans`)).statusCode).toBe(401);
    expect((await get(c.token(['Groups.Edit']), `/membership/groups/${randomUUID()}/plans`)).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groups/${g.id}/plans` }, c.churchId);
  });
});

describe('POST /membership/groupmembers/self and leaving', () => {
  // B1App:src/app/[sdSlug]/mobile/components/details/GroupDetail.tsx joins with {groupId}, reads `redirect`, and
  // leaves with DELETE /groupmembers/:id of its own membership.
  it('joins an open group, answers {redirect:"request"} for a request group, refuses a closed one, and lets a member leave', async () => {
    const c = await makeChurch(t);
    const staff = c.token(['Groups.Edit']);
    const [open, request, closed, archived] = (
      await save(staff, [{ name: 'Open', joinPolicy: 'open' }, { name: 'Ask', joinPolicy: 'request' }, { name: 'Closed' }, { name: 'Gone', joinPolicy: 'open', archived: true }])
    ).json();
    const me = await addPerson(t, c.churchId, { firstName: 'Joy', lastName: 'Ner' });
    const token = tokenFor({ churchId: c.churchId, personId: me.id, permissions: [] });
    const self = (groupId: string, as = token) => call(t.app, 'POST', '/membership/groupmembers/self', { token: as, body: { groupId } });

    const joined = await self(open.id);
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      groupId: open.id,
      personId: me.id,
      leader: false,
      joinDate: expect.any(String),
      person: { id: me.id, name: { first: 'Joy', last: 'Ner', display: 'Joy Ner' }, photo: null, membershipStatus: 'Member' },
      group: { id: open.id, name: 'Open', photoUrl: null },
    });
    expect((await self(open.id)).json().id).toBe(joined.json().id);
    const history = await t.app.db.select().from(groupMemberHistory).where(and(eq(groupMemberHistory.groupId, open.id), eq(groupMemberHistory.personId, me.id)));
    expect(history.map((h) => h.action)).toEqual(['joined']);

    expect((await self(request.id)).json()).toEqual({ redirect: 'request', message: expect.any(String) });
    const refused = await self(closed.id);
    expect([refused.statusCode, refused.json()]).toEqual([403, { errors: ['This group is closed to new members: its leaders add people'] }]);
    expect((await self(archived.id)).statusCode).toBe(404);
    const other = await makeChurch(t);
    const [foreign] = (await save(other.token(['Groups.Edit']), { name: 'Theirs', joinPolicy: 'open' })).json();
    expect((await self(foreign.id)).statusCode).toBe(404);
    expect((await self(open.id, tokenFor({ churchId: c.churchId, personId: null, permissions: [] }))).json().errors[0].param).toBe('groupId');
    expect(await t.app.db.select().from(groupMembers).where(eq(groupMembers.personId, me.id))).toHaveLength(1);

    // Leaving: one's own membership only, without GroupMembers.View.
    const stranger = tokenFor({ churchId: c.churchId, personId: randomUUID(), permissions: [] });
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${joined.json().id}`, { token: stranger })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${joined.json().id}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(groupMembers).where(eq(groupMembers.personId, me.id))).toEqual([]);
    const after = await t.app.db.select().from(groupMemberHistory).where(and(eq(groupMemberHistory.groupId, open.id), eq(groupMemberHistory.personId, me.id)));
    expect(after.map((h) => h.action).sort()).toEqual(['joined', 'left']);
    expect((await call(t.app, 'DELETE', `/membership/groupmembers/${joined.json().id}`, { token })).statusCode).toBe(401);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/groupmembers/self', body: { groupId: open.id } }, c.churchId);
  });
});

describe('GET /membership/groups/ids and /groups/public/:churchId/list', () => {
  // B1Admin:src/serving/components/Assignment.tsx reads /groups/ids?ids=; B1App:src/components/groups/GroupsBrowser.tsx
  // reads the public list.
  it('answers the church’s groups by ids, and the public list of live groups', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Groups.Edit']);
    const [a, b, old] = (await save(token, [{ name: 'Alpha' }, { name: 'Beta' }, { name: 'Old', archived: true }])).json();
    const other = await makeChurch(t);
    const [foreign] = (await save(other.token(['Groups.Edit']), { name: 'Theirs' })).json();
    const byIds = await get(c.token(), `/membership/groups/ids?ids=${a.id},${old.id},${foreign.id}`);
    expect(byIds.json()).toEqual([a, old]);
    expect((await get(c.token(), '/membership/groups/ids?ids=nope')).json().errors[0].param).toBe('ids[0]');
    const pub = await get(undefined, `/membership/groups/public/${c.churchId}/list`);
    expect(pub.json()).toEqual([a, b]);
    expect((await get(undefined, `/membership/groups/public/${randomUUID()}/list`)).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/groups/ids?ids=${a.id}` }, c.churchId);
  });
});
