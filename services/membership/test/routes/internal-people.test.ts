import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { membershipInternal } from '@church/common';
import { groupMembers, people } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addGroup, addPerson, addToGroup, signedCall } from './fixtures';

const t = useMembership();

const post = (url: string, body: unknown) => signedCall(t, url, body);
const dbPerson = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0]!;
// the smallest valid PNG (1x1, transparent)
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe('membership internal routes', () => {
  it('refuse unsigned, badly signed and token-bearing calls', async () => {
    const c = await makeChurch(t);
    for (const route of Object.values(membershipInternal)) {
      const body = { churchId: c.churchId };
      expect((await call(t.app, 'POST', route.path, { body })).statusCode).toBe(401);
      expect((await call(t.app, 'POST', route.path, { body, token: c.token('all') })).statusCode).toBe(401);
      expect((await signedCall(t, route.path, body, 'another-secret-another-secret-another')).statusCode).toBe(401);
    }
  });

  it('version: the same while nothing changes, a new one after a change to the church\'s people, not another church\'s', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const version = async (churchId: string) => {
      const res = await post(membershipInternal.version.path, { churchId });
      expect(res.statusCode).toBe(200);
      return res.json().version as string;
    };
    const first = await version(c.churchId);
    expect(await version(c.churchId)).toBe(first);
    await addPerson(t, other.churchId, { firstName: 'Sam', lastName: 'Else' });
    expect(await version(c.churchId)).toBe(first);
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able' });
    const second = await version(c.churchId);
    expect(second).not.toBe(first);
    await t.app.db.update(people).set({ householdId: randomUUID() }).where(eq(people.id, ann.id));
    expect(await version(c.churchId)).not.toBe(second);
    expect((await post(membershipInternal.version.path, { churchId: 'x' })).statusCode).toBe(400);
  });

  it('church: name and subdomain; unknown church → 404; bad id → 400', async () => {
    const c = await makeChurch(t, 'Grace Chapel');
    const res = await post(membershipInternal.church.path, { churchId: c.churchId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: c.churchId, name: 'Grace Chapel', subDomain: `c${c.churchId.slice(0, 8)}` });
    expect((await post(membershipInternal.church.path, { churchId: randomUUID() })).statusCode).toBe(404);
    const bad = await post(membershipInternal.church.path, { churchId: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('churchId');
  });

  it('contacts: by ids and by group, removed people and other churches left out', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able', email: 'ann@example.org', mobilePhone: '555-0101', optedOut: true });
    const bob = await addPerson(t, c.churchId, { firstName: 'Bob', lastName: 'Baker' });
    const gone = await addPerson(t, c.churchId, { firstName: 'Gone', lastName: 'Away', removed: true });
    const stranger = await addPerson(t, other.churchId, { firstName: 'Sam', lastName: 'Else' });
    const group = await addGroup(t, c.churchId, 'Choir');
    await addToGroup(t, c.churchId, group, ann.id);
    await addToGroup(t, c.churchId, group, gone.id);
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: group, personId: bob.id, leader: true });

    const byIds = await post(membershipInternal.contacts.path, { churchId: c.churchId, ids: [bob.id, ann.id, gone.id, stranger.id, ann.id] });
    expect(byIds.statusCode).toBe(200);
    expect(byIds.json()).toEqual([
      { id: ann.id, firstName: 'Ann', lastName: 'Able', displayName: 'Ann Able', email: 'ann@example.org', mobilePhone: '555-0101', optedOut: true, leader: false },
      { id: bob.id, firstName: 'Bob', lastName: 'Baker', displayName: 'Bob Baker', email: null, mobilePhone: null, optedOut: false, leader: false },
    ]);
    const byGroup = (await post(membershipInternal.contacts.path, { churchId: c.churchId, groupId: group })).json();
    expect(byGroup.map((p: { id: string; leader: boolean }) => [p.id, p.leader])).toEqual([
      [ann.id, false],
      [bob.id, true],
    ]);
    const both = (await post(membershipInternal.contacts.path, { churchId: c.churchId, groupId: group, ids: [bob.id] })).json();
    expect(both.map((p: { id: string }) => p.id)).toEqual([bob.id]);
    // another church's group answers nobody
    expect((await post(membershipInternal.contacts.path, { churchId: other.churchId, groupId: group })).json()).toEqual([]);
    const none = await post(membershipInternal.contacts.path, { churchId: c.churchId });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].param).toBe('ids');
    expect((await post(membershipInternal.contacts.path, { churchId: c.churchId, ids: ['nope'] })).json().errors[0].param).toBe('ids[0]');
  });

  it('peopleFacts: every live person with groups and leader groups', async () => {
    const c = await makeChurch(t);
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able', birthDate: new Date('1980-02-03'), gender: 'Female', maritalStatus: 'Married', anniversary: new Date('2005-06-07') });
    await addPerson(t, c.churchId, { firstName: 'Gone', lastName: 'Away', removed: true });
    const g1 = await addGroup(t, c.churchId, 'One');
    const g2 = await addGroup(t, c.churchId, 'Two');
    const dead = await addGroup(t, c.churchId, 'Dead', { removed: true });
    await addToGroup(t, c.churchId, g1, ann.id);
    await addToGroup(t, c.churchId, dead, ann.id);
    await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId: c.churchId, groupId: g2, personId: ann.id, leader: true });

    const all = await post(membershipInternal.peopleFacts.path, { churchId: c.churchId });
    expect(all.statusCode).toBe(200);
    const facts = all.json();
    expect(facts.map((p: { firstName: string }) => p.firstName)).toEqual(['Ann', 'Pat']);
    expect(facts[0]).toEqual({
      id: ann.id,
      firstName: 'Ann',
      lastName: 'Able',
      displayName: 'Ann Able',
      email: null,
      mobilePhone: null,
      optedOut: false,
      birthDate: '1980-02-03',
      anniversary: '2005-06-07',
      gender: 'Female',
      maritalStatus: 'Married',
      membershipStatus: 'Member',
      campusId: null,
      householdId: ann.householdId,
      groupIds: [g1, g2].sort(),
      leaderGroupIds: [g2],
    });
    const some = (await post(membershipInternal.peopleFacts.path, { churchId: c.churchId, ids: [c.personId] })).json();
    expect(some).toHaveLength(1);
    expect(some[0]).toMatchObject({ id: c.personId, groupIds: [], leaderGroupIds: [] });
  });

  it('updatePerson: saved as POST /people saves, display name recomputed, photo stored', async () => {
    const c = await makeChurch(t);
    const ann = await addPerson(t, c.churchId, { firstName: 'Ann', lastName: 'Able' });
    const photo = `data:image/png;base64,${PNG.toString('base64')}`;
    const res = await post(membershipInternal.updatePerson.path, { churchId: c.churchId, personId: ann.id, changes: { nickName: 'Annie', lastName: 'Adams', mobilePhone: '555 0102', photo } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: ann.id });
    const row = await dbPerson(ann.id);
    expect(row).toMatchObject({ firstName: 'Ann', lastName: 'Adams', nickName: 'Annie', displayName: 'Annie Adams', mobilePhone: '555 0102' });
    expect(row.photo).toBe(`http://localhost:8080/files/${c.churchId}/people/${ann.id}.png`);
    expect(readFileSync(path.join(t.config.DATA_DIR, 'files', c.churchId, 'people', `${ann.id}.png`))).toEqual(PNG);

    const bad = await post(membershipInternal.updatePerson.path, { churchId: c.churchId, personId: ann.id, changes: { birthDate: 'soon' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('changes.birthDate');
    const html = await post(membershipInternal.updatePerson.path, { churchId: c.churchId, personId: ann.id, changes: { photo: 'data:text/html;base64,PGI+aGk8L2I+' } });
    expect(html.statusCode).toBe(400);
    expect(html.json().errors[0].param).toBe('changes.photo');
    // another church's person, or a removed one: 404, nothing written
    const other = await makeChurch(t);
    expect((await post(membershipInternal.updatePerson.path, { churchId: other.churchId, personId: ann.id, changes: { firstName: 'X' } })).statusCode).toBe(404);
    const gone = await addPerson(t, c.churchId, { removed: true });
    expect((await post(membershipInternal.updatePerson.path, { churchId: c.churchId, personId: gone.id, changes: { firstName: 'X' } })).statusCode).toBe(404);
    expect((await dbPerson(ann.id)).firstName).toBe('Ann');
  });

  it('optOut: matches mobile numbers by their digits, with or without the country code 1', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const plain = await addPerson(t, c.churchId, { firstName: 'A', mobilePhone: '555-010-0000' });
    const full = await addPerson(t, c.churchId, { firstName: 'B', mobilePhone: '+1 (555) 010-0000' });
    const home = await addPerson(t, c.churchId, { firstName: 'C', homePhone: '5550100000' });
    const gone = await addPerson(t, c.churchId, { firstName: 'D', mobilePhone: '5550100000', removed: true });
    const elsewhere = await addPerson(t, other.churchId, { firstName: 'E', mobilePhone: '5550100000' });
    const longer = await addPerson(t, c.churchId, { firstName: 'F', mobilePhone: '25550100000' });

    const stop = await post(membershipInternal.optOut.path, { churchId: c.churchId, phone: '+15550100000', optedOut: true });
    expect(stop.statusCode).toBe(200);
    expect(stop.json()).toEqual({ personIds: [plain.id, full.id].sort() });
    for (const p of [plain, full]) expect((await dbPerson(p.id)).optedOut).toBe(true);
    for (const p of [home, gone, elsewhere, longer]) expect((await dbPerson(p.id)).optedOut).toBe(false);

    const start = await post(membershipInternal.optOut.path, { churchId: c.churchId, phone: '(555) 010-0000', optedOut: false });
    expect(start.json()).toEqual({ personIds: [plain.id, full.id].sort() });
    expect((await dbPerson(full.id)).optedOut).toBe(false);
    expect((await post(membershipInternal.optOut.path, { churchId: c.churchId, phone: '999-999-9999', optedOut: true })).json()).toEqual({ personIds: [] });

    const bad = await post(membershipInternal.optOut.path, { churchId: c.churchId, phone: 'abc-def', optedOut: true });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('phone');
    expect((await post(membershipInternal.optOut.path, { churchId: c.churchId, phone: '5550100000' })).json().errors[0].param).toBe('optedOut');
  });
});
