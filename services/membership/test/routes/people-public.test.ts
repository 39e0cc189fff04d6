import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, readMailbox } from '@church/common/testing';
import { households, people } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addPerson, signedCall } from './fixtures';

const t = useMembership();

describe('POST /membership/people/loadOrCreate', () => {
  const load = (body: unknown) => call(t.app, 'POST', '/membership/people/loadOrCreate', { body });

  it('finds the person by email, case-insensitively, answering no private details', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { firstName: 'Fay', lastName: 'Found', displayName: 'Fay Found', email: 'Fay@Example.org', mobilePhone: '555', address1: 'Secret 1' });
    const res = await load({ churchId: c.churchId, email: 'fay@EXAMPLE.org', firstName: 'Other', lastName: 'Name' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: p.id, name: { first: 'Fay', last: 'Found', display: 'Fay Found' }, contactInfo: { email: 'Fay@Example.org' }, membershipStatus: 'Member' });
  });

  it('creates a Guest person with a household when none has the email', async () => {
    const c = await makeChurch(t);
    const res = await load({ churchId: c.churchId, email: 'New@Example.org', firstName: 'Nia', lastName: 'New' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: expect.any(String), name: { first: 'Nia', last: 'New', display: 'Nia New' }, contactInfo: { email: 'new@example.org' }, membershipStatus: 'Guest' });
    const [row] = await t.app.db.select().from(people).where(eq(people.id, res.json().id));
    expect(row).toMatchObject({ churchId: c.churchId, householdRole: 'Head' });
    expect((await t.app.db.select().from(households).where(eq(households.id, row!.householdId!)))[0]!.name).toBe('New');
    expect((await load({ churchId: c.churchId, email: 'new@example.org' })).json().id).toBe(row!.id);
  });

  it('does not find another church’s person, and answers 404 for an unknown church', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = await addPerson(t, other.churchId, { email: 'theirs@example.org' });
    const res = await load({ churchId: c.churchId, email: 'theirs@example.org' });
    expect(res.json().id).not.toBe(theirs.id);
    expect((await load({ churchId: randomUUID(), email: 'x@example.org' })).statusCode).toBe(404);
  });

  it('validates the body', async () => {
    const res = await load({ churchId: randomUUID(), email: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'email', location: 'body' });
    expect((await load({ email: 'a@b.org' })).json().errors[0].param).toBe('churchId');
  });
});

describe('POST /membership/people/public/email', () => {
  const send = (body: unknown) => call(t.app, 'POST', '/membership/people/public/email', { body });

  it('queues a plain-text message to the person, escaped', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { email: `to-${randomUUID()}@example.org` });
    const res = await send({ churchId: c.churchId, personId: p.id, subject: 'Hello there', body: 'Line one\n<b>bold?</b>', appName: 'B1 App' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    await t.drain();
    const mail = readMailbox(t.config).filter((m) => m.to === p.email);
    expect(mail).toEqual([
      {
        to: p.email,
        from: 'no-reply@church.local',
        subject: 'Hello there',
        html: '<p>Line one<br>&lt;b&gt;bold?&lt;/b&gt;</p><p style="color:#666">Sent through B1 App</p>',
        text: expect.stringContaining('Line one'),
      },
    ]);
  });

  it('answers 404 when the person is not in that church, and sends nothing', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const p = await addPerson(t, other.churchId, { email: `nope-${randomUUID()}@example.org` });
    expect((await send({ churchId: c.churchId, personId: p.id, subject: 's', body: 'b' })).statusCode).toBe(404);
    await t.drain();
    expect(readMailbox(t.config).filter((m) => m.to === p.email)).toEqual([]);
  });

  it('answers 400 for a person without email or a missing subject', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { email: null });
    const noEmail = await send({ churchId: c.churchId, personId: p.id, subject: 's', body: 'b' });
    expect(noEmail.statusCode).toBe(400);
    expect(noEmail.json().errors[0].param).toBe('personId');
    const noSubject = await send({ churchId: c.churchId, personId: p.id, body: 'b' });
    expect(noSubject.json().errors[0].param).toBe('subject');
  });
});

describe('POST /membership/people/apiEmails (internal)', () => {
  it('answers the emails of the church’s people with those ids', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const a = await addPerson(t, c.churchId, { email: 'a@example.org' });
    const b = await addPerson(t, c.churchId, { email: null });
    const res = await signedCall(t, '/membership/people/apiEmails', { churchId: c.churchId, personIds: [a.id, b.id, other.personId] });
    expect(res.statusCode).toBe(200);
    expect(res.json().sort((x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id))).toEqual(
      [
        { id: a.id, email: 'a@example.org' },
        { id: b.id, email: null },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });

  it('refuses unsigned, mis-signed and JWT callers with 401', async () => {
    const c = await makeChurch(t);
    const body = { churchId: c.churchId, personIds: [c.personId] };
    expect((await call(t.app, 'POST', '/membership/people/apiEmails', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/people/apiEmails', { body, token: c.token('all') })).statusCode).toBe(401);
    expect((await signedCall(t, '/membership/people/apiEmails', body, 'wrong-secret-wrong-secret-wrong-secret')).statusCode).toBe(401);
  });
});

describe('POST /membership/internal/people/basic', () => {
  it('names the church’s people, removed ones included', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const gone = await addPerson(t, c.churchId, { firstName: 'Gone', lastName: 'Away', displayName: 'Gone Away', removed: true, photo: 'https://p/g.png' });
    const res = await signedCall(t, '/membership/internal/people/basic', { churchId: c.churchId, ids: [gone.id, other.personId] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: gone.id, displayName: 'Gone Away', firstName: 'Gone', lastName: 'Away', photo: 'https://p/g.png' }]);
  });

  it('refuses unsigned calls and validates ids', async () => {
    const c = await makeChurch(t);
    expect((await call(t.app, 'POST', '/membership/internal/people/basic', { body: { churchId: c.churchId, ids: [] } })).statusCode).toBe(401);
    const bad = await signedCall(t, '/membership/internal/people/basic', { churchId: c.churchId, ids: ['x'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('ids[0]');
  });
});
