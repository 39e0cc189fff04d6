import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, expectGuarded, tokenFor } from '@church/common/testing';
import { households, people, personFieldValues, settings } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { joinAsGuest, registeredChurch } from '../identity-factories';
import { addPerson } from './fixtures';

const t = useMembership();

const save = (token: string, body: unknown) => call(t.app, 'POST', '/membership/people', { token, body });
const dbPerson = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0]!;

describe('a person as B1Admin edits them', () => {
  // B1Admin:src/people/PersonPage.tsx creates the notes conversation, stores its id on the person and reads it back.
  it('keeps and answers conversationId', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit', 'People.View']);
    const person = (await call(t.app, 'GET', `/membership/people/${c.personId}`, { token })).json();
    expect(person.conversationId).toBeNull();
    const conversationId = randomUUID();
    const [saved] = (await save(token, [{ ...person, conversationId }])).json();
    expect(saved.conversationId).toBe(conversationId);
    expect((await call(t.app, 'GET', `/membership/people/${c.personId}`, { token })).json().conversationId).toBe(conversationId);
    expect((await call(t.app, 'GET', '/membership/people', { token })).json().find((p: { id: string }) => p.id === c.personId).conversationId).toBe(conversationId);
    // People.Edit Self cannot point their own staff notes elsewhere.
    const self = tokenFor({ churchId: c.churchId, personId: c.personId, permissions: ['People.EditSelf'] });
    expect((await save(self, { id: c.personId, conversationId: randomUUID(), nickName: 'Pat' })).statusCode).toBe(200);
    expect((await dbPerson(c.personId)).conversationId).toBe(conversationId);
    expect((await save(token, { id: c.personId, conversationId: 'not-an-id' })).json().errors[0].param).toBe('conversationId');
  });

  // B1Admin:src/people/components/PersonEdit.tsx posts back the whole record it loaded, nulls, "" and all.
  it('takes back the whole record it answered, with the form’s empty values, and changes only what was edited', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit', 'People.View']);
    const p = await addPerson(t, c.churchId, { firstName: 'Rex', lastName: 'Round', birthDate: new Date('1990-04-05T00:00:00Z'), campusId: randomUUID(), email: 'rex@example.test' });
    const loaded = (await call(t.app, 'GET', `/membership/people/${p.id}`, { token })).json();
    expect(loaded.formSubmissions).toEqual([]);
    const edited = {
      ...loaded,
      name: { ...loaded.name, nick: 'Rexy' },
      contactInfo: { ...loaded.contactInfo, homePhone: null, workPhone: null, mobilePhone: '555-0100', email: '' },
      campusId: null,
      gender: '',
      householdRole: 'Head',
      optedOut: false,
    };
    const res = await save(token, [edited]);
    expect(res.statusCode).toBe(200);
    const [after] = res.json();
    expect(after).toMatchObject({
      id: p.id,
      name: { first: 'Rex', last: 'Round', nick: 'Rexy', display: 'Rexy Round' },
      contactInfo: { mobilePhone: '555-0100', email: null },
      birthDate: '1990-04-05T00:00:00.000Z',
      campusId: null,
      gender: null,
      membershipStatus: 'Member',
      householdId: loaded.householdId,
    });
    // The same record posted with `id: ""` is a new person (in a household of their own; no status: Guest).
    const [copy] = (await save(token, [{ ...loaded, id: '', householdId: '', membershipStatus: '' }])).json();
    expect(copy.id).not.toBe(p.id);
    expect(copy).toMatchObject({ name: { first: 'Rex', last: 'Round' }, membershipStatus: 'Guest' });
    expect(copy.householdId).not.toBe(loaded.householdId);
  });
});

describe('POST /membership/people/bulk-delete and bulk-update', () => {
  // B1Admin:src/people/PeoplePage.tsx reads deletedIds and count.
  it('deletes the selected people of the church (soft) and answers their ids', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit']);
    const [a, b, keep] = [await addPerson(t, c.churchId), await addPerson(t, c.churchId), await addPerson(t, c.churchId)];
    const res = await call(t.app, 'POST', '/membership/people/bulk-delete', { token, body: { personIds: [a.id, b.id, a.id.toUpperCase()] } });
    expect(res.statusCode).toBe(200);
    expect({ ...res.json(), deletedIds: res.json().deletedIds.sort() }).toEqual({ success: true, deletedIds: [a.id, b.id].sort(), count: 2, batchId: expect.any(String) });
    expect([(await dbPerson(a.id)).removed, (await dbPerson(b.id)).removed, (await dbPerson(keep.id)).removed]).toEqual([true, true, false]);
    // Anyone not a live person of the church: 404, nothing deleted.
    const other = await makeChurch(t);
    const foreign = await addPerson(t, other.churchId);
    const mixed = await call(t.app, 'POST', '/membership/people/bulk-delete', { token, body: { personIds: [keep.id, foreign.id] } });
    expect([mixed.statusCode, mixed.json()]).toEqual([404, { errors: ['1 of the people were not found'] }]);
    expect((await dbPerson(keep.id)).removed).toBe(false);
    expect((await dbPerson(foreign.id)).removed).toBe(false);
    expect((await call(t.app, 'POST', '/membership/people/bulk-delete', { token, body: { personIds: [a.id] } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/people/bulk-delete', { token, body: { personIds: [] } })).json().errors[0].param).toBe('personIds');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/people/bulk-delete', body: { personIds: [keep.id] }, permission: 'People.Edit' }, c.churchId);
  });

  // B1Admin:src/people/components/bulk/BulkFieldDialog.tsx posts {personIds, updates: {<field>: value}}.
  it('sets one field on the selected people, validated as a person save validates it', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit']);
    const [a, b] = [await addPerson(t, c.churchId, { membershipStatus: 'Guest' }), await addPerson(t, c.churchId, { membershipStatus: 'Visitor' })];
    const campusId = randomUUID();
    for (const updates of [{ membershipStatus: 'Member' }, { optedOut: true }, { campusId }, { gender: 'Female' }, { maritalStatus: 'Single' }]) {
      const res = await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [a.id, b.id], updates } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, updatedIds: expect.arrayContaining([a.id, b.id]), count: 2, batchId: expect.any(String) });
    }
    for (const id of [a.id, b.id]) {
      expect(await dbPerson(id)).toMatchObject({ membershipStatus: 'Member', optedOut: true, campusId, gender: 'Female', maritalStatus: 'Single', displayName: 'Jane Doe' });
    }
    // "" is the campus picker's "Unassigned".
    await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [a.id], updates: { campusId: '' } } });
    expect((await dbPerson(a.id)).campusId).toBeNull();
    const bad = async (updates: unknown) => (await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [a.id], updates } })).json().errors[0].param;
    expect(await bad({})).toBe('updates');
    expect(await bad({ firstName: 'X' })).toBe('updates.firstName');
    expect(await bad({ campusId: 'nope' })).toBe('updates.campusId');
    expect(await bad({ optedOut: 'maybe' })).toBe('updates.optedOut');
    const foreign = await addPerson(t, (await makeChurch(t)).churchId);
    expect((await call(t.app, 'POST', '/membership/people/bulk-update', { token, body: { personIds: [foreign.id], updates: { gender: 'Male' } } })).statusCode).toBe(404);
    expect((await dbPerson(foreign.id)).gender).toBeNull();
    await expectGuarded(t.app, { method: 'POST', url: '/membership/people/bulk-update', body: { personIds: [a.id], updates: { gender: 'Male' } }, permission: 'People.Edit' }, c.churchId);
  });
});

describe('POST /membership/people/guest-register', () => {
  // B1App:src/components/checkin/GuestRegister.tsx posts {churchId, members:[{firstName, lastName, email?, phone?}]}.
  it('registers a household of guests when the church has switched it on', async () => {
    const c = await makeChurch(t);
    const body = {
      churchId: c.churchId,
      members: [
        { firstName: 'Gus', lastName: 'Guest', email: 'Gus@Example.test', phone: '555-0199' },
        { firstName: 'Gail', lastName: 'Guest' },
      ],
    };
    const off = await call(t.app, 'POST', '/membership/people/guest-register', { body });
    expect([off.statusCode, off.json()]).toEqual([403, { errors: ['This church does not take guest registrations'] }]);
    await t.app.db.insert(settings).values({ id: randomUUID(), churchId: c.churchId, keyName: 'enableQRGuestRegistration', value: 'true', public: true });
    const res = await call(t.app, 'POST', '/membership/people/guest-register', { body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      householdId: expect.any(String),
      people: [
        { id: expect.any(String), name: { first: 'Gus', last: 'Guest' } },
        { id: expect.any(String), name: { first: 'Gail', last: 'Guest' } },
      ],
    });
    const [gus, gail] = await Promise.all(res.json().people.map((p: { id: string }) => dbPerson(p.id)));
    expect(gus).toMatchObject({ churchId: c.churchId, membershipStatus: 'Guest', householdRole: 'Head', email: 'gus@example.test', mobilePhone: '555-0199', displayName: 'Gus Guest', householdId: res.json().householdId });
    expect(gail).toMatchObject({ householdRole: 'Other', email: null, householdId: res.json().householdId });
    expect((await t.app.db.select().from(households).where(eq(households.id, res.json().householdId)))[0]!.name).toBe('Guest');

    const invalid = async (b: unknown) => (await call(t.app, 'POST', '/membership/people/guest-register', { body: b })).json().errors[0].param;
    expect(await invalid({ churchId: c.churchId, members: [] })).toBe('members');
    expect(await invalid({ churchId: c.churchId, members: [{ firstName: 'No' }] })).toBe('members[0].lastName');
    expect(await invalid({ churchId: c.churchId, members: Array.from({ length: 11 }, () => ({ firstName: 'A', lastName: 'B' })) })).toBe('members');
    expect(await invalid({ churchId: c.churchId, members: [{ firstName: 'A', lastName: 'B', email: 'nope' }] })).toBe('members[0].email');
    expect((await call(t.app, 'POST', '/membership/people/guest-register', { body: { ...body, churchId: randomUUID() } })).statusCode).toBe(404);
  });
});

describe('GET /membership/userchurch/personid/:personId', () => {
  // B1Admin:src/people/components/PersonView.tsx reads `data?.email` and shows nothing for a person without a login.
  it('answers {} for a person of the church without a login, and 404 for a person the church does not have', async () => {
    const a = await registeredChurch(t);
    const p = await addPerson(t, a.church.id);
    const res = await call(t.app, 'GET', `/membership/userchurch/personid/${p.id}`, { token: a.token });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${randomUUID()}`, { token: a.token })).statusCode).toBe(404);
    const b = await registeredChurch(t);
    expect((await call(t.app, 'GET', `/membership/userchurch/personid/${p.id}`, { token: b.token })).statusCode).toBe(404);
  });
});

describe('person fields and their values', () => {
  // B1Admin:src/settings/components/CustomFieldEdit.tsx saves {id?, name, fieldType, choices (JSON text)};
  // PersonEdit.tsx and PersonView.tsx list them and read and save a person's values.
  it('saves, lists and deletes the church’s fields, and a person’s values of them', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit', 'People.View']);
    const choices = JSON.stringify([{ value: 'S', text: 'Small' }, { value: 'L', text: 'Large' }]);
    const [shirt] = (await call(t.app, 'POST', '/membership/personfields', { token, body: [{ id: '', name: 'Shirt size', fieldType: 'Multiple Choice', choices }] })).json();
    expect(shirt).toEqual({ id: expect.any(String), churchId: c.churchId, name: 'Shirt size', fieldType: 'Multiple Choice', choices, sort: 1 });
    const [allergy] = (await call(t.app, 'POST', '/membership/personfields', { token, body: { name: 'Allergies', choices: null } })).json();
    expect(allergy).toMatchObject({ fieldType: 'Textbox', choices: null, sort: 2 });
    expect((await call(t.app, 'GET', '/membership/personfields', { token })).json().map((f: { name: string }) => f.name)).toEqual(['Shirt size', 'Allergies']);
    // Saved as another type, a field loses its choices.
    const [renamed] = (await call(t.app, 'POST', '/membership/personfields', { token, body: [{ ...shirt, name: 'Shirt', fieldType: 'Textbox' }] })).json();
    expect(renamed).toMatchObject({ id: shirt.id, name: 'Shirt', choices: null, sort: 1 });
    const bad = async (body: unknown) => (await call(t.app, 'POST', '/membership/personfields', { token, body })).json().errors[0].param;
    expect(await bad({ name: 'X', fieldType: 'Colour' })).toBe('fieldType');
    expect(await bad({ name: 'X', fieldType: 'Multiple Choice' })).toBe('choices');
    expect(await bad({ name: 'X', fieldType: 'Multiple Choice', choices: 'S,L' })).toBe('choices');
    expect(await bad({ name: '' })).toBe('name');

    const p = await addPerson(t, c.churchId);
    // PersonEdit posts every field, "" for an empty one.
    const values = await call(t.app, 'POST', '/membership/personfieldvalues', { token, body: [{ personId: p.id, fieldId: shirt.id, value: 'L' }, { personId: p.id, fieldId: allergy.id, value: '' }] });
    expect(values.json()).toEqual([{ id: expect.any(String), churchId: c.churchId, personId: p.id, fieldId: shirt.id, value: 'L' }]);
    await call(t.app, 'POST', '/membership/personfieldvalues', { token, body: [{ personId: p.id, fieldId: shirt.id, value: 'S' }, { personId: p.id, fieldId: allergy.id, value: 'Nuts' }] });
    const read = (await call(t.app, 'GET', `/membership/personfieldvalues/person/${p.id}`, { token })).json();
    expect(read.map((v: { fieldId: string; value: string }) => [v.fieldId, v.value])).toEqual([[shirt.id, 'S'], [allergy.id, 'Nuts']]);
    await call(t.app, 'POST', '/membership/personfieldvalues', { token, body: { personId: p.id, fieldId: allergy.id, value: null } });
    expect((await call(t.app, 'GET', `/membership/personfieldvalues/person/${p.id}`, { token })).json()).toHaveLength(1);

    // Deleting a field deletes its values.
    expect((await call(t.app, 'DELETE', `/membership/personfields/${shirt.id}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(personFieldValues).where(eq(personFieldValues.fieldId, shirt.id))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/membership/personfields/${shirt.id}`, { token })).statusCode).toBe(404);
  });

  it('keeps fields and values to the church, and to People.View/Edit or one’s own record', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const [field] = (await call(t.app, 'POST', '/membership/personfields', { token: c.token(['People.Edit']), body: { name: 'Tee' } })).json();
    const p = await addPerson(t, c.churchId);
    const foreignPerson = await addPerson(t, other.churchId);
    const otherToken = other.token(['People.Edit', 'People.View']);
    expect((await call(t.app, 'GET', '/membership/personfields', { token: otherToken })).json()).toEqual([]);
    expect((await call(t.app, 'POST', '/membership/personfields', { token: otherToken, body: { ...field, name: 'Mine now' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/personfields/${field.id}`, { token: otherToken })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/personfieldvalues', { token: otherToken, body: { personId: foreignPerson.id, fieldId: field.id, value: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/personfieldvalues', { token: c.token(['People.Edit']), body: { personId: foreignPerson.id, fieldId: field.id, value: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/personfieldvalues/person/${p.id}`, { token: otherToken })).statusCode).toBe(404);
    expect(await t.app.db.select().from(personFieldValues).where(and(eq(personFieldValues.churchId, other.churchId)))).toEqual([]);

    await expectGuarded(t.app, { method: 'GET', url: '/membership/personfields', permission: 'People.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/personfields', body: { name: 'X' }, permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/personfields/${field.id}`, permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/personfieldvalues', body: { personId: p.id, fieldId: field.id, value: 'x' }, permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/personfieldvalues/person/${p.id}`, permission: 'People.View' }, c.churchId);
    // A person reads their own values.
    const own = await joinAsGuest(t, (await registeredChurch(t)).church.id);
    const ownPerson = own.login.person.id;
    expect((await call(t.app, 'GET', `/membership/personfieldvalues/person/${ownPerson}`, { token: own.token })).json()).toEqual([]);
  });
});

describe('GET /membership/people/list and /people/demographics', () => {
  // B1Admin:src/people/PeoplePage.tsx loads /people/list?pageSize=N first, then /people/list.
  it('answers the people list, or its first page by name, in the viewer’s scope', async () => {
    const c = await makeChurch(t);
    for (const [firstName, lastName, membershipStatus] of [['Al', 'Zed', 'Member'], ['Bo', 'Adams', 'Guest'], ['Cy', 'Moss', 'Staff']]) {
      await addPerson(t, c.churchId, { firstName, lastName, membershipStatus });
    }
    const staff = c.token(['People.View']);
    const all = await call(t.app, 'GET', '/membership/people/list', { token: staff });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual((await call(t.app, 'GET', '/membership/people', { token: staff })).json());
    expect(all.json().map((p: { name: { last: string } }) => p.name.last)).toEqual(['Adams', 'Admin', 'Moss', 'Zed']);
    const page = await call(t.app, 'GET', '/membership/people/list?pageSize=2', { token: staff });
    expect(page.json()).toEqual(all.json().slice(0, 2));
    // A member-level viewer sees members and staff only.
    const member = tokenFor({ churchId: c.churchId, personId: c.personId, permissions: ['People.ViewMembers'] });
    expect((await call(t.app, 'GET', '/membership/people/list?pageSize=10', { token: member })).json().map((p: { name: { last: string } }) => p.name.last)).toEqual(['Admin', 'Moss', 'Zed']);
    expect((await call(t.app, 'GET', '/membership/people/list?pageSize=x', { token: staff })).json().errors[0].param).toBe('pageSize');
    await expectGuarded(t.app, { method: 'GET', url: '/membership/people/list', permission: 'People.View' }, c.churchId);
  });

  // B1Admin:src/people/demographics/DemographicsPage.tsx reads total, ageGroups, membershipStatus, gender,
  // maritalStatus and campus.
  it('counts the church’s live people by gender, status, marital status, campus and age group', async () => {
    const c = await makeChurch(t);
    const year = new Date().getUTCFullYear();
    const campusId = randomUUID();
    await addPerson(t, c.churchId, { gender: 'Female', maritalStatus: 'Married', campusId, birthDate: new Date(Date.UTC(year - 40, 0, 1)) });
    await addPerson(t, c.churchId, { gender: 'Male', membershipStatus: 'Guest', campusId, birthDate: new Date(Date.UTC(year - 2, 0, 1)) });
    await addPerson(t, c.churchId, { gender: ' ', removed: false });
    await addPerson(t, c.churchId, { gender: 'Male', removed: true });
    const res = await call(t.app, 'GET', '/membership/people/demographics', { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    // the church's own person (Pat Admin) counts too
    expect(body).toEqual({
      total: 4,
      ageGroups: expect.any(Array),
      membershipStatus: [
        { name: 'Member', count: 2 },
        { name: 'Guest', count: 1 },
        { name: 'Staff', count: 1 },
      ],
      gender: [
        { name: 'Unassigned', count: 2 },
        { name: 'Female', count: 1 },
        { name: 'Male', count: 1 },
      ],
      maritalStatus: [
        { name: 'Unassigned', count: 3 },
        { name: 'Married', count: 1 },
      ],
      campus: [
        { name: campusId, id: campusId, count: 2 },
        { name: 'Unassigned', id: '', count: 2 },
      ],
    });
    expect(body.ageGroups).toEqual([
      { group: '0-3', female: 0, male: 1, unassigned: 0 },
      { group: '4-11', female: 0, male: 0, unassigned: 0 },
      { group: '12-18', female: 0, male: 0, unassigned: 0 },
      { group: '19-25', female: 0, male: 0, unassigned: 0 },
      { group: '26-35', female: 0, male: 0, unassigned: 0 },
      { group: '36-50', female: 1, male: 0, unassigned: 0 },
      { group: '51-64', female: 0, male: 0, unassigned: 0 },
      { group: '65+', female: 0, male: 0, unassigned: 0 },
    ]);
    expect((await call(t.app, 'GET', '/membership/people/demographics', { token: (await makeChurch(t)).token(['People.View']) })).json().total).toBe(1);
    // kept until the church's people change
    const again = await call(t.app, 'GET', '/membership/people/demographics', { token: c.token(['People.View']), headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    await addPerson(t, c.churchId, { gender: 'Female' });
    const after = (await call(t.app, 'GET', '/membership/people/demographics', { token: c.token(['People.View']) })).json();
    expect(after.total).toBe(5);
    expect(after.gender).toEqual([
      { name: 'Female', count: 2 },
      { name: 'Unassigned', count: 2 },
      { name: 'Male', count: 1 },
    ]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/people/demographics', permission: 'People.View' }, c.churchId);
  });
});
