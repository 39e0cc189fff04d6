import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { HttpError } from '@church/common';
import { call, expectGuarded, fakeInternal } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addForm, addGroup, addPerson, addToGroup } from './fixtures';
import { answers, formSubmissions, people, personFieldValues, personFields, questions, savedLists } from '../../src/db/schema';

// B1Admin:src/people/PeoplePage.tsx posts [{name, category, conditions, rules, scope, householdInclusion,
// autoRefresh, notifyOnChange}] and reads /lists/:id/people for rules that match "any" or widen to households;
// components/SavedLists.tsx lists {name, category, scope, createdByPersonName} and deletes by id.
let attended: string[] = [];
let donors: string[] | undefined;
const internal = fakeInternal({
  'POST /attendance/internal/people': () => ({ personIds: attended }),
  'POST /giving/internal/people/donors': () => {
    if (donors) return { personIds: donors };
    throw new HttpError(404, [{ msg: 'Route not found' }]);
  },
});
const t = useMembership({ overrides: { internal } });

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

describe("a list's people, kept per data version", () => {
  const get = (token: string, id: string, headers: Record<string, string> = {}) => call(t.app, 'GET', `/membership/lists/${id}/people`, { token, headers });
  const names = (res: { json: () => Array<{ name: { first: string } }> }) => res.json().map((p) => p.name.first).sort();

  it('answers rules about people and groups again from a kept body, and anew after a change to them or to the rules', async () => {
    const s = await church();
    const choir = await addGroup(t, s.c.churchId, 'Choir');
    await addToGroup(t, s.c.churchId, choir, s.ann.id);
    const rules = { match: 'any', conditions: [{ provider: 'person', field: 'gender', operator: 'equals', value: 'Female' }, { provider: 'group', operator: 'in', entityId: choir }] };
    const id = (await save(s.staff, { name: 'Women or choir', rules })).json()[0].id as string;
    const first = await get(s.staff, id);
    expect(first.statusCode).toBe(200);
    expect(names(first)).toEqual(['Ann', 'Bea']);
    // whole records, as the people routes answer them
    const same = await call(t.app, 'GET', `/membership/people/ids?ids=${s.ann.id},${s.spouse.id}`, { token: s.staff });
    expect(first.json()).toEqual(same.json());
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await get(s.staff, id, { 'if-none-match': etag })).statusCode).toBe(304);

    await t.app.db.update(people).set({ gender: 'Female' }).where(eq(people.id, s.kid.id));
    const afterPerson = await get(s.staff, id, { 'if-none-match': etag });
    expect(afterPerson.statusCode).toBe(200);
    expect(names(afterPerson)).toEqual(['Ann', 'Bea', 'Kit']);
    await addToGroup(t, s.c.churchId, choir, s.bob.id);
    expect(names(await get(s.staff, id))).toEqual(['Ann', 'Bea', 'Bob', 'Kit']);
    await save(s.staff, { id, name: 'Bobs', rules: { match: 'all', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Bob' }] } });
    expect(names(await get(s.staff, id))).toEqual(['Bob']);
    // another church's list with the same rules finds its own people
    const other = await church();
    const theirs = (await save(other.staff, { name: 'Bobs', rules: { match: 'all', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Bob' }] } })).json()[0].id as string;
    expect((await get(other.staff, theirs)).json().map((p: { id: string }) => p.id)).toEqual([other.bob.id]);
    expect((await get(other.staff, id)).statusCode).toBe(404);
  });

  it('reads custom field values on every request (they are not under the data version)', async () => {
    const s = await church();
    const fieldId = randomUUID();
    await t.app.db.insert(personFields).values({ id: fieldId, churchId: s.c.churchId, name: 'Shirt size' });
    await t.app.db.insert(personFieldValues).values({ id: randomUUID(), churchId: s.c.churchId, personId: s.ann.id, fieldId, value: 'L' });
    const id = (await save(s.staff, { name: 'Large', rules: { match: 'all', conditions: [{ provider: 'field', operator: 'equals', value: 'l', entityId: fieldId }] } })).json()[0].id as string;
    expect(names(await get(s.staff, id))).toEqual(['Ann']);
    await t.app.db.insert(personFieldValues).values({ id: randomUUID(), churchId: s.c.churchId, personId: s.bob.id, fieldId, value: 'L' });
    expect(names(await get(s.staff, id))).toEqual(['Ann', 'Bob']);
  });
});

describe('the size of list rules (a preview must not tie up the database for every church)', () => {
  const cond = (value: string) => ({ provider: 'person', field: 'firstName', operator: 'equals', value });
  const many = (n: number) => Array.from({ length: n }, (_, i) => cond(`name${i}`));
  const preview = (token: string, rules: unknown, householdInclusion = 'none') => call(t.app, 'POST', '/membership/lists/preview', { token, body: { rules, householdInclusion } });
  const refTo = (id: string) => ({ provider: 'list', entityId: id });

  it('refuses a tree with too many conditions or groups, or nested too deep, naming it', async () => {
    const s = await church();
    const wide = await preview(s.staff, { match: 'any', groups: Array.from({ length: 4 }, () => ({ match: 'any', conditions: many(100) })) });
    expect(wide.statusCode).toBe(400);
    expect(wide.json().errors[0]).toMatchObject({ param: 'rules', location: 'body', msg: expect.stringMatching(/at most 300 conditions/) });
    const groups = await preview(s.staff, { match: 'any', groups: Array.from({ length: 20 }, () => ({ match: 'any', groups: Array.from({ length: 20 }, () => ({ match: 'all' })) })) });
    expect(groups.statusCode).toBe(400);
    expect(groups.json().errors[0]).toMatchObject({ param: 'rules', msg: expect.stringMatching(/at most 100 groups/) });
    let deep: Record<string, unknown> = { match: 'all', conditions: [cond('Ann')] };
    for (let i = 0; i < 6; i++) deep = { match: 'all', groups: [deep] };
    const nested = await preview(s.staff, deep);
    expect(nested.statusCode).toBe(400);
    expect(nested.json().errors[0]).toMatchObject({ param: 'rules.groups[0].groups[0].groups[0].groups[0].groups', msg: expect.stringMatching(/nested at most 5/) });
    const saved = await save(s.staff, [{ name: 'Huge', rules: { match: 'any', groups: Array.from({ length: 4 }, () => ({ match: 'any', conditions: many(100) })) } }]);
    expect(saved.statusCode).toBe(400);
    expect(saved.json().errors[0]).toMatchObject({ param: '[0].rules' });
    // within the bounds: 300 conditions in 5 levels are evaluated
    const fine = await preview(s.staff, { match: 'any', conditions: [cond('Ann')], groups: [{ match: 'any', conditions: many(99), groups: [{ match: 'any', conditions: many(100), groups: [{ match: 'any', conditions: many(100), groups: [{ match: 'any', groups: [] }] }] }] }] });
    expect(fine.statusCode).toBe(200);
    expect(fine.json().map((p: { name: { first: string } }) => p.name.first)).toEqual(['Ann']);
  });

  it('counts the conditions of the lists a tree refers to, at every reference, on preview, save and read', async () => {
    const s = await church();
    const l1 = (await save(s.staff, { name: 'L1', rules: { match: 'any', conditions: [cond('Ann'), ...many(99)] } })).json()[0].id as string;
    // 3 references to a list of 100 conditions are 303 conditions in all
    const three = await preview(s.staff, { match: 'any', conditions: [refTo(l1), refTo(l1), refTo(l1)] });
    expect(three.statusCode).toBe(400);
    expect(three.json().errors[0]).toMatchObject({ param: 'rules', msg: expect.stringMatching(/counting those of the lists they refer to/) });
    const two = await preview(s.staff, { match: 'any', conditions: [refTo(l1), refTo(l1)] });
    expect(two.statusCode).toBe(200);
    expect(two.json().map((p: { name: { first: string } }) => p.name.first)).toEqual(['Ann']);
    // a list of 100 references to L1 is refused when saved
    const l2 = await save(s.staff, { name: 'L2', rules: { match: 'any', conditions: Array.from({ length: 100 }, () => refTo(l1)) } });
    expect(l2.statusCode).toBe(400);
    expect(l2.json().errors[0]).toMatchObject({ param: '[0].rules' });
    expect(await t.app.db.$count(savedLists, eq(savedLists.name, 'L2'))).toBe(0);
    // and a list stored oversized (before these bounds) is refused when read, not evaluated
    const stored = randomUUID();
    await t.app.db.insert(savedLists).values({ id: stored, churchId: s.c.churchId, name: 'Old', rules: { match: 'any', conditions: Array.from({ length: 100 }, () => refTo(l1)) } });
    const read = await call(t.app, 'GET', `/membership/lists/${stored}/people`, { token: s.staff });
    expect(read.statusCode).toBe(400);
    expect(read.json().errors[0]).toMatchObject({ param: 'rules' });
  });

  it('refuses references that go round or too deep, and lists of another church', async () => {
    const s = await church();
    const a = (await save(s.staff, { name: 'A', rules: { match: 'all', conditions: [cond('Ann')] } })).json()[0].id as string;
    const b = (await save(s.staff, { name: 'B', rules: { match: 'all', conditions: [refTo(a)] } })).json()[0].id as string;
    expect(await peopleOf(s.staff, b)).toEqual(['Ann']);
    const cycle = await save(s.staff, { id: a, name: 'A', rules: { match: 'all', conditions: [refTo(b)] } });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().errors[0]).toMatchObject({ param: '[0].rules.conditions[0].conditions[0].entityId', msg: expect.stringMatching(/cannot refer to itself/) });
    const itself = await save(s.staff, { id: a, name: 'A', rules: { match: 'all', conditions: [refTo(a)] } });
    expect(itself.statusCode).toBe(400);
    expect(await peopleOf(s.staff, a)).toEqual(['Ann']);
    // a chain of references 4 deep
    const c = (await save(s.staff, { name: 'C', rules: { match: 'all', conditions: [refTo(b)] } })).json()[0].id as string;
    const d = (await save(s.staff, { name: 'D', rules: { match: 'all', conditions: [refTo(c)] } })).json()[0].id as string;
    const tooDeep = await preview(s.staff, { match: 'all', conditions: [refTo(d)] });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().errors[0].msg).toMatch(/at most 3 deep/);
    const other = await church();
    const theirs = await preview(other.staff, { match: 'all', conditions: [refTo(a)] });
    expect(theirs.statusCode).toBe(400);
    expect(theirs.json().errors[0]).toMatchObject({ param: 'rules.conditions[0].entityId', msg: 'no such list with rules' });
  });

  it('passes however many people another module names as one parameter', async () => {
    const s = await church();
    // more ids than a statement may carry as separate parameters (65,535)
    attended = [...Array.from({ length: 70_000 }, () => randomUUID()), s.ann.id];
    const res = await preview(s.staff, { match: 'all', conditions: [{ provider: 'attendance', field: 'attended' }] });
    attended = [];
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { name: { first: string } }) => p.name.first)).toEqual(['Ann']);
  });
});

describe('list providers', () => {
  const preview = (token: string, rules: unknown) => call(t.app, 'POST', '/membership/lists/preview', { token, body: { rules } });
  const firstNames = (res: { json: () => Array<{ name: { first: string } }> }) => res.json().map((p) => p.name.first).sort();

  it('finds people by a form answer about them', async () => {
    const s = await church();
    const formId = await addForm(t, s.c.churchId, { contentType: 'person' });
    const questionId = randomUUID();
    await t.app.db.insert(questions).values({ id: questionId, churchId: s.c.churchId, formId, title: 'Shirt size' });
    for (const [person, value] of [[s.ann.id, 'Large'], [s.bob.id, 'Small']] as const) {
      const sub = randomUUID();
      await t.app.db.insert(formSubmissions).values({ id: sub, churchId: s.c.churchId, formId, contentType: 'person', contentId: person });
      await t.app.db.insert(answers).values({ id: randomUUID(), churchId: s.c.churchId, formSubmissionId: sub, questionId, value });
    }
    const res = await preview(s.staff, { match: 'all', conditions: [{ provider: 'form', field: 'answer', operator: 'equals', value: 'large', entityId: questionId }] });
    expect(res.statusCode).toBe(200);
    expect(firstNames(res)).toEqual(['Ann']);
  });

  it("refuses another church's groups, custom fields and questions in rules, on preview and save", async () => {
    const s = await church();
    const other = await church();
    const choir = await addGroup(t, s.c.churchId, 'Choir');
    await addToGroup(t, s.c.churchId, choir, s.ann.id);
    const formId = await addForm(t, s.c.churchId, { contentType: 'person' });
    const questionId = randomUUID();
    await t.app.db.insert(questions).values({ id: questionId, churchId: s.c.churchId, formId, title: 'Size' });
    const field = await call(t.app, 'POST', '/membership/personfields', { token: s.staff, body: [{ name: 'Shirt' }] });
    expect(field.statusCode).toBe(200);
    const fieldId = field.json()[0].id as string;
    for (const condition of [
      { provider: 'group', operator: 'in', entityId: choir },
      { provider: 'group', operator: 'in', entityId: `${randomUUID()},${choir}` },
      { provider: 'form', operator: 'equals', value: 'large', entityId: questionId },
      { provider: 'field', operator: 'equals', value: 'x', entityId: fieldId },
    ]) {
      const res = await preview(other.staff, { match: 'any', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Ann' }, condition] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param: 'rules.conditions[1].entityId', location: 'body' });
      const saved = await save(other.staff, [{ name: 'Theirs', rules: { match: 'all', conditions: [condition] } }]);
      expect(saved.statusCode).toBe(400);
      expect(saved.json().errors[0]).toMatchObject({ param: '[0].rules.conditions[0].entityId' });
    }
    // the church's own group still finds its member
    const mine = await preview(s.staff, { match: 'all', conditions: [{ provider: 'group', operator: 'in', entityId: choir }] });
    expect(firstNames(mine)).toEqual(['Ann']);
  });

  it('refuses ids that are not UUIDs with a 400 naming the condition, before asking another module', async () => {
    const s = await church();
    const calls = internal.calls.length;
    for (const provider of ['giving', 'form', 'field', 'list']) {
      const res = await preview(s.staff, { match: 'all', conditions: [{ provider: 'person', field: 'firstName', operator: 'equals', value: 'Ann' }, { provider, operator: 'equals', value: 'x', entityId: 'not-a-fund' }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param: 'rules.conditions[1].entityId', location: 'body' });
    }
    const att = await preview(s.staff, { match: 'all', conditions: [{ provider: 'attendance', entityType: 'campus', entityId: '1 or 1=1' }] });
    expect(att.statusCode).toBe(400);
    expect(att.json().errors[0]).toMatchObject({ param: 'rules.conditions[0].entityId' });
    expect(internal.calls.length).toBe(calls);
    donors = [s.bob.id];
    const gave = await preview(s.staff, { match: 'all', conditions: [{ provider: 'giving', entityId: randomUUID() }] });
    donors = undefined;
    expect(firstNames(gave)).toEqual(['Bob']);
  });
});
