import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { searchPeopleIds } from '../../src/repos/people';
import { makeChurch, useMembership } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';

const t = useMembership();

const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((p) => p.id).sort();
const sorted = (...list: string[]) => [...list].sort();
/** A birth date `years` years and `days` days ago (UTC), as a date. */
function bornAgo(years: number, days = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() - days));
}

describe('access', () => {
  it('guards every search route with People.View or Member', async () => {
    const c = await makeChurch(t);
    for (const route of [
      { method: 'GET' as const, url: '/membership/people/search?term=a' },
      { method: 'GET' as const, url: '/membership/people/search/phone?number=555' },
      { method: 'GET' as const, url: `/membership/people/search/group?groupId=${randomUUID()}` },
      { method: 'POST' as const, url: '/membership/people/search', body: { term: 'a' } },
      { method: 'POST' as const, url: '/membership/people/advancedSearch', body: [] },
      { method: 'GET' as const, url: '/membership/people/advancedSearch' },
    ]) {
      await expectGuarded(t.app, { ...route, permission: 'People.View' }, c.churchId);
    }
  });
});

describe('GET/POST /membership/people/search', () => {
  it('finds by any part of the name, full name or email, case-insensitively, in the church only', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const john = await addPerson(t, c.churchId, { firstName: 'John', lastName: 'Smithers', email: 'JS@Example.org' });
    const bob = await addPerson(t, c.churchId, { firstName: 'Robert', lastName: 'Jones', nickName: 'Bob', displayName: 'Bob Jones' });
    await addPerson(t, other.churchId, { firstName: 'John', lastName: 'Smithers' });
    const token = c.token(['People.View']);
    const res = await call(t.app, 'GET', '/membership/people/search?term=smith', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: john.id, name: expect.objectContaining({ first: 'John', last: 'Smithers' }), contactInfo: expect.objectContaining({ email: 'JS@Example.org' }), membershipStatus: 'Member' })]);
    expect(ids(await call(t.app, 'GET', '/membership/people/search?term=john%20smith', { token }))).toEqual([john.id]);
    expect(ids(await call(t.app, 'GET', '/membership/people/search?term=BOB', { token }))).toEqual([bob.id]);
    expect(ids(await call(t.app, 'GET', '/membership/people/search?email=js@example.ORG', { token }))).toEqual([john.id]);
    expect(ids(await call(t.app, 'POST', '/membership/people/search', { token, body: { term: 'jones' } }))).toEqual([bob.id]);
  });

  it('matches within one field (or first and last name), never across two fields', async () => {
    const c = await makeChurch(t);
    // Every name and the email side by side read "Sue Lee Ann Lee Sue ann@example.org": "lee sue" spans two fields.
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Lee', nickName: 'Sue', displayName: 'Sue Lee', email: 'ann@example.org' });
    const token = c.token(['People.View']);
    expect((await call(t.app, 'GET', '/membership/people/search?term=lee%20sue', { token })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/membership/people/search?term=org%20sue', { token })).json()).toEqual([]);
    expect(ids(await call(t.app, 'GET', '/membership/people/search?term=ann%20lee', { token }))).toEqual([ann.id]);
    expect(ids(await call(t.app, 'GET', '/membership/people/search?term=e%20le', { token }))).toEqual([ann.id]);
  });

  it('matches in memory exactly what the SQL search finds, in the same order, for either scope', async () => {
    const c = await makeChurch(t);
    const names: Array<Parameters<typeof addPerson>[2]> = [
      { firstName: 'Émile', lastName: 'Zola', email: 'EZ@Example.org' },
      { firstName: 'ann', lastName: 'Smith', nickName: 'Annie', membershipStatus: 'Visitor' },
      { firstName: 'Anna', lastName: 'Smith', displayName: 'Dr. Anna Smith', optedOut: true },
      { firstName: 'Bo', lastName: "O'Neil_50%", email: null },
      { firstName: 'Smitty', lastName: 'Brown', displayName: null, nickName: null },
      { firstName: 'Zed', lastName: 'Smith', membershipStatus: 'Staff' },
    ];
    for (const values of names) await addPerson(t, c.churchId, values);
    for (const term of ['smi', 'SMITH', 'ann', 'anna smith', 'émile', 'ÉMILE', 'example.org', "o'neil_", '50%', 'dr. ', 'n s', 'zz', 'e']) {
      for (const [permission, membersOnly] of [['People.View', false], ['People.View Members', true]] as const) {
        const answered = (await call(t.app, 'GET', `/membership/people/search?term=${encodeURIComponent(term)}`, { token: c.token([permission]) })).json();
        const bySql = await searchPeopleIds(t.app.db, c.churchId, { term }, { membersOnly });
        expect({ term, membersOnly, ids: answered.map((p: { id: string }) => p.id) }).toEqual({ term, membersOnly, ids: bySql });
      }
    }
  });

  it('finds a person saved a moment ago, and no longer one just removed', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.View', 'People.Edit']);
    const search = async () => ids(await call(t.app, 'GET', '/membership/people/search?term=quill', { token }));
    expect(await search()).toEqual([]);
    const [saved] = (await call(t.app, 'POST', '/membership/people', { token, body: [{ firstName: 'Quincy', lastName: 'Quill' }] })).json();
    expect(await search()).toEqual([saved.id]);
    expect((await call(t.app, 'DELETE', `/membership/people/${saved.id}`, { token })).statusCode).toBe(200);
    expect(await search()).toEqual([]);
  });

  it('treats LIKE wildcards in the term literally', async () => {
    const c = await makeChurch(t);
    await addPerson(t, c.churchId, { firstName: 'Plain' });
    expect((await call(t.app, 'GET', '/membership/people/search?term=%25', { token: c.token(['People.View']) })).json()).toEqual([]);
  });

  it('needs a term or an email', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'GET', '/membership/people/search', { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'term', location: 'query' });
  });

  it('hides visitors from Member-level callers', async () => {
    const c = await makeChurch(t);
    await addPerson(t, c.churchId, { firstName: 'Vera', lastName: 'Visitor', membershipStatus: 'Visitor' });
    const member = await addPerson(t, c.churchId, { firstName: 'Vera', lastName: 'Member' });
    expect(ids(await call(t.app, 'GET', '/membership/people/search?term=vera', { token: c.token(['People.View Members']) }))).toEqual([member.id]);
  });
});

describe('GET /membership/people/search/phone', () => {
  it('matches the digits of any phone, whatever the formatting', async () => {
    const c = await makeChurch(t);
    const a = await addPerson(t, c.churchId, { mobilePhone: '(555) 123-4567' });
    const b = await addPerson(t, c.churchId, { workPhone: '+1 555.123.9999' });
    await addPerson(t, c.churchId, { homePhone: '777 0000' });
    const token = c.token(['People.View']);
    expect(ids(await call(t.app, 'GET', '/membership/people/search/phone?number=555-123', { token }))).toEqual(sorted(a.id, b.id));
    expect(ids(await call(t.app, 'GET', '/membership/people/search/phone?number=4567', { token }))).toEqual([a.id]);
    const short = await call(t.app, 'GET', '/membership/people/search/phone?number=5-', { token });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].param).toBe('number');
  });
});

describe('GET /membership/people/search/group', () => {
  it('lists the members of a group of the church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const groupId = await addGroup(t, c.churchId, 'Choir');
    const singer = await addPerson(t, c.churchId);
    await addPerson(t, c.churchId);
    await addToGroup(t, c.churchId, groupId, singer.id);
    expect(ids(await call(t.app, 'GET', `/membership/people/search/group?groupId=${groupId}`, { token: c.token(['People.View']) }))).toEqual([singer.id]);
    expect((await call(t.app, 'GET', `/membership/people/search/group?groupId=${groupId}`, { token: other.token(['People.View']) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/membership/people/search/group?groupId=x', { token: c.token(['People.View']) })).statusCode).toBe(400);
  });
});

describe('POST /membership/people/advancedSearch', () => {
  async function fixture() {
    const c = await makeChurch(t);
    const youth = await addGroup(t, c.churchId, 'Youth Group');
    const choir = await addGroup(t, c.churchId, 'Choir');
    const campus = randomUUID();
    const ann = await addPerson(t, c.churchId, {
      firstName: 'Ann',
      lastName: 'Archer',
      gender: 'Female',
      birthDate: bornAgo(45, 3),
      maritalStatus: 'Married',
      anniversary: new Date('2001-06-15'),
      membershipStatus: 'Member',
      mobilePhone: '555-100-2000',
      email: 'ann@example.org',
      city: 'Springfield',
      campusId: campus,
      createdAt: new Date('2020-03-10T12:00:00Z'),
    });
    const ben = await addPerson(t, c.churchId, {
      firstName: 'Ben',
      lastName: 'Baker',
      gender: 'Male',
      birthDate: bornAgo(16),
      maritalStatus: 'Single',
      membershipStatus: 'Visitor',
      householdRole: 'Child',
      createdAt: new Date('2024-11-02T12:00:00Z'),
    });
    const cal = await addPerson(t, c.churchId, { firstName: 'Cal', lastName: 'Carter', gender: 'Male', birthDate: bornAgo(40), membershipStatus: 'Member', optedOut: true, createdAt: new Date('2022-01-01T00:00:00Z') });
    await addToGroup(t, c.churchId, youth, ben.id);
    await addToGroup(t, c.churchId, choir, ann.id);
    await addToGroup(t, c.churchId, choir, cal.id);
    return { c, ann, ben, cal, youth, choir, campus, token: c.token(['People.View']) };
  }
  const search = (token: string, body: unknown) => call(t.app, 'POST', '/membership/people/advancedSearch', { token, body });

  it('combines conditions with AND across fields and kinds', async () => {
    const f = await fixture();
    const res = await search(f.token, [
      { field: 'gender', operator: 'equals', value: 'female' },
      { field: 'age', operator: 'greaterThan', value: 40 },
      { field: 'groupId', operator: 'equals', value: f.choir },
      { field: 'birthMonth', operator: 'in', value: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
    ]);
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([f.ann.id]);
    expect(res.json()[0]).toMatchObject({ id: f.ann.id, name: { first: 'Ann', last: 'Archer' }, membershipStatus: 'Member' });
  });

  it.each([
    ['age between', [{ field: 'age', operator: 'between', value: [40, 45] }], ['ann', 'cal']],
    ['age lessThan', [{ field: 'age', operator: 'lessThan', value: 18 }], ['ben']],
    ['age equals', [{ field: 'age', operator: 'equals', value: 40 }], ['cal']],
    ['age notEquals', [{ field: 'age', operator: 'notEquals', value: 40 }], ['ann', 'ben', 'admin']],
    ['anniversaryMonth by name', [{ field: 'anniversaryMonth', operator: 'equals', value: 'June' }], ['ann']],
    ['membershipStatus in', [{ field: 'membershipStatus', operator: 'in', value: 'visitor,staff' }], ['ben', 'admin']],
    ['membershipStatus notEquals', [{ field: 'membershipStatus', operator: 'notEquals', value: 'Member' }], ['ben', 'admin']],
    ['maritalStatus', [{ field: 'maritalStatus', operator: 'equals', value: 'Single' }], ['ben']],
    ['householdRole', [{ field: 'householdRole', operator: 'equals', value: 'child' }], ['ben']],
    ['lastName startsWith', [{ field: 'lastName', operator: 'startsWith', value: 'ca' }], ['cal']],
    ['displayName contains', [{ field: 'displayName', operator: 'contains', value: 'n Bak' }], ['ben']],
    ['email contains', [{ field: 'email', operator: 'contains', value: 'EXAMPLE' }], ['ann']],
    ['phone', [{ field: 'phone', operator: 'contains', value: '(100) 2000' }], ['ann']],
    ['city', [{ field: 'city', operator: 'equals', value: 'springfield' }], ['ann']],
    ['createdAt between', [{ field: 'createdAt', operator: 'between', value: ['2020-01-01', '2022-01-01'] }], ['ann', 'cal']],
    ['addedDate greaterThan', [{ field: 'addedDate', operator: 'greaterThan', value: '2023-01-01' }], ['ben', 'admin']],
    ['birthDate lessThan', [{ field: 'birthDate', operator: 'lessThan', value: bornAgo(30).toISOString() }], ['ann', 'cal']],
    ['groupName contains', [{ field: 'groupName', operator: 'contains', value: 'youth' }], ['ben']],
    ['optedOut', [{ field: 'optedOut', operator: 'equals', value: true }], ['cal']],
  ])('%s', async (_name, conditions, expected) => {
    const f = await fixture();
    const who: Record<string, string> = { ann: f.ann.id, ben: f.ben.id, cal: f.cal.id, admin: f.c.personId };
    expect(ids(await search(f.token, conditions))).toEqual(sorted(...expected.map((k) => who[k]!)));
  });

  it('filters by group membership and campus ids', async () => {
    const f = await fixture();
    expect(ids(await search(f.token, [{ field: 'groupId', operator: 'in', value: [f.youth, f.choir] }]))).toEqual(sorted(f.ann.id, f.ben.id, f.cal.id));
    expect(ids(await search(f.token, [{ field: 'groupId', operator: 'notEquals', value: f.choir }]))).toEqual(sorted(f.ben.id, f.c.personId));
    expect(ids(await search(f.token, [{ field: 'campusId', operator: 'equals', value: f.campus }]))).toEqual([f.ann.id]);
  });

  it('accepts {conditions} as query/members answers it; no conditions lists everyone', async () => {
    const f = await fixture();
    expect(ids(await search(f.token, { conditions: [{ field: 'firstName', operator: 'equals', value: 'ann' }] }))).toEqual([f.ann.id]);
    expect(ids(await search(f.token, []))).toEqual(sorted(f.ann.id, f.ben.id, f.cal.id, f.c.personId));
  });

  it('keeps Member-level callers to members who have not opted out', async () => {
    const f = await fixture();
    expect(ids(await search(f.c.token(['People.View Members']), [{ field: 'gender', operator: 'in', value: ['Male', 'Female'] }]))).toEqual([f.ann.id]);
  });

  it('never reaches another church', async () => {
    const f = await fixture();
    const other = await makeChurch(t);
    expect((await search(other.token(['People.View']), [{ field: 'groupId', operator: 'equals', value: f.choir }])).json()).toEqual([]);
  });

  // B1Admin's dashboard search keys its query by this path (and POSTs); a GET is a search without conditions,
  // not a person id (it used to fall to /people/:id and answer 400).
  it('answers GET as a search without conditions: everyone the caller may see, by name, in the church only', async () => {
    const f = await fixture();
    const other = await makeChurch(t);
    const olga = await addPerson(t, other.churchId, { firstName: 'Olga', lastName: 'Other' });
    const res = await call(t.app, 'GET', '/membership/people/advancedSearch', { token: f.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual((await search(f.token, [])).json());
    expect(res.json().map((p: { id: string }) => p.id)).toEqual([f.c.personId, f.ann.id, f.ben.id, f.cal.id]);
    expect(res.json()[1]).toMatchObject({ id: f.ann.id, name: { first: 'Ann', last: 'Archer' }, contactInfo: expect.objectContaining({ email: 'ann@example.org' }) });
    const members = await call(t.app, 'GET', '/membership/people/advancedSearch', { token: f.c.token(['People.View Members']) });
    expect(ids(members)).toEqual(sorted(f.ann.id, f.c.personId));
    expect(ids(await call(t.app, 'GET', '/membership/people/advancedSearch', { token: other.token(['People.View']) }))).toEqual(sorted(other.personId, olga.id));
  });

  it.each([
    [[{ field: 'shoeSize', operator: 'equals', value: 9 }], '[0].field'],
    [[{ field: 'age', operator: 'around', value: 9 }], '[0].operator'],
    [[{ field: 'age', operator: 'contains', value: 9 }], '[0].operator'],
    [[{ field: 'gender', operator: 'equals', value: 'x' }, { field: 'age', operator: 'greaterThan', value: 'old' }], '[1].value'],
    [[{ field: 'age', operator: 'between', value: [1] }], '[0].value'],
    [[{ field: 'birthDate', operator: 'equals', value: 'someday' }], '[0].value'],
    [[{ field: 'groupId', operator: 'equals', value: 'not-a-uuid' }], '[0].value'],
    [[{ field: 'gender', operator: 'equals' }], '[0].value'],
    [[{ field: 'optedOut', operator: 'equals', value: 'maybe' }], '[0].value'],
  ])('answers 400 naming the bad part of %j', async (body, param) => {
    const f = await fixture();
    const res = await search(f.token, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param, location: 'body' });
  });
});
