import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { call } from '@church/common/testing';
import { dataVersions, formSubmissions, forms, people } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addPerson } from './fixtures';

// The whole-church lists are answered from in-memory snapshots (@church/common snapshots): these tests
// prove a snapshot is never served stale, nor to the wrong viewer or church, and that ETags follow the data.

const t = useMembership();

const get = (url: string, token: string, headers: Record<string, string> = {}) => call(t.app, 'GET', url, { token, headers });
const idsOf = (res: LightMyRequestResponse) => res.json().map((row: { id: string }) => row.id);
const etagOf = (res: LightMyRequestResponse) => res.headers.etag as string;
const versionOf = async (churchId: string) => (await t.app.db.select().from(dataVersions).where(eq(dataVersions.churchId, churchId)))[0]?.version ?? 0;

describe('searches answered from the serialized person records', () => {
  it('show a saved or removed person at once, exactly as the full read would write them', async () => {
    const c = await makeChurch(t);
    const view = c.token(['People.View']);
    const edit = c.token(['People.Edit']);
    const search = (term: string) => get(`/membership/people/search?term=${term}`, view);
    // Names beyond ASCII: records are kept as bytes, and each one must still be cut out whole.
    const [emile] = (await call(t.app, 'POST', '/membership/people', { token: edit, body: { firstName: 'Émile', lastName: 'Åberg-Zephø' } })).json();
    const [ann] = (await call(t.app, 'POST', '/membership/people', { token: edit, body: { firstName: 'Annika', lastName: 'Zephyr', email: 'ann@example.org' } })).json();
    const both: Array<{ id: string }> = (await search('Zeph')).json();
    expect(both.map((p) => p.id).sort()).toEqual([emile.id, ann.id].sort());
    expect(both.find((p) => p.id === emile.id)).toMatchObject({ name: { first: 'Émile', last: 'Åberg-Zephø' } });
    expect(both.find((p) => p.id === ann.id)).toMatchObject({ contactInfo: expect.objectContaining({ email: 'ann@example.org' }) });
    await call(t.app, 'DELETE', `/membership/people/${emile.id}`, { token: edit });

    await call(t.app, 'POST', '/membership/people', { token: edit, body: { id: ann.id, email: 'annika@example.org' } });
    const [updated] = (await search('Zeph')).json();
    expect(updated.contactInfo.email).toBe('annika@example.org');
    // The record is the one GET /people/:id writes, field for field (without its form submissions).
    const { formSubmissions: _forms, ...full } = (await get(`/membership/people/${ann.id}`, view)).json();
    expect(updated).toEqual(full);
    const advanced = await call(t.app, 'POST', '/membership/people/advancedSearch', { token: view, body: [{ field: 'lastName', operator: 'equals', value: 'Zephyr' }] });
    expect(advanced.json()).toEqual([full]);

    await call(t.app, 'DELETE', `/membership/people/${ann.id}`, { token: edit });
    expect((await search('Zeph')).json()).toEqual([]);
  });
});

describe('GET /membership/people/:id answered from the answer kept at the data version', () => {
  it('shows a change, a form submission and a removal at once', async () => {
    const c = await makeChurch(t);
    const view = c.token(['People.View']);
    const edit = c.token(['People.Edit']);
    const [ann] = (await call(t.app, 'POST', '/membership/people', { token: edit, body: { firstName: 'Ann', lastName: 'Keeper' } })).json();
    const read = () => get(`/membership/people/${ann.id}`, view);
    expect((await read()).json()).toMatchObject({ id: ann.id, name: { first: 'Ann', last: 'Keeper' }, formSubmissions: [] });

    await call(t.app, 'POST', '/membership/people', { token: edit, body: { id: ann.id, firstName: 'Anna' } });
    expect((await read()).json()).toMatchObject({ name: { first: 'Anna', display: 'Anna Keeper' }, formSubmissions: [] });

    // Form submissions are not under the data version: one about her shows at once all the same, and goes when deleted.
    const formId = randomUUID();
    const submissionId = randomUUID();
    await t.app.db.insert(forms).values({ id: formId, churchId: c.churchId, name: 'Intake', contentType: 'person' });
    await t.app.db.insert(formSubmissions).values({ id: submissionId, churchId: c.churchId, formId, contentType: 'person', contentId: ann.id });
    const withForm = await read();
    expect(withForm.json()).toMatchObject({ name: { first: 'Anna' }, formSubmissions: [{ id: submissionId, formId, formName: 'Intake', answers: [] }] });
    await t.app.db.delete(formSubmissions).where(eq(formSubmissions.id, submissionId));
    const { formSubmissions: _gone, ...person } = withForm.json();
    expect((await read()).json()).toEqual({ ...person, formSubmissions: [] });

    await call(t.app, 'DELETE', `/membership/people/${ann.id}`, { token: edit });
    expect((await read()).statusCode).toBe(404);
  });

  it('serves the kept answer while the church’s data version holds, and only to that church', async () => {
    const [a, b] = [await makeChurch(t), await makeChurch(t)];
    const ann = await addPerson(t, a.churchId, { firstName: 'Ann' });
    const view = a.token(['People.View']);
    const read = (token: string) => get(`/membership/people/${ann.id}`, token);
    expect((await read(view)).json()).toMatchObject({ name: { first: 'Ann' } });
    const version = await versionOf(a.churchId);

    // A change that bypasses the version's triggers leaves the version as it was: the kept answer is served.
    await t.app.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.update(people).set({ firstName: 'Changed' }).where(eq(people.id, ann.id));
    });
    expect(await versionOf(a.churchId)).toBe(version);
    expect((await read(view)).json()).toMatchObject({ name: { first: 'Ann' } });
    expect((await read(b.token(['People.View']))).statusCode).toBe(404);

    await t.app.db.update(dataVersions).set({ version: sql`${dataVersions.version} + 1` }).where(eq(dataVersions.churchId, a.churchId));
    expect((await read(view)).json()).toMatchObject({ name: { first: 'Changed' } });
  });
});

describe('GET /membership/people', () => {
  it('answers an ETag, and 304 without a body to If-None-Match of it', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.View']);
    const first = await get('/membership/people', token);
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'cache-control': 'private, no-cache', vary: 'accept-encoding', 'content-type': 'application/json; charset=utf-8' });
    expect(etagOf(first)).toMatch(/^"[\w-]{22}"$/);
    expect(idsOf(first)).toEqual([c.personId]);
    const again = await get('/membership/people', token, { 'if-none-match': etagOf(first) });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(etagOf(again)).toBe(etagOf(first));
    // An unchanged church answers the same body and ETag from the snapshot.
    const third = await get('/membership/people', token);
    expect(third.body).toBe(first.body);
    expect(etagOf(third)).toBe(etagOf(first));
    expect((await get('/membership/people', token, { 'if-none-match': '"something-else"' })).statusCode).toBe(200);
    // If-None-Match compares weakly and may list several tags (a proxy may have weakened the ETag).
    expect((await get('/membership/people', token, { 'if-none-match': `"other", W/${etagOf(first)}` })).statusCode).toBe(304);
  });

  it('shows a saved, updated or removed person at once, and the old ETag stops matching', async () => {
    const c = await makeChurch(t);
    const view = c.token(['People.View']);
    const edit = c.token(['People.Edit']);
    const before = await get('/membership/people', view);

    const [added] = (await call(t.app, 'POST', '/membership/people', { token: edit, body: { firstName: 'Newly', lastName: 'Added' } })).json();
    const afterSave = await get('/membership/people', view, { 'if-none-match': etagOf(before) });
    expect(afterSave.statusCode).toBe(200);
    expect(idsOf(afterSave)).toEqual([added.id, c.personId]);
    expect(etagOf(afterSave)).not.toBe(etagOf(before));

    await call(t.app, 'POST', '/membership/people', { token: edit, body: { id: added.id, firstName: 'Renamed' } });
    const afterUpdate = await get('/membership/people', view, { 'if-none-match': etagOf(afterSave) });
    expect(afterUpdate.statusCode).toBe(200);
    expect(afterUpdate.json()[0].name.first).toBe('Renamed');

    expect((await call(t.app, 'DELETE', `/membership/people/${added.id}`, { token: edit })).statusCode).toBe(200);
    const afterDelete = await get('/membership/people', view, { 'if-none-match': etagOf(afterUpdate) });
    expect(afterDelete.statusCode).toBe(200);
    expect(idsOf(afterDelete)).toEqual([c.personId]);
    expect(new Set([etagOf(before), etagOf(afterSave), etagOf(afterUpdate), etagOf(afterDelete)]).size).toBe(4);
    // Same people as at the start, but a newer version: the first ETag must not come back to life.
    expect((await get('/membership/people', view, { 'if-none-match': etagOf(before) })).statusCode).toBe(200);
  });

  it('sees a change written outside the API (straight to the table) too', async () => {
    const c = await makeChurch(t);
    const view = c.token(['People.View']);
    const before = await get('/membership/people', view);
    const direct = await addPerson(t, c.churchId, { lastName: 'Direct' });
    const after = await get('/membership/people', view, { 'if-none-match': etagOf(before) });
    expect(after.statusCode).toBe(200);
    expect(idsOf(after)).toEqual([c.personId, direct.id]); // Admin, Direct
  });

  it('gzips for clients that accept it, as its own representation with its own ETag', async () => {
    const c = await makeChurch(t);
    await addPerson(t, c.churchId, { firstName: 'Zip', lastName: 'Person' });
    const token = c.token(['People.View']);
    const plain = await get('/membership/people', token);
    const zipped = await get('/membership/people', token, { 'accept-encoding': 'gzip, deflate' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'accept-encoding', 'content-type': 'application/json; charset=utf-8' });
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    expect(etagOf(zipped)).toMatch(/^"[\w-]{22}-gz"$/);
    expect(etagOf(zipped)).not.toBe(etagOf(plain));
    expect((await get('/membership/people', token, { 'accept-encoding': 'gzip', 'if-none-match': etagOf(zipped) })).statusCode).toBe(304);
    // Each representation's ETag matches only itself.
    const crossed = await get('/membership/people', token, { 'accept-encoding': 'gzip', 'if-none-match': etagOf(plain) });
    expect(crossed.statusCode).toBe(200);
    expect(crossed.headers['content-encoding']).toBe('gzip');
    expect((await get('/membership/people', token, { 'if-none-match': etagOf(zipped) })).statusCode).toBe(200);
    // gzip refused outright gets the identity body.
    const refused = await get('/membership/people', token, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body).toBe(plain.body);
  });

  it('prefers brotli when the client accepts it (browsers send gzip, deflate, br), as another representation', async () => {
    const c = await makeChurch(t);
    await addPerson(t, c.churchId, { firstName: 'Bro', lastName: 'Tli' });
    const token = c.token(['People.View']);
    const plain = await get('/membership/people', token);
    const zipped = await get('/membership/people', token, { 'accept-encoding': 'gzip' });
    const squeezed = await get('/membership/people', token, { 'accept-encoding': 'gzip, deflate, br' });
    expect(squeezed.headers).toMatchObject({ 'content-encoding': 'br', vary: 'accept-encoding', 'content-type': 'application/json; charset=utf-8' });
    expect(brotliDecompressSync(squeezed.rawPayload).toString()).toBe(plain.body);
    expect(etagOf(squeezed)).toMatch(/^"[\w-]{22}-br"$/);
    expect(new Set([etagOf(plain), etagOf(zipped), etagOf(squeezed)]).size).toBe(3);
    expect((await get('/membership/people', token, { 'accept-encoding': 'br', 'if-none-match': etagOf(squeezed) })).statusCode).toBe(304);
    // A client rating gzip above brotli gets gzip.
    expect((await get('/membership/people', token, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
  });

  it('never gives a Member-level viewer the staff list, nor staff the members list, whichever came first', async () => {
    for (const staffFirst of [true, false]) {
      const c = await makeChurch(t);
      const visitor = await addPerson(t, c.churchId, { lastName: 'Visitor', membershipStatus: 'Visitor' });
      const member = await addPerson(t, c.churchId, { lastName: 'Member', membershipStatus: 'Member' });
      const staffToken = c.token(['People.View']);
      const memberToken = c.token([], { membershipStatus: 'Member' });
      const read = async () => {
        if (staffFirst) {
          const staff = await get('/membership/people', staffToken);
          return { staff, members: await get('/membership/people', memberToken) };
        }
        const members = await get('/membership/people', memberToken);
        return { members, staff: await get('/membership/people', staffToken) };
      };
      for (let round = 0; round < 2; round++) {
        // the second round is served from both snapshots
        const { staff, members } = await read();
        expect(idsOf(staff)).toEqual([c.personId, member.id, visitor.id]); // Admin, Member, Visitor
        expect(idsOf(members)).toEqual([c.personId, member.id]);
        expect(etagOf(members)).not.toBe(etagOf(staff));
      }
      const staffTag = etagOf(await get('/membership/people', staffToken));
      const memberTag = etagOf(await get('/membership/people', memberToken));
      // A viewer holding the other scope's ETag gets its own list, not a 304.
      const crossed = await get('/membership/people', memberToken, { 'if-none-match': staffTag });
      expect(crossed.statusCode).toBe(200);
      expect(idsOf(crossed)).not.toContain(visitor.id);
      expect((await get('/membership/people', staffToken, { 'if-none-match': memberTag })).statusCode).toBe(200);
    }
  });

  it('keeps each church to its own people, and a change in one church leaves the other’s ETag alone', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const onlyA = await addPerson(t, a.churchId, { lastName: 'OfA' });
    const onlyB = await addPerson(t, b.churchId, { lastName: 'OfB' });
    const tokenA = a.token(['People.View']);
    const tokenB = b.token(['People.View']);
    for (let round = 0; round < 2; round++) {
      expect(idsOf(await get('/membership/people', tokenA))).toEqual([a.personId, onlyA.id]);
      expect(idsOf(await get('/membership/people', tokenB))).toEqual([b.personId, onlyB.id]);
    }
    const tagA = etagOf(await get('/membership/people', tokenA));
    const tagB = etagOf(await get('/membership/people', tokenB));
    expect(tagA).not.toBe(tagB);
    // B's ETag never answers A's list.
    expect((await get('/membership/people', tokenA, { 'if-none-match': tagB })).statusCode).toBe(200);

    const versionB = await versionOf(b.churchId);
    const [added] = (await call(t.app, 'POST', '/membership/people', { token: a.token(['People.Edit']), body: { firstName: 'Only', lastName: 'Ours' } })).json();
    expect(await versionOf(b.churchId)).toBe(versionB);
    const stillB = await get('/membership/people', tokenB, { 'if-none-match': tagB });
    expect(stillB.statusCode).toBe(304);
    expect(etagOf(stillB)).toBe(tagB);
    const nowB = await get('/membership/people', tokenB);
    expect(idsOf(nowB)).not.toContain(added.id);
    const nowA = await get('/membership/people', tokenA, { 'if-none-match': tagA });
    expect(nowA.statusCode).toBe(200);
    expect(idsOf(nowA)).toContain(added.id);
  });
});

describe('GET /membership/groups', () => {
  it('answers an ETag and 304, shows a new, renamed or deleted group at once', async () => {
    const c = await makeChurch(t);
    const read = c.token();
    const edit = c.token(['Groups.Edit']);
    const empty = await get('/membership/groups', read);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual([]);
    expect(etagOf(empty)).toMatch(/^"[\w-]{22}"$/);
    const notModified = await get('/membership/groups', read, { 'if-none-match': etagOf(empty) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);

    const [choir] = (await call(t.app, 'POST', '/membership/groups', { token: edit, body: { name: 'Choir' } })).json();
    const afterCreate = await get('/membership/groups', read, { 'if-none-match': etagOf(empty) });
    expect(afterCreate.statusCode).toBe(200);
    expect(afterCreate.json()).toEqual([{ ...choir, memberCount: 0 }]);
    expect((await get('/membership/groups', read, { 'if-none-match': etagOf(afterCreate) })).statusCode).toBe(304);

    await call(t.app, 'POST', '/membership/groups', { token: edit, body: { id: choir.id, name: 'Praise Choir' } });
    const afterRename = await get('/membership/groups', read, { 'if-none-match': etagOf(afterCreate) });
    expect(afterRename.statusCode).toBe(200);
    expect(afterRename.json().map((g: { name: string }) => g.name)).toEqual(['Praise Choir']);

    expect((await call(t.app, 'DELETE', `/membership/groups/${choir.id}`, { token: edit })).statusCode).toBe(200);
    const afterDelete = await get('/membership/groups', read, { 'if-none-match': etagOf(afterRename) });
    expect(afterDelete.statusCode).toBe(200);
    expect(afterDelete.json()).toEqual([]);
    expect(new Set([etagOf(empty), etagOf(afterCreate), etagOf(afterRename), etagOf(afterDelete)]).size).toBe(4);
  });

  it('gzips on request and keeps churches apart', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    await call(t.app, 'POST', '/membership/groups', { token: a.token(['Groups.Edit']), body: [{ name: 'Ushers' }, { name: 'Youth' }] });
    const [theirs] = (await call(t.app, 'POST', '/membership/groups', { token: b.token(['Groups.Edit']), body: { name: 'Elders' } })).json();
    const plain = await get('/membership/groups', a.token());
    const zipped = await get('/membership/groups', a.token(), { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    expect(etagOf(zipped)).not.toBe(etagOf(plain));
    expect(plain.json().map((g: { name: string }) => g.name)).toEqual(['Ushers', 'Youth']);
    expect((await get('/membership/groups', b.token())).json()).toEqual([{ ...theirs, memberCount: 0 }]);
    const tagB = etagOf(await get('/membership/groups', b.token()));
    await call(t.app, 'POST', '/membership/groups', { token: a.token(['Groups.Edit']), body: { name: 'Greeters' } });
    expect((await get('/membership/groups', b.token(), { 'if-none-match': tagB })).statusCode).toBe(304);
  });
});

describe('data_versions', () => {
  it('rises with every committed save and removal of people and groups', async () => {
    const c = await makeChurch(t);
    const v0 = await versionOf(c.churchId);
    expect(v0).toBeGreaterThan(0); // makeChurch inserted a person
    const [p] = (await call(t.app, 'POST', '/membership/people', { token: c.token(['People.Edit']), body: { firstName: 'Vera' } })).json();
    const v1 = await versionOf(c.churchId);
    expect(v1).toBeGreaterThan(v0);
    await call(t.app, 'DELETE', `/membership/people/${p.id}`, { token: c.token(['People.Edit']) });
    const v2 = await versionOf(c.churchId);
    expect(v2).toBeGreaterThan(v1);
    await call(t.app, 'POST', '/membership/groups', { token: c.token(['Groups.Edit']), body: { name: 'Band' } });
    expect(await versionOf(c.churchId)).toBeGreaterThan(v2);
  });

  it('rises once per transaction, however many rows it changed', async () => {
    const c = await makeChurch(t);
    const before = await versionOf(c.churchId);
    const batch = [{ firstName: 'Ada' }, { firstName: 'Ben' }, { firstName: 'Cy' }];
    expect((await call(t.app, 'POST', '/membership/people', { token: c.token(['People.Edit']), body: batch })).statusCode).toBe(200);
    expect(await versionOf(c.churchId)).toBe(before + 1);
  });

  it('stays put when a save is refused (400, 404) or its transaction rolls back', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const foreign = await addPerson(t, other.churchId);
    const edit = c.token(['People.Edit']);
    const view = c.token(['People.View']);
    const tag = etagOf(await get('/membership/people', view));
    const v0 = await versionOf(c.churchId);

    const invalid = await call(t.app, 'POST', '/membership/people', { token: edit, body: [{ firstName: 'Ok' }, { firstName: 'Bad', birthDate: 'not-a-date' }] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors[0].param).toBe('[1].birthDate');
    const foreignHousehold = await call(t.app, 'POST', '/membership/people', { token: edit, body: { firstName: 'X', householdId: foreign.householdId } });
    expect(foreignHousehold.statusCode).toBe(400);
    expect(foreignHousehold.json().errors[0].param).toBe('householdId');
    const foreignPerson = await call(t.app, 'POST', '/membership/people', { token: edit, body: [{ firstName: 'Would' }, { id: foreign.id, firstName: 'Hijack' }] });
    expect(foreignPerson.statusCode).toBe(404);
    const badGroup = await call(t.app, 'POST', '/membership/groups', { token: c.token(['Groups.Edit']), body: { name: '' } });
    expect(badGroup.statusCode).toBe(400);
    // A write that rolls back must not raise the version: the trigger runs at commit only.
    await expect(
      t.app.db.transaction(async (tx) => {
        await tx.insert(people).values({ id: randomUUID(), churchId: c.churchId, firstName: 'Rolled', lastName: 'Back', displayName: 'Rolled Back' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');

    expect(await versionOf(c.churchId)).toBe(v0);
    expect(await versionOf(other.churchId)).toBeGreaterThan(0);
    expect((await get('/membership/people', view, { 'if-none-match': tag })).statusCode).toBe(304);
  });
});
