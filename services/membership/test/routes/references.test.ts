import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { membershipInternal, personFieldChange } from '@church/common';
import { call, fakeInternal } from '@church/common/testing';
import { formSubmissions, people, questions } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { registeredChurch } from '../identity-factories';
import { addForm, addGroup, addPerson, signedCall } from './fixtures';

// Issue 41: every id a body carries names a record of the caller's church. Attendance answers which campuses are
// a church's through its reference check (`POST /attendance/internal/owned`), faked here with each church's campuses.
const campuses = new Map<string, Set<string>>();
const campusOf = (churchId: string) => {
  const id = randomUUID();
  campuses.set(churchId, (campuses.get(churchId) ?? new Set()).add(id));
  return id;
};
const internal = fakeInternal({
  'POST /attendance/internal/owned': (body: { churchId: string; kind: string; ids: string[] }) => ({
    ids: body.kind === 'campuses' ? body.ids.filter((id) => campuses.get(body.churchId)?.has(id)) : [],
  }),
});

const t = useMembership({ overrides: { internal } });

const campusAsked = () => internal.calls.filter((c) => c.path === '/attendance/internal/owned').length;
const personRow = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0]!;
const notFromThisChurch = (param: string, field = param.replace(/^.*\./, '')) => ({ errors: [{ msg: `${field} is not a record of this church`, param, location: 'body' }] });

describe("a person's campus is a campus of the caller's church", () => {
  it('POST /people: refuses another church’s campus by name, writes nothing, and saves the church’s own', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = campusOf(other.churchId);
    const ours = campusOf(c.churchId);
    const token = c.token(['People.Edit']);
    const before = (await t.app.db.select({ id: people.id }).from(people).where(eq(people.churchId, c.churchId))).length;

    const refused = await call(t.app, 'POST', '/membership/people', { token, body: [{ firstName: 'Ann', campusId: ours }, { firstName: 'Bob', campusId: theirs }] });
    expect([refused.statusCode, refused.json()]).toEqual([400, notFromThisChurch('[1].campusId')]);
    expect((await t.app.db.select({ id: people.id }).from(people).where(eq(people.churchId, c.churchId))).length).toBe(before);
    const single = await call(t.app, 'POST', '/membership/people', { token, body: { firstName: 'Bob', campusId: theirs } });
    expect([single.statusCode, single.json()]).toEqual([400, notFromThisChurch('campusId')]);
    // an update too
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann' });
    const moved = await call(t.app, 'POST', '/membership/people', { token, body: [{ id: ann.id, campusId: theirs }] });
    expect([moved.statusCode, moved.json()]).toEqual([400, notFromThisChurch('[0].campusId')]);
    expect((await personRow(ann.id)).campusId).toBeNull();

    const saved = await call(t.app, 'POST', '/membership/people', { token, body: [{ id: ann.id, campusId: ours }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()[0]).toMatchObject({ id: ann.id, campusId: ours });
    expect((await personRow(ann.id)).campusId).toBe(ours);
  });

  it('POST /people: a record posted back as loaded keeps its campus without asking again; a household of another church is refused', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    // a campus the person was given before attendance removed it (attendance no longer counts it as the church's)
    const gone = randomUUID();
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', campusId: gone });
    const asked = campusAsked();
    const again = await call(t.app, 'POST', '/membership/people', { token: c.token(['People.Edit']), body: [{ id: ann.id, campusId: gone, nickName: 'Annie' }] });
    expect(again.statusCode).toBe(200);
    expect((await personRow(ann.id)).nickName).toBe('Annie');
    expect(campusAsked()).toBe(asked);

    const foreign = await addPerson(t, other.churchId);
    const bad = await call(t.app, 'POST', '/membership/people', { token: c.token(['People.Edit']), body: [{ id: ann.id, householdId: foreign.householdId }] });
    expect([bad.statusCode, bad.json()]).toEqual([400, notFromThisChurch('[0].householdId')]);
    expect((await personRow(ann.id)).householdId).toBe(ann.householdId);
  });

  it('POST /people/bulk-update: refuses another church’s campus under updates.campusId, changes no one', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const ann = await addPerson(t, c.churchId);
    const token = c.token(['People.Edit']);
    const refused = await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [ann.id], updates: { campusId: campusOf(other.churchId) } } });
    expect([refused.statusCode, refused.json()]).toEqual([400, notFromThisChurch('updates.campusId')]);
    expect((await personRow(ann.id)).campusId).toBeNull();
    const ours = campusOf(c.churchId);
    const done = await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [ann.id], updates: { campusId: ours } } });
    expect(done.statusCode).toBe(200);
    expect((await personRow(ann.id)).campusId).toBe(ours);
  });

  it('updatePerson (internal): refuses another church’s campus under changes.campusId', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const ann = await addPerson(t, c.churchId);
    const refused = await signedCall(t, membershipInternal.updatePerson.path, { churchId: c.churchId, personId: ann.id, changes: { campusId: campusOf(other.churchId) } });
    expect([refused.statusCode, refused.json()]).toEqual([400, notFromThisChurch('changes.campusId', 'campusId')]);
    expect((await personRow(ann.id)).campusId).toBeNull();
    const ours = campusOf(c.churchId);
    expect((await signedCall(t, membershipInternal.updatePerson.path, { churchId: c.churchId, personId: ann.id, changes: { campusId: ours } })).statusCode).toBe(200);
    expect((await personRow(ann.id)).campusId).toBe(ours);
  });

  it('membership.personFieldChange: another church’s campus is refused on the card, the church’s own is set', async () => {
    const a = await registeredChurch(t);
    const other = await makeChurch(t);
    const ann = await addPerson(t, a.church.id);
    const noteOf = async (cardId: string) =>
      t.deps.queue.handedOff.filter((j) => j.name === 'doing.cardNote' && (j.data as { cardId: string }).cardId === cardId).map((j) => (j.data as { note: string }).note);
    const change = async (value: string) => {
      const cardId = randomUUID();
      await t.deps.queue.enqueue(personFieldChange, { churchId: a.church.id, personId: ann.id, field: 'campusId', value, configuredBy: { userId: a.user.id }, cardId });
      await t.drain();
      return noteOf(cardId);
    };
    expect(await change(campusOf(other.churchId))).toEqual(['Field change refused: campusId is not a record of this church']);
    expect((await personRow(ann.id)).campusId).toBeNull();
    const ours = campusOf(a.church.id);
    expect(await change(ours)).toEqual(['Set campusId']);
    expect((await personRow(ann.id)).campusId).toBe(ours);
  });
});

describe('references of the forms area', () => {
  it('POST /questions: a sub-question’s parent is a question of the church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const formId = await addForm(t, c.churchId);
    const theirForm = await addForm(t, other.churchId);
    const theirs = randomUUID();
    await t.app.db.insert(questions).values({ id: theirs, churchId: other.churchId, formId: theirForm, title: 'Theirs' });
    const token = c.token(['Forms.Admin']);
    const refused = await call(t.app, 'POST', '/membership/questions', { token, body: [{ formId, title: 'Child', parentId: theirs }] });
    expect([refused.statusCode, refused.json()]).toEqual([400, notFromThisChurch('[0].parentId')]);
    expect(await t.app.db.select().from(questions).where(eq(questions.formId, formId))).toEqual([]);
    const [parent] = (await call(t.app, 'POST', '/membership/questions', { token, body: [{ formId, title: 'Parent' }] })).json();
    const child = await call(t.app, 'POST', '/membership/questions', { token, body: [{ formId, title: 'Child', parentId: parent.id }] });
    expect(child.json()[0]).toMatchObject({ parentId: parent.id });
  });

  it('POST /formsubmissions: a submission about a group or a form names one of the form’s church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const formId = await addForm(t, c.churchId, { contentType: 'group' });
    const token = c.token(['Forms.Edit']);
    const submit = (contentType: string, contentId: string) => call(t.app, 'POST', '/membership/formsubmissions', { token, body: [{ formId, contentType, contentId, answers: [] }] });
    const group = await submit('group', await addGroup(t, other.churchId, 'Theirs'));
    expect([group.statusCode, group.json()]).toEqual([400, notFromThisChurch('[0].contentId')]);
    const form = await submit('form', await addForm(t, other.churchId));
    expect([form.statusCode, form.json()]).toEqual([400, notFromThisChurch('[0].contentId')]);
    expect(await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.formId, formId))).toEqual([]);
    const ours = await addGroup(t, c.churchId, 'Ours');
    const saved = await submit('group', ours);
    expect(saved.statusCode).toBe(200);
    expect(saved.json()[0]).toMatchObject({ churchId: c.churchId, contentType: 'group', contentId: ours });
  });
});

describe('POST /membership/internal/owned (other modules ask which ids are a church\'s)', () => {
  it("answers only the church's own records of a kind, an unknown kind is 400; unsigned is 401", async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    const group = await addGroup(t, mine, 'Choir');
    const theirGroup = await addGroup(t, theirs, 'Band');
    const person = (await addPerson(t, mine)).id;
    const url = '/membership/internal/owned';
    const groupsAsked = await signedCall(t, url, { churchId: mine, kind: 'groups', ids: [group, theirGroup, randomUUID(), person] });
    expect([groupsAsked.statusCode, groupsAsked.json()]).toEqual([200, { ids: [group] }]);
    const peopleAsked = await signedCall(t, url, { churchId: mine, kind: 'people', ids: [person, group] });
    expect(peopleAsked.json()).toEqual({ ids: [person] });
    const unknown = await signedCall(t, url, { churchId: mine, kind: 'apiKeys', ids: [group] });
    expect([unknown.statusCode, unknown.json().errors[0]]).toEqual([400, { msg: 'apiKeys is not a kind membership owns', param: 'kind', location: 'body' }]);
    const unsigned = await t.app.inject({ method: 'POST', url, payload: { churchId: mine, kind: 'groups', ids: [group] } });
    expect(unsigned.statusCode).toBe(401);
  });
});
