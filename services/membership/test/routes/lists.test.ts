import { randomUUID } from 'node:crypto';
import { HttpError } from '@church/common';
import { call, expectGuarded, fakeInternal, type TestApp } from '@church/common/testing';
import { startMembership, makeChurch } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';

// B1Admin:src/people/PeoplePage.tsx posts [{name, category, conditions, rules, scope, householdInclusion,
// autoRefresh, notifyOnChange}] and reads /lists/:id/people for rules that match "any" or widen to households;
// components/SavedLists.tsx lists {name, category, scope, createdByPersonName} and deletes by id.
let t: TestApp;
let attended: string[] = [];
const internal = fakeInternal({
  'POST /attendance/internal/people': () => ({ personIds: attended }),
  'POST /giving/internal/people/donors': () => {
    throw new HttpError(404, [{ msg: 'Route not found' }]);
  },
});
beforeAll(async () => {
  t = await startMembership({ overrides: { internal } });
});
afterAll(() => t.close());

async function church() {
  const c = await makeChurch(t);
  const staff = c.token(['People.View', 'People.Edit']);
  const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able', gender: 'Female' });
  const bob = await addPerson(t, c.churchId, { firstName: 'Bob', lastName: 'Baker', gender: 'Male' });
  const kid = await addPerson(t, c.churchId, { firstName: 'Kit', lastName: 'Baker', gender: 'Male', householdId: bob.householdId, householdRole: 'Child' });
  const spouse = await addPerson(t, c.churchId, { firstName: 'Bea', lastName: 'Baker', gender: 'Female', householdId: bob.householdId, householdRole: 'Spouse' });
  return { c, staff, ann, bob, kid, spouse };
}
const save = (token: string, body: unknown) => call(t.app, 'POST', '/membership/lists', { token, body });
const peopleOf = async (token: string, id: string) => (await call(t.app, 'GET', `/membership/lists/${id}/people`, { token })).json().map((p: { name: { first: string } }) => p.name.first).sort();

describe('saved lists', () => {
  it('saves a list with its rules and the screen’s filters, lists it with its maker, and finds its people', async () => {
    const s = await church();
    const conditions = { gender: { field: 'gender', operator: 'equals', value: 'Male' } };
    const res = await save(s.staff, [{ name: 'Men', category: 'Ministries', conditions, rules: { match: 'all', conditions: [{ provider: 'person', field: 'gender', operator: 'equals', value: 'Male' }] }, scope: 'org', householdInclusion: 'none', autoRefresh: false, notifyOnChange: false }]);
    expect(res.statusCode).toBe(200);
    const [list] = res.json();
    expect(list).toMatchObject({ name: 'Men', category: 'Ministries', conditions, scope: 'org', householdInclusion: 'none', createdByPersonId: s.c.personId });
    const listed = (await call(t.app, 'GET', '/membership/lists', { token: s.staff })).json();
    expect(listed).toEqual([expect.objectContaining({ id: list.id, name: 'Men', createdByPersonName: 'Pat Admin' })]);
    expect(await peopleOf(s.staff, list.id)).toEqual(['Bob', 'Kit']);
  });

  it('evaluates any, none, nested groups, group membership and households', async () => {
    const s = await church();
    const choir = await addGroup(t, s.c.churchId, 'Choir');
    await addToGroup(t, s.c.churchId, choir, s.ann.id);
    const make = async (rules: unknown, householdInclusion = "none") => { const r = await save(s.staff, { name: randomUUID(), rules, householdInclusion }); if (r.statusCode !== 200) throw new Error(r.body); return r.json()[0].id as string; };
    const anyOf = await make({ match: 'any', conditions: [{ provider: 'group', field: 'memberOf', operator: 'in', entityId: choir }, { provider: 'person', field: 'firstName', operator: 'equals', value: 'Bob' }] });
    expect(await peopleOf(s.staff, anyOf)).toEqual(['Ann', 'Bob']);
    const noneOf = await make({ match: 'none', conditions: [{ provider: 'person', field: 'lastName', operator: 'equals', value: 'Baker' }] });
    expect(await peopleOf(s.staff, noneOf)).toEqual(['Ann', 'Pat']);
    const nested = await make({ match: 'all', conditions: [{ provider: 'person', field: 'gender', operator: 'equals', value: 'Female' }], groups: [{ match: 'any', conditions: [{ provider: 'group', operator: 'notIn', entityId: choir }] }] });
    expect(await peopleOf(s.staff, nested)).toEqual(['Bea']);
    const household = await make({ match: 'all', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Bob' }] }, 'household');
    expect(await peopleOf(s.staff, household)).toEqual(['Bea', 'Bob', 'Kit']);
    const children = await make({ match: 'all', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Bob' }] }, 'children');
    expect(await peopleOf(s.staff, children)).toEqual(['Bob', 'Kit']);
  });

  it('asks attendance for attendance conditions and fails clearly when giving cannot answer', async () => {
    const s = await church();
    attended = [s.ann.id];
    const att = (await save(s.staff, { name: 'Came', rules: { match: 'all', conditions: [{ provider: 'attendance', field: 'attended', from: '2026-01-01', to: '2026-12-31' }] } })).json()[0].id;
    expect(await peopleOf(s.staff, att)).toEqual(['Ann']);
    expect(internal.calls.at(-1)).toMatchObject({ path: '/attendance/internal/people', body: { churchId: s.c.churchId, startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-12-31T00:00:00.000Z' } });
    const gave = (await save(s.staff, { name: 'Gave', rules: { match: 'all', conditions: [{ provider: 'giving', field: 'donated' }] } })).json()[0].id;
    const res = await call(t.app, 'GET', `/membership/lists/${gave}/people`, { token: s.staff });
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toMatch(/giving/);
  });

  it('refuses rules it cannot read, naming the condition', async () => {
    const s = await church();
    const bad = (await save(s.staff, { name: 'Bad', rules: { match: 'all', conditions: [{ provider: 'person', field: 'constructor', operator: 'equals', value: 'x' }] } })).json()[0].id;
    const res = await call(t.app, 'GET', `/membership/lists/${bad}/people`, { token: s.staff });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'rules.conditions[0].field' });
    const unknown = await save(s.staff, { name: 'X', rules: { match: 'all', conditions: [{ provider: 'astrology' }] } });
    expect(unknown.statusCode).toBe(400);
  });

  it('keeps private lists to their maker and every list to its church', async () => {
    const s = await church();
    const mine = (await save(s.staff, { name: 'Mine', scope: 'private', rules: { match: 'all', conditions: [] } })).json()[0];
    const colleague = s.c.token(['People.View', 'People.Edit'], { personId: s.ann.id });
    expect((await call(t.app, 'GET', '/membership/lists', { token: colleague })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/membership/lists/${mine.id}/people`, { token: colleague })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/lists/${mine.id}`, { token: colleague })).statusCode).toBe(404);
    expect((await save(colleague, { id: mine.id, name: 'Taken' })).statusCode).toBe(404);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/lists/${mine.id}`, { token: other.token(['People.View']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/lists/${mine.id}`, { token: s.staff })).statusCode).toBe(200);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/lists', permission: 'People.View' }, s.c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/lists', body: [], permission: 'People.Edit' }, s.c.churchId);
  });
});
