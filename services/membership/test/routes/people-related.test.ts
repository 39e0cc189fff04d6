import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { HttpError } from '@church/common';
import { call, expectGuarded, offContract, fakeInternal } from '@church/common/testing';
import { formSubmissions, forms, people, settings, userChurches, users, visibilityPreferences } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';

let answer: () => Promise<unknown> = async () => ({ personIds: [] });
// Attendance, asked who attended (people/attendance).
const internal = fakeInternal({ 'POST /attendance/internal/people': () => answer() });
const { calls } = internal;

const t = useMembership({ overrides: { internal } });
beforeEach(() => {
  calls.length = 0;
});

const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((p) => p.id).sort();

describe('access', () => {
  it('guards the JWT routes', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/people/attendance', permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/people/timeline?personIds=${c.personId}` }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/people/directory/${c.personId}` }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/people/claim/${c.churchId}` }, c.churchId);
  });
});

describe('GET /membership/people/attendance', () => {
  it('asks attendance over internal HTTP and answers those people of the church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const a = await addPerson(t, c.churchId);
    await addPerson(t, c.churchId);
    answer = async () => ({ personIds: [a.id, other.personId, a.id] });
    const serviceId = randomUUID();
    const res = await call(t.app, 'GET', `/membership/people/attendance?serviceId=${serviceId}&startDate=2024-01-07&endDate=2024-02-04`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([a.id]);
    expect(calls).toEqual([
      {
        module: 'attendance',
        method: 'POST',
        path: '/attendance/internal/people',
        body: { churchId: c.churchId, serviceId, startDate: '2024-01-07T00:00:00.000Z', endDate: '2024-02-04T00:00:00.000Z' },
      },
    ]);
  });

  it('sends a category’s groups, and asks nothing for a category without groups', async () => {
    const c = await makeChurch(t);
    const g1 = await addGroup(t, c.churchId, 'Kids A', { categoryName: 'Kids' });
    await addGroup(t, c.churchId, 'Adults', { categoryName: 'Adults' });
    answer = async () => ({ personIds: [] });
    await call(t.app, 'GET', '/membership/people/attendance?categoryName=Kids', { token: c.token(['People.Edit']) });
    expect(calls[0]!.body).toEqual({ churchId: c.churchId, categoryName: 'Kids', groupIds: [g1] });
    calls.length = 0;
    const none = await call(t.app, 'GET', '/membership/people/attendance?categoryName=Nothing', { token: c.token(['People.Edit']) });
    expect(none.json()).toEqual([]);
    expect(calls).toEqual([]);
  });

  it.each([
    ['answers 404', async () => Promise.reject(new HttpError(404, [{ msg: 'Route not found' }]))],
    ['is unreachable', async () => Promise.reject(new TypeError('fetch failed'))],
    ['answers nonsense', async () => offContract({ people: 'all' })],
  ])('answers 502 in the error shape when attendance %s (never an empty list)', async (_what, failure) => {
    const c = await makeChurch(t);
    answer = failure;
    const res = await call(t.app, 'GET', '/membership/people/attendance', { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ errors: [expect.stringContaining('attendance')] });
  });

  it('validates the filters', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'GET', '/membership/people/attendance?groupId=abc', { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'groupId', location: 'query' });
  });
});

describe('GET /membership/people/timeline', () => {
  it('merges person added, group joined and form submitted events, newest first', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { firstName: 'Tim', lastName: 'Line', displayName: 'Tim Line', createdAt: new Date('2024-01-01T00:00:00Z') });
    const other = await addPerson(t, c.churchId, { displayName: 'Oth Er' });
    const groupId = await addGroup(t, c.churchId, 'Choir');
    await addToGroup(t, c.churchId, groupId, p.id, new Date('2024-02-01T00:00:00Z'));
    await addToGroup(t, c.churchId, groupId, other.id, new Date('2024-04-01T00:00:00Z'));
    const formId = randomUUID();
    const submissionId = randomUUID();
    await t.app.db.insert(forms).values({ id: formId, churchId: c.churchId, name: 'Welcome card' });
    await t.app.db.insert(formSubmissions).values({ id: submissionId, churchId: c.churchId, formId, contentType: 'person', contentId: p.id, submissionDate: new Date('2024-03-01T00:00:00Z') });

    const res = await call(t.app, 'GET', `/membership/people/timeline?personIds=${p.id}`, { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { type: 'formSubmitted', date: '2024-03-01T00:00:00.000Z', personId: p.id, personName: 'Tim Line', formId, formName: 'Welcome card', formSubmissionId: submissionId },
      { type: 'groupJoined', date: '2024-02-01T00:00:00.000Z', personId: p.id, personName: 'Tim Line', groupId, groupName: 'Choir' },
      { type: 'personAdded', date: '2024-01-01T00:00:00.000Z', personId: p.id, personName: 'Tim Line' },
    ]);

    const byGroup = await call(t.app, 'GET', `/membership/people/timeline?groupIds=${groupId}`, { token: c.token(['People.View']) });
    expect(byGroup.json().map((e: { personId: string; type: string }) => [e.type, e.personId])).toEqual([
      ['groupJoined', other.id],
      ['groupJoined', p.id],
    ]);
  });

  it('shows others by the people routes’ rules: People.View anyone, Member level members, a guest only themself', async () => {
    const c = await makeChurch(t);
    const member = await addPerson(t, c.churchId, { firstName: 'Mem', lastName: 'Ber', membershipStatus: 'Member' });
    const visitor = await addPerson(t, c.churchId, { firstName: 'Vis', lastName: 'Itor', membershipStatus: 'Visitor' });
    const guest = await addPerson(t, c.churchId, { firstName: 'Gue', lastName: 'St', membershipStatus: 'Guest' });
    const groupId = await addGroup(t, c.churchId, 'Choir');
    for (const p of [member, visitor, guest]) await addToGroup(t, c.churchId, groupId, p.id);
    const formId = randomUUID();
    await t.app.db.insert(forms).values({ id: formId, churchId: c.churchId, name: 'Prayer request', restricted: true });
    for (const p of [member, visitor, guest]) {
      await t.app.db.insert(formSubmissions).values({ id: randomUUID(), churchId: c.churchId, formId, contentType: 'person', contentId: p.id, submittedBy: p.id, submissionDate: new Date() });
    }
    const seen = async (token: string) => {
      const res = await call(t.app, 'GET', `/membership/people/timeline?personIds=${[member.id, visitor.id, guest.id].join(',')}&groupIds=${groupId}`, { token });
      expect(res.statusCode).toBe(200);
      return (res.json() as Array<{ type: string; personId: string }>).map((e) => `${e.type}:${e.personId}`).sort();
    };
    const every = (types: string[], ids: string[]) => types.flatMap((ty) => ids.map((id) => `${ty}:${id}`)).sort();
    const all = ['personAdded', 'groupJoined', 'formSubmitted'];

    expect(await seen(c.token(['People.View']))).toEqual(every(all, [member.id, visitor.id, guest.id]));
    // a Member-level viewer: members' joins and additions, never a visitor's or guest's, no one's form answers but their own
    const asMember = c.token([], { personId: member.id, membershipStatus: 'Member' });
    expect(await seen(asMember)).toEqual([...every(all, [member.id])].sort());
    const membersLevel = c.token(['People.View Members'], { personId: null });
    expect(await seen(membersLevel)).toEqual(every(['personAdded', 'groupJoined'], [member.id]));
    // a guest sees only their own record
    expect(await seen(c.token([], { personId: guest.id, membershipStatus: 'Guest' }))).toEqual(every(all, [guest.id]));
    expect(await seen(c.token([], { personId: null, membershipStatus: 'Guest' }))).toEqual([]);
  });

  it('answers nothing for another church’s ids or none', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/people/timeline?personIds=${other.personId}`, { token: c.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/membership/people/timeline', { token: c.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/membership/people/timeline?personIds=zzz', { token: c.token() })).statusCode).toBe(400);
  });
});

describe('GET /membership/people/directory/:id', () => {
  async function fixture(level?: string) {
    const c = await makeChurch(t);
    if (level) await t.app.db.insert(settings).values({ id: randomUUID(), churchId: c.churchId, keyName: 'directoryVisibility', value: level });
    const subject = await addPerson(t, c.churchId, {
      firstName: 'Dee',
      lastName: 'Rectory',
      displayName: 'Dee Rectory',
      email: 'dee@example.org',
      mobilePhone: '555-0101',
      address1: '1 Main St',
      city: 'Town',
      birthDate: new Date('1970-01-01'),
    });
    const member = await addPerson(t, c.churchId, { membershipStatus: 'Member' });
    const attendee = await addPerson(t, c.churchId, { membershipStatus: 'Regular Attendee' });
    const visitor = await addPerson(t, c.churchId, { membershipStatus: 'Visitor' });
    const url = `/membership/people/directory/${subject.id}`;
    const as = (personId: string, permissions: string[] = []) => call(t.app, 'GET', url, { token: c.token(permissions, { personId }) });
    return { c, subject, member, attendee, visitor, url, as };
  }
  const prefer = (churchId: string, personId: string, p: { address?: string; phoneNumber?: string; email?: string }) =>
    t.app.db.insert(visibilityPreferences).values({ id: randomUUID(), churchId, personId, ...p });

  it('shows members the name, photo and contact details by default, never dates', async () => {
    const f = await fixture();
    const res = await f.as(f.member.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: f.subject.id,
      name: { first: 'Dee', last: 'Rectory', nick: null, display: 'Dee Rectory' },
      photo: null,
      householdId: f.subject.householdId,
      householdRole: 'Head',
      contactInfo: { address1: '1 Main St', address2: null, city: 'Town', state: null, zip: null, homePhone: null, mobilePhone: '555-0101', workPhone: null, email: 'dee@example.org' },
    });
  });

  it('follows the church setting for who may open the directory (default Members)', async () => {
    const byDefault = await fixture();
    expect((await byDefault.as(byDefault.attendee.id)).statusCode).toBe(401);
    expect((await byDefault.as(byDefault.visitor.id, ['People.View'])).statusCode).toBe(200);
    const attendees = await fixture('Regular Attendees');
    expect((await attendees.as(attendees.attendee.id)).statusCode).toBe(200);
    expect((await attendees.as(attendees.visitor.id)).statusCode).toBe(401);
    const staff = await fixture('Staff');
    expect((await staff.as(staff.member.id)).statusCode).toBe(401);
    expect((await staff.as(staff.visitor.id, ['People.Edit'])).statusCode).toBe(200);
    const everyone = await fixture('Everyone');
    expect((await everyone.as(everyone.visitor.id)).statusCode).toBe(200);
  });

  it('applies per-person preferences: everyone, members, groups, none', async () => {
    const f = await fixture('Everyone');
    await prefer(f.c.churchId, f.subject.id, { address: 'none', phoneNumber: 'groups', email: 'everyone' });
    const visitorView = (await f.as(f.visitor.id)).json().contactInfo;
    expect(visitorView).toEqual({ email: 'dee@example.org' });
    const groupId = await addGroup(t, f.c.churchId, 'Small group');
    await addToGroup(t, f.c.churchId, groupId, f.subject.id);
    await addToGroup(t, f.c.churchId, groupId, f.visitor.id);
    expect((await f.as(f.visitor.id)).json().contactInfo).toEqual({ homePhone: null, mobilePhone: '555-0101', workPhone: null, email: 'dee@example.org' });
    expect((await f.as(f.member.id)).json().contactInfo).toEqual({ email: 'dee@example.org' });
    expect(Object.keys((await f.as(f.subject.id)).json().contactInfo)).toHaveLength(9);
    expect(Object.keys((await f.as(f.visitor.id, ['People.View'])).json().contactInfo)).toHaveLength(9);
  });

  it('hides members-only details from non-members when the directory is open to everyone', async () => {
    const f = await fixture('Everyone');
    expect((await f.as(f.visitor.id)).json().contactInfo).toEqual({});
  });

  it('hides opted-out people from everyone but staff', async () => {
    const f = await fixture();
    await t.app.db.update(people).set({ optedOut: true }).where(eq(people.id, f.subject.id));
    expect((await f.as(f.member.id)).statusCode).toBe(404);
    expect((await f.as(f.member.id, ['People.View'])).statusCode).toBe(200);
  });

  it('answers 404 for another church’s person', async () => {
    const f = await fixture();
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', f.url, { token: other.token(['People.View']) })).statusCode).toBe(404);
  });
});

// B1App:src/app/[sdSlug]/my/[pageSlug]/components/DirectoryMasterPanel.tsx and components/member/directory/
// DirectorySearch.tsx load `/people/directory/all` and read id, name.first/last/display and photo of each entry.
describe('GET /membership/people/directory/all', () => {
  async function church(level?: string) {
    const c = await makeChurch(t);
    if (level) await t.app.db.insert(settings).values({ id: randomUUID(), churchId: c.churchId, keyName: 'directoryVisibility', value: level });
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able', email: 'ann@example.org', mobilePhone: '555-0001', membershipStatus: 'Member' });
    const zed = await addPerson(t, c.churchId, { firstName: 'Zed', lastName: 'Zulu', email: 'zed@example.org', membershipStatus: 'Member' });
    const rae = await addPerson(t, c.churchId, { firstName: 'Rae', lastName: 'Reg', membershipStatus: 'Regular Attendee' });
    const vic = await addPerson(t, c.churchId, { firstName: 'Vic', lastName: 'Visit', membershipStatus: 'Visitor' });
    const gus = await addPerson(t, c.churchId, { firstName: 'Gus', lastName: 'Guest', membershipStatus: 'Guest' });
    const opted = await addPerson(t, c.churchId, { firstName: 'Olive', lastName: 'Out', membershipStatus: 'Member', optedOut: true });
    const as = (personId: string, permissions: string[] = []) => call(t.app, 'GET', '/membership/people/directory/all', { token: c.token(permissions, { personId }) });
    return { c, ann, zed, rae, vic, gus, opted, as };
  }
  const names = (res: { json(): unknown }) => (res.json() as Array<{ name: { display: string } }>).map((p) => p.name.display);

  it('lists the church’s members by name to a member, each entry as the directory shows it', async () => {
    const f = await church();
    const res = await f.as(f.zed.id);
    expect(res.statusCode).toBe(200);
    // The makeChurch person is Staff (Pat Admin); guests, visitors, attendees and opted-out people are not listed.
    expect(names(res)).toEqual(['Ann Able', 'Pat Admin', 'Zed Zulu']);
    expect(res.json()[0]).toEqual({
      id: f.ann.id,
      name: { first: 'Ann', last: 'Able', nick: null, display: 'Ann Able' },
      photo: null,
      householdId: f.ann.householdId,
      householdRole: 'Head',
      contactInfo: { address1: null, address2: null, city: null, state: null, zip: null, homePhone: null, mobilePhone: '555-0001', workPhone: null, email: 'ann@example.org' },
    });
  });

  it('follows the church’s directory level and each person’s preferences', async () => {
    const f = await church('Everyone');
    await t.app.db.insert(visibilityPreferences).values({ id: randomUUID(), churchId: f.c.churchId, personId: f.ann.id, email: 'everyone', phoneNumber: 'groups', address: 'none' });
    const visitorView = await f.as(f.vic.id);
    expect(names(visitorView)).toEqual(['Ann Able', 'Pat Admin', 'Rae Reg', 'Vic Visit', 'Zed Zulu']);
    const annSeen = visitorView.json()[0];
    expect(annSeen.contactInfo).toEqual({ email: 'ann@example.org' });
    // Zed's details are for members (the default): a visitor sees none of them.
    expect(visitorView.json()[4].contactInfo).toEqual({});
    const groupId = await addGroup(t, f.c.churchId, 'Small group');
    await addToGroup(t, f.c.churchId, groupId, f.ann.id);
    await addToGroup(t, f.c.churchId, groupId, f.vic.id);
    expect((await f.as(f.vic.id)).json()[0].contactInfo).toEqual({ homePhone: null, mobilePhone: '555-0001', workPhone: null, email: 'ann@example.org' });
    const attendees = await church('Regular Attendees');
    expect(names(await attendees.as(attendees.rae.id))).toEqual(['Ann Able', 'Pat Admin', 'Rae Reg', 'Zed Zulu']);
    expect((await attendees.as(attendees.vic.id)).statusCode).toBe(401);
  });

  it('is closed to those the level leaves out; staff see everyone, opted-out people too', async () => {
    const f = await church();
    const refused = await f.as(f.vic.id);
    expect([refused.statusCode, refused.json()]).toEqual([401, { errors: ['The directory is not open to you'] }]);
    expect((await f.as(f.rae.id)).statusCode).toBe(401);
    const staff = await f.as(f.vic.id, ['People.View']);
    expect(names(staff)).toEqual(['Ann Able', 'Pat Admin', 'Gus Guest', 'Olive Out', 'Rae Reg', 'Vic Visit', 'Zed Zulu']);
    expect(staff.json()[0].contactInfo).toMatchObject({ email: 'ann@example.org' });
    const staffOnly = await church('Staff');
    expect((await staffOnly.as(staffOnly.ann.id)).statusCode).toBe(401);
    // Another church's members never appear.
    const other = await church();
    expect(names(await other.as(other.ann.id))).toEqual(['Ann Able', 'Pat Admin', 'Zed Zulu']);
    expect(ids(await other.as(other.ann.id))).not.toContain(f.ann.id);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/people/directory/all' }, f.c.churchId);
  });
});

describe('GET /membership/people/claim/:churchId', () => {
  async function user(email: string, emailVerified = true) {
    const id = randomUUID();
    await t.app.db.insert(users).values({ id, email, firstName: 'Uma', lastName: 'User', emailVerified });
    return id;
  }

  it('matches a person by email only when the account’s address is verified, and never by the token’s email', async () => {
    const c = await makeChurch(t);
    const email = `unverified-${randomUUID()}@example.org`;
    const p = await addPerson(t, c.churchId, { email });
    const userId = await user(email, false);
    const res = await call(t.app, 'GET', `/membership/people/claim/${c.churchId}`, { token: c.token([], { userId, email, personId: null }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).not.toBe(p.id);
    expect(res.json()).toMatchObject({ membershipStatus: 'Guest', userId });
    // a token naming someone else's address does not reach their record either
    const victim = await addPerson(t, c.churchId, { email: `victim-${randomUUID()}@example.org` });
    const other = await user(`other-${randomUUID()}@example.org`);
    const forgedEmail = await call(t.app, 'GET', `/membership/people/claim/${c.churchId}`, { token: c.token([], { userId: other, email: victim.email!, personId: null }) });
    expect(forgedEmail.json().id).not.toBe(victim.id);
    expect((await t.app.db.select().from(people).where(eq(people.id, victim.id)))[0]!.userId).toBeNull();
  });

  it('links the caller to the church’s person with their email and records the link', async () => {
    const c = await makeChurch(t);
    const userId = await user(`u-${randomUUID()}@example.org`);
    const email = (await t.app.db.select().from(users).where(eq(users.id, userId)))[0]!.email;
    const p = await addPerson(t, c.churchId, { email: email.toUpperCase() });
    const res = await call(t.app, 'GET', `/membership/people/claim/${c.churchId}`, { token: c.token([], { userId, email, personId: null }) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: p.id, userId });
    const [link] = await t.app.db.select().from(userChurches).where(and(eq(userChurches.churchId, c.churchId), eq(userChurches.userId, userId)));
    expect(link!.personId).toBe(p.id);
    const again = await call(t.app, 'GET', `/membership/people/claim/${c.churchId}`, { token: c.token([], { userId, email, personId: null }) });
    expect(again.json().id).toBe(p.id);
  });

  it('creates a Guest person when the church has none with the email, at another church too', async () => {
    const home = await makeChurch(t);
    const target = await makeChurch(t);
    const email = `new-${randomUUID()}@example.org`;
    const userId = await user(email);
    const res = await call(t.app, 'GET', `/membership/people/claim/${target.churchId}`, { token: home.token([], { userId, email }) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ churchId: target.churchId, userId, membershipStatus: 'Guest', name: { first: 'Uma', last: 'User', display: 'Uma User' }, contactInfo: { email }, householdRole: 'Head' });
    const created = await t.app.db.select().from(people).where(and(eq(people.churchId, target.churchId), eq(people.userId, userId)));
    expect(created).toHaveLength(1);
  });

  it('does not take over a person already claimed by another user', async () => {
    const c = await makeChurch(t);
    const email = `shared-${randomUUID()}@example.org`;
    const taken = await addPerson(t, c.churchId, { email, userId: randomUUID() });
    const userId = await user(`other-${randomUUID()}@example.org`);
    const res = await call(t.app, 'GET', `/membership/people/claim/${c.churchId}`, { token: c.token([], { userId, email }) });
    expect(res.json().id).not.toBe(taken.id);
  });

  it('answers 404 for an unknown church and 400 for a bad id', async () => {
    const c = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/people/claim/${randomUUID()}`, { token: c.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/people/claim/nope', { token: c.token() })).statusCode).toBe(400);
  });
});
