import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { answers, formSubmissions, forms, households, people, questions } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addPerson } from './fixtures';

const t = useMembership();

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const save = (token: string, body: unknown) => call(t.app, 'POST', '/membership/people', { token, body });
const dbPerson = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0];

describe('access', () => {
  it('guards every JWT route', async () => {
    const c = await makeChurch(t);
    const id = c.personId;
    for (const route of [
      { method: 'GET' as const, url: '/membership/people', permission: 'People.View' },
      { method: 'GET' as const, url: `/membership/people/${randomUUID()}`, permission: 'People.View' },
      { method: 'GET' as const, url: `/membership/people/ids?ids=${id}`, permission: 'People.View' },
      { method: 'GET' as const, url: `/membership/people/basic?ids=${id}` },
      { method: 'GET' as const, url: '/membership/people/recent', permission: 'People.View' },
      { method: 'GET' as const, url: `/membership/people/household/${randomUUID()}` },
      { method: 'POST' as const, url: '/membership/people', body: { firstName: 'A' }, permission: 'People.Edit' },
      { method: 'DELETE' as const, url: `/membership/people/${id}`, permission: 'People.Edit' },
      { method: 'POST' as const, url: `/membership/people/household/${randomUUID()}`, body: [], permission: 'People.Edit' },
    ]) {
      await expectGuarded(t.app, route, c.churchId);
    }
  });
});

describe('POST /membership/people', () => {
  it('inserts with the spec’s flat names, recomputes displayName and creates a household named after the person', async () => {
    const c = await makeChurch(t);
    const res = await save(c.token(['People.Edit']), { firstName: 'Mary', lastName: 'Jones', email: 'Mary@Example.org', birthDate: '1980-05-03', gender: 'Female' });
    expect(res.statusCode).toBe(200);
    const [p] = res.json();
    expect(p).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      userId: null,
      name: { first: 'Mary', last: 'Jones', middle: null, nick: null, display: 'Mary Jones', prefix: null, suffix: null },
      contactInfo: { address1: null, address2: null, city: null, state: null, zip: null, homePhone: null, mobilePhone: null, workPhone: null, email: 'mary@example.org' },
      birthDate: '1980-05-03T00:00:00.000Z',
      gender: 'Female',
      maritalStatus: null,
      anniversary: null,
      membershipStatus: 'Guest',
      householdId: expect.any(String),
      householdRole: 'Head',
      photo: null,
      photoUpdated: null,
      optedOut: false,
      campusId: null,
      nametagNotes: null,
      school: null,
      grade: null,
      conversationId: null,
      createdAt: ISO,
      updatedAt: ISO,
    });
    const [household] = await t.app.db.select().from(households).where(eq(households.id, p.householdId));
    expect(household).toMatchObject({ churchId: c.churchId, name: 'Jones' });
  });

  it('accepts the nested name/contactInfo form and prefers the nick name for display', async () => {
    const c = await makeChurch(t);
    const res = await save(c.token(['People.Edit']), [
      { name: { first: 'Robert', last: 'Smith', nick: 'Bob', middle: 'J' }, contactInfo: { mobilePhone: '555-1234', city: 'Springfield', email: '' }, membershipStatus: 'Member' },
    ]);
    expect(res.statusCode).toBe(200);
    const [p] = res.json();
    expect(p.name).toEqual({ first: 'Robert', last: 'Smith', middle: 'J', nick: 'Bob', display: 'Bob Smith', prefix: null, suffix: null });
    expect(p.contactInfo).toMatchObject({ mobilePhone: '555-1234', city: 'Springfield', email: null });
    expect(p.membershipStatus).toBe('Member');
  });

  it('inserts and updates in one call; an update keeps unsent fields and recomputes displayName', async () => {
    const c = await makeChurch(t);
    const existing = await addPerson(t, c.churchId, { firstName: 'Old', lastName: 'Name', email: 'keep@example.org', gender: 'Male' });
    const res = await save(c.token(['People.Edit']), [{ id: existing.id, firstName: 'New' }, { firstName: 'Fresh', lastName: 'Person' }]);
    expect(res.statusCode).toBe(200);
    const [updated, inserted] = res.json();
    expect(updated).toMatchObject({ id: existing.id, name: { first: 'New', last: 'Name', display: 'New Name' }, contactInfo: { email: 'keep@example.org' }, gender: 'Male', householdId: existing.householdId });
    expect(inserted).toMatchObject({ name: { display: 'Fresh Person' } });
    expect(await dbPerson(existing.id)).toMatchObject({ firstName: 'New', displayName: 'New Name', householdId: existing.householdId });
  });

  it('gives a person without a household one of their own on update too', async () => {
    const c = await makeChurch(t);
    const loose = await addPerson(t, c.churchId, { lastName: 'Loose', householdId: null });
    const [p] = (await save(c.token(['People.Edit']), { id: loose.id, nickName: 'Lucy' })).json();
    expect(p.householdId).toEqual(expect.any(String));
    expect(p.name.display).toBe('Lucy Loose');
    const [household] = await t.app.db.select().from(households).where(eq(households.id, p.householdId));
    expect(household!.name).toBe('Loose');
  });

  it('joins an existing household of the church, and refuses one of another church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const head = await addPerson(t, c.churchId);
    const ok = await save(c.token(['People.Edit']), { firstName: 'Kid', lastName: 'Doe', householdId: head.householdId, householdRole: 'Child' });
    expect(ok.json()[0]).toMatchObject({ householdId: head.householdId, householdRole: 'Child' });
    const foreign = await addPerson(t, other.churchId);
    const bad = await save(c.token(['People.Edit']), { firstName: 'X', householdId: foreign.householdId });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('householdId');
  });

  it('answers 404 and writes nothing when a batch names another church’s person', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const foreign = await addPerson(t, other.churchId, { firstName: 'Theirs' });
    const before = (await t.app.db.select().from(people).where(eq(people.churchId, c.churchId))).length;
    const res = await save(c.token(['People.Edit']), [{ firstName: 'Would', lastName: 'Be' }, { id: foreign.id, firstName: 'Hijacked' }]);
    expect(res.statusCode).toBe(404);
    expect((await dbPerson(foreign.id))!.firstName).toBe('Theirs');
    expect((await t.app.db.select().from(people).where(eq(people.churchId, c.churchId))).length).toBe(before);
  });

  it('writes nothing when any item of a batch is invalid', async () => {
    const c = await makeChurch(t);
    const before = (await t.app.db.select().from(people).where(eq(people.churchId, c.churchId))).length;
    const res = await save(c.token(['People.Edit']), [{ firstName: 'First' }, { firstName: 'Second', birthDate: '20000-01-01' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[1].birthDate');
    expect((await t.app.db.select().from(people).where(eq(people.churchId, c.churchId))).length).toBe(before);
  });

  it('validates fields and names them', async () => {
    const c = await makeChurch(t);
    const token = c.token(['People.Edit']);
    const cases: Array<[unknown, string]> = [
      [{ email: 'not-an-email' }, 'email'],
      [[{ firstName: 'ok' }, { contactInfo: { email: 'bad' } }], '[1].contactInfo.email'],
      [{ birthDate: 'yesterday-ish' }, 'birthDate'],
      [{ id: 'nope' }, 'id'],
      [{ firstName: 'x'.repeat(101) }, 'firstName'],
      [{ optedOut: 'yes' }, 'optedOut'],
    ];
    for (const [body, param] of cases) {
      const res = await save(token, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param, location: 'body' });
    }
  });

  describe('People.Edit Self', () => {
    it('saves the caller’s own record but not its privileged fields', async () => {
      const c = await makeChurch(t);
      const me = await addPerson(t, c.churchId, { firstName: 'Me', membershipStatus: 'Guest' });
      const token = c.token(['People.Edit Self'], { personId: me.id });
      const res = await save(token, { id: me.id, firstName: 'Myself', membershipStatus: 'Staff', householdId: null, mobilePhone: '555 0000' });
      expect(res.statusCode).toBe(200);
      expect(await dbPerson(me.id)).toMatchObject({ firstName: 'Myself', membershipStatus: 'Guest', householdId: me.householdId, mobilePhone: '555 0000' });
    });

    it('refuses someone else’s record and new people with 401', async () => {
      const c = await makeChurch(t);
      const me = await addPerson(t, c.churchId);
      const other = await addPerson(t, c.churchId, { firstName: 'Other' });
      const token = c.token(['People.Edit Self'], { personId: me.id });
      expect((await save(token, { id: other.id, firstName: 'Changed' })).statusCode).toBe(401);
      expect((await save(token, [{ id: me.id }, { firstName: 'New' }])).statusCode).toBe(401);
      expect((await dbPerson(other.id))!.firstName).toBe('Other');
    });
  });

  describe('photos', () => {
    // the smallest valid PNG (1x1), and the first bytes of the other accepted kinds
    const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    const png = `data:image/png;base64,${PNG.toString('base64')}`;
    const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32)]);
    const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(32)]);
    const WEBP = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.alloc(4), Buffer.from('WEBPVP8 ', 'latin1'), Buffer.alloc(32)]);

    it('stores a base64 photo through storage and keeps its URL', async () => {
      const c = await makeChurch(t);
      const [p] = (await save(c.token(['People.Edit']), { firstName: 'Pic', photo: png })).json();
      expect(p.photo).toBe(`http://localhost:8080/files/${c.churchId}/people/${p.id}.png`);
      expect(p.photoUpdated).toEqual(ISO);
      const file = path.join(t.config.DATA_DIR, 'files', c.churchId, 'people', `${p.id}.png`);
      expect(readFileSync(file)).toEqual(PNG);
    });

    it('accepts PNG, JPEG, GIF and WebP by their bytes, stored under the type the bytes say', async () => {
      const c = await makeChurch(t);
      for (const [bytes, declared, ext] of [
        [JPEG, 'image/jpeg', 'jpg'],
        [GIF, 'image/gif', 'gif'],
        [WEBP, 'image/webp', 'webp'],
        // a PNG declared as something else is still a PNG
        [PNG, 'image/gif', 'png'],
      ] as const) {
        const res = await save(c.token(['People.Edit']), { firstName: 'Pic', photo: `data:${declared};base64,${bytes.toString('base64')}` });
        expect(res.statusCode).toBe(200);
        expect(res.json()[0].photo).toMatch(new RegExp(`/people/[0-9a-f-]+\\.${ext}$`));
      }
    });

    it('refuses anything but a raster image, checked by its bytes (400 on photo)', async () => {
      const c = await makeChurch(t);
      const me = c.token(['People.EditSelf'], { membershipStatus: 'Guest' });
      const html = Buffer.from('<html><script>alert(document.cookie)</script></html>').toString('base64');
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
      for (const photo of [
        `data:image/html;base64,${html}`,
        `data:image/png;base64,${html}`,
        `data:image/svg+xml;base64,${svg}`,
        `data:image/x-html;base64,${html}`,
        `data:image/png;base64,${Buffer.from('fake-png-bytes').toString('base64')}`,
      ]) {
        const res = await save(me, { id: c.personId, photo });
        expect(res.statusCode).toBe(400);
        expect(res.json().errors[0].param).toBe('photo');
      }
      expect((await dbPerson(c.personId))!.photo).toBeNull();
      expect(existsSync(path.join(t.config.DATA_DIR, 'files', c.churchId))).toBe(false);
    });

    it('refuses a data URL that is not an image', async () => {
      const c = await makeChurch(t);
      const res = await save(c.token(['People.Edit']), { firstName: 'Pic', photo: 'data:text/html;base64,PGI+aGk8L2I+' });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].param).toBe('photo');
    });

    it('keeps a plain URL as given', async () => {
      const c = await makeChurch(t);
      const [p] = (await save(c.token(['People.Edit']), { firstName: 'Pic', photo: 'https://cdn.example.org/a.jpg' })).json();
      expect(p.photo).toBe('https://cdn.example.org/a.jpg');
      expect(existsSync(path.join(t.config.DATA_DIR, 'files', c.churchId))).toBe(false);
    });
  });
});

describe('GET /membership/people', () => {
  it('lists the church’s people by name, without removed ones or another church’s', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const b = await addPerson(t, c.churchId, { firstName: 'Bea', lastName: 'Brown' });
    const a = await addPerson(t, c.churchId, { firstName: 'Al', lastName: 'Adams' });
    await addPerson(t, c.churchId, { lastName: 'Gone', removed: true });
    await addPerson(t, other.churchId, { lastName: 'Elsewhere' });
    const res = await call(t.app, 'GET', '/membership/people', { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { id: string }) => p.id)).toEqual([a.id, c.personId, b.id]);
  });

  it('shows Member-level viewers members and staff only, not visitors, guests or opted-out people', async () => {
    const c = await makeChurch(t);
    const member = await addPerson(t, c.churchId, { lastName: 'A-Member', membershipStatus: 'Member' });
    await addPerson(t, c.churchId, { lastName: 'Visitor', membershipStatus: 'Visitor' });
    await addPerson(t, c.churchId, { lastName: 'Guest', membershipStatus: 'Guest' });
    await addPerson(t, c.churchId, { lastName: 'Hidden', membershipStatus: 'Member', optedOut: true });
    const res = await call(t.app, 'GET', '/membership/people', { token: c.token(['People.View Members']) });
    expect(res.json().map((p: { id: string }) => p.id)).toEqual([member.id, c.personId]);
    const byStatus = await call(t.app, 'GET', '/membership/people', { token: c.token([], { membershipStatus: 'Member' }) });
    expect(byStatus.json()).toHaveLength(2);
  });
});

describe('whole person records (list, one person, search)', () => {
  it('return every field, dates as ISO strings and empty fields as null', async () => {
    const c = await makeChurch(t);
    const campusId = randomUUID();
    const userId = randomUUID();
    const conversationId = randomUUID();
    const p = await addPerson(t, c.churchId, {
      firstName: 'Zelda',
      lastName: 'Zimmer',
      middleName: 'Q',
      nickName: 'Zee',
      prefix: 'Dr',
      suffix: 'Jr',
      displayName: 'Zee Zimmer',
      userId,
      address1: '1 Main St',
      address2: 'Apt 2',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      homePhone: '555-0100',
      mobilePhone: '555-0101',
      workPhone: '555-0102',
      email: 'zee@example.org',
      birthDate: new Date('1980-02-29T00:00:00Z'),
      anniversary: new Date('2005-06-15T00:00:00Z'),
      gender: 'Female',
      maritalStatus: 'Married',
      photo: 'https://example.org/zee.png',
      photoUpdated: new Date('2024-05-06T07:08:09.123Z'),
      campusId,
      nametagNotes: 'Peanut allergy',
      school: 'Springfield High',
      grade: '12',
      conversationId,
      createdAt: new Date('2020-01-02T03:04:05.678Z'),
      updatedAt: new Date('2021-01-02T03:04:05.678Z'),
    });
    const bare = await addPerson(t, c.churchId, { firstName: 'Zack', lastName: 'Zz', displayName: null, householdRole: null });
    const record = {
      id: p.id,
      churchId: c.churchId,
      userId,
      name: { first: 'Zelda', last: 'Zimmer', middle: 'Q', nick: 'Zee', display: 'Zee Zimmer', prefix: 'Dr', suffix: 'Jr' },
      contactInfo: {
        address1: '1 Main St',
        address2: 'Apt 2',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        homePhone: '555-0100',
        mobilePhone: '555-0101',
        workPhone: '555-0102',
        email: 'zee@example.org',
      },
      birthDate: '1980-02-29T00:00:00.000Z',
      gender: 'Female',
      maritalStatus: 'Married',
      anniversary: '2005-06-15T00:00:00.000Z',
      membershipStatus: 'Member',
      householdId: p.householdId,
      householdRole: 'Head',
      photo: 'https://example.org/zee.png',
      photoUpdated: '2024-05-06T07:08:09.123Z',
      optedOut: false,
      campusId,
      nametagNotes: 'Peanut allergy',
      school: 'Springfield High',
      grade: '12',
      conversationId,
      createdAt: '2020-01-02T03:04:05.678Z',
      updatedAt: '2021-01-02T03:04:05.678Z',
    };
    const nothing = { middle: null, nick: null, display: null, prefix: null, suffix: null };
    const bareRecord = {
      id: bare.id,
      churchId: c.churchId,
      userId: null,
      name: { first: 'Zack', last: 'Zz', ...nothing },
      contactInfo: { address1: null, address2: null, city: null, state: null, zip: null, homePhone: null, mobilePhone: null, workPhone: null, email: null },
      birthDate: null,
      gender: null,
      maritalStatus: null,
      anniversary: null,
      membershipStatus: 'Member',
      householdId: bare.householdId,
      householdRole: null,
      photo: null,
      photoUpdated: null,
      optedOut: false,
      campusId: null,
      nametagNotes: null,
      school: null,
      grade: null,
      conversationId: null,
      createdAt: bare.createdAt.toISOString(),
      updatedAt: bare.updatedAt.toISOString(),
    };
    const token = c.token(['People.View']);
    const list = (await call(t.app, 'GET', '/membership/people', { token })).json();
    expect(list.slice(-2)).toEqual([record, bareRecord]);
    expect((await call(t.app, 'GET', `/membership/people/${p.id}`, { token })).json()).toEqual({ ...record, formSubmissions: [] });
    expect((await call(t.app, 'GET', `/membership/people/${bare.id}`, { token })).json()).toEqual({ ...bareRecord, formSubmissions: [] });
    expect((await call(t.app, 'GET', '/membership/people/search?term=zimm', { token })).json()).toEqual([record]);
  });
});

describe('GET /membership/people/:id', () => {
  it('reads concurrent requests of two churches together and answers each only its own church’s people', async () => {
    const [a, b] = [await makeChurch(t), await makeChurch(t)];
    const [ann, bob] = [await addPerson(t, a.churchId, { firstName: 'Ann' }), await addPerson(t, b.churchId, { firstName: 'Bob' })];
    const [ta, tb] = [a.token(['People.View']), b.token(['People.View'])];
    const get = (token: string, id: string) => call(t.app, 'GET', `/membership/people/${id}`, { token });
    // Sent in one turn, so they share a batch: the foreign ids are in the same statement as the church's own.
    const answers = await Promise.all([get(ta, ann.id), get(tb, ann.id), get(tb, bob.id), get(ta, bob.id), get(ta, ann.id.toUpperCase())]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 404, 200, 404, 200]);
    expect(answers[0]!.json()).toMatchObject({ id: ann.id, churchId: a.churchId, name: { first: 'Ann' } });
    expect(answers[2]!.json()).toMatchObject({ id: bob.id, churchId: b.churchId, name: { first: 'Bob' } });
    expect(answers[4]!.json().id).toBe(ann.id);
  });

  it('answers the person with the form submissions about them', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { firstName: 'Form', lastName: 'Filler' });
    const formId = randomUUID();
    const questionId = randomUUID();
    const submissionId = randomUUID();
    await t.app.db.insert(forms).values({ id: formId, churchId: c.churchId, name: 'Intake', contentType: 'person' });
    await t.app.db.insert(questions).values({ id: questionId, churchId: c.churchId, formId, title: 'Favourite hymn' });
    await t.app.db.insert(formSubmissions).values({ id: submissionId, churchId: c.churchId, formId, contentType: 'person', contentId: p.id, submissionDate: new Date('2024-02-01T10:00:00Z') });
    await t.app.db.insert(answers).values({ id: randomUUID(), churchId: c.churchId, formSubmissionId: submissionId, questionId, value: 'Amazing Grace' });
    const res = await call(t.app, 'GET', `/membership/people/${p.id}`, { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: p.id, name: { first: 'Form', last: 'Filler', display: 'Form Filler' } });
    expect(res.json().formSubmissions).toEqual([
      {
        id: submissionId,
        formId,
        formName: 'Intake',
        submissionDate: '2024-02-01T10:00:00.000Z',
        revisionDate: null,
        submittedBy: null,
        answers: [{ id: expect.any(String), questionId, questionTitle: 'Favourite hymn', value: 'Amazing Grace' }],
      },
    ]);
  });

  it('lets a person without People.View read only their own record', async () => {
    const c = await makeChurch(t);
    const me = await addPerson(t, c.churchId);
    const other = await addPerson(t, c.churchId);
    const token = c.token([], { personId: me.id });
    expect((await call(t.app, 'GET', `/membership/people/${me.id}`, { token })).json()).toMatchObject({ id: me.id, formSubmissions: [] });
    expect((await call(t.app, 'GET', `/membership/people/${other.id}`, { token })).statusCode).toBe(401);
  });

  it('answers 404 for another church’s or a removed person and 400 for a bad id', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const removed = await addPerson(t, c.churchId, { removed: true });
    const token = c.token(['People.View']);
    expect((await call(t.app, 'GET', `/membership/people/${other.personId}`, { token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/people/${removed.id}`, { token })).statusCode).toBe(404);
    const bad = await call(t.app, 'GET', '/membership/people/not-a-uuid', { token });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'id', location: 'params' });
  });
});

describe('GET /membership/people/ids, /basic, /recent', () => {
  it('answers the named people of the church only', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const a = await addPerson(t, c.churchId, { lastName: 'Ames' });
    const res = await call(t.app, 'GET', `/membership/people/ids?ids=${a.id},${other.personId}`, { token: c.token(['People.View']) });
    expect(res.json().map((p: { id: string }) => p.id)).toEqual([a.id]);
    const bad = await call(t.app, 'GET', '/membership/people/ids?ids=x', { token: c.token(['People.View']) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].location).toBe('query');
  });

  it('answers names only, removed people included (history names them), to any user', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const gone = await addPerson(t, c.churchId, { firstName: 'Was', lastName: 'Here', removed: true, email: 'secret@example.org', photo: 'https://p/x.jpg' });
    const res = await call(t.app, 'GET', `/membership/people/basic?ids=${gone.id},${other.personId}`, { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: gone.id, name: { first: 'Was', last: 'Here', nick: null, display: 'Was Here' }, photo: 'https://p/x.jpg', householdId: gone.householdId, householdRole: 'Head' }]);
  });

  it('lists recently added people first', async () => {
    const c = await makeChurch(t);
    const older = await addPerson(t, c.churchId, { createdAt: new Date('2020-01-01') });
    const newer = await addPerson(t, c.churchId, { createdAt: new Date(Date.now() + 60_000) });
    const ids = (await call(t.app, 'GET', '/membership/people/recent', { token: c.token(['People.View']) })).json().map((p: { id: string }) => p.id);
    expect(ids).toEqual([newer.id, c.personId, older.id]);
  });
});

describe('DELETE /membership/people/:id', () => {
  it('soft-deletes the person', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId);
    const res = await call(t.app, 'DELETE', `/membership/people/${p.id}`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await dbPerson(p.id))!.removed).toBe(true);
    expect((await call(t.app, 'DELETE', `/membership/people/${p.id}`, { token: c.token(['People.Edit']) })).statusCode).toBe(404);
  });

  it('answers 404 for another church’s person and leaves it alone', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/people/${other.personId}`, { token: c.token(['People.Edit']) })).statusCode).toBe(404);
    expect((await dbPerson(other.personId))!.removed).toBe(false);
  });
});

describe('households of people', () => {
  it('GET /household/:id gives staff and household members full records, others names only', async () => {
    const c = await makeChurch(t);
    const head = await addPerson(t, c.churchId, { email: 'head@example.org' });
    const kid = await addPerson(t, c.churchId, { firstName: 'Kid', householdId: head.householdId, householdRole: 'Child' });
    const outsider = await addPerson(t, c.churchId);
    const url = `/membership/people/household/${head.householdId}`;
    const staff = (await call(t.app, 'GET', url, { token: c.token(['People.View']) })).json();
    expect(staff.map((p: { id: string }) => p.id)).toEqual([head.id, kid.id]);
    expect(staff[0].contactInfo.email).toBe('head@example.org');
    const family = (await call(t.app, 'GET', url, { token: c.token([], { personId: kid.id }) })).json();
    expect(family[0].contactInfo.email).toBe('head@example.org');
    const stranger = (await call(t.app, 'GET', url, { token: c.token([], { personId: outsider.id }) })).json();
    expect(stranger[0]).toEqual({ id: head.id, name: { first: 'Jane', last: 'Doe', nick: null, display: 'Jane Doe' }, photo: null, householdId: head.householdId, householdRole: 'Head' });
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', url, { token: other.token(['People.View']) })).json()).toEqual([]);
  });

  it('POST /household/:id makes the list the household: listed people join, unlisted ones get their own', async () => {
    const c = await makeChurch(t);
    const head = await addPerson(t, c.churchId, { lastName: 'Home' });
    const leaving = await addPerson(t, c.churchId, { lastName: 'Leaver', householdId: head.householdId, householdRole: 'Spouse' });
    const joining = await addPerson(t, c.churchId, { lastName: 'Joiner' });
    const res = await call(t.app, 'POST', `/membership/people/household/${head.householdId}`, {
      token: c.token(['People.Edit']),
      body: [{ id: head.id, householdRole: 'Head' }, { personId: joining.id, householdRole: 'Child' }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { id: string; householdRole: string }) => [p.id, p.householdRole])).toEqual([
      [head.id, 'Head'],
      [joining.id, 'Child'],
    ]);
    const left = (await dbPerson(leaving.id))!;
    expect(left.householdId).not.toBe(head.householdId);
    expect(left.householdRole).toBe('Head');
    const [own] = await t.app.db.select().from(households).where(and(eq(households.id, left.householdId!), eq(households.churchId, c.churchId)));
    expect(own!.name).toBe('Leaver');
  });

  it('POST /household/:id answers 404 for another church’s household or person, 400 without a person id', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const mine = await addPerson(t, c.churchId);
    const theirs = await addPerson(t, other.churchId);
    const token = c.token(['People.Edit']);
    expect((await call(t.app, 'POST', `/membership/people/household/${theirs.householdId}`, { token, body: [{ id: mine.id }] })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/membership/people/household/${mine.householdId}`, { token, body: [{ id: theirs.id }] })).statusCode).toBe(404);
    expect((await dbPerson(theirs.id))!.householdId).toBe(theirs.householdId);
    const bad = await call(t.app, 'POST', `/membership/people/household/${mine.householdId}`, { token, body: [{ householdRole: 'Head' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('[0].personId');
  });
});
