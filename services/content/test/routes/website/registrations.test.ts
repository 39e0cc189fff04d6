import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';
import { fakeGiving, registrableEvent } from './registration-fakes';

const giving = fakeGiving();
const t = useContent({ routes: giving.routes });

type Rec = { entityType: string; entityId: string; action: string; event?: string; data?: Record<string, unknown> };
const changes = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Rec[] }).records);
const guest = (n: number) => ({ firstName: 'Guest', lastName: `No${n}`, email: `guest${n}@example.test` });

describe('POST /content/registrations/register', () => {
  it('registers a member (token) or the person B1App names signed out, once; reported as registration.created', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const me = t.membership.addPerson(c.churchId);
    const member = c.tokenOf(me);
    const reg = await ok(t.app, 'POST', '/content/registrations/register', {
      token: member,
      body: { churchId: c.churchId, eventId: event.id, members: [{ firstName: 'Ann', lastName: 'Lee', registrationTypeId: '' }] },
    });
    expect(reg).toMatchObject({ eventId: event.id, churchId: c.churchId, personId: me, status: 'confirmed', totalAmount: 0, amountPaid: 0, couponId: null, guestEmail: null });
    expect(reg.members).toEqual([expect.objectContaining({ registrationId: reg.id, firstName: 'Ann', lastName: 'Lee', personId: null, registrationTypeId: null })]);
    expect(reg.householdId).toEqual(expect.any(String));
    await t.drain();
    const created = changes().find((r) => r.entityId === reg.id)!;
    expect(created).toMatchObject({ entityType: 'registration', action: 'created', event: 'registration.created', data: { id: reg.id, status: 'confirmed', members: [expect.objectContaining({ firstName: 'Ann' })] } });

    // Once per person: again with the token, or signed out as B1App's wizard posts it.
    const again = await call(t.app, 'POST', '/content/registrations/register', { token: member, body: { eventId: event.id } });
    expect(again.statusCode).toBe(409);
    expect((await call(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, personId: me } })).statusCode).toBe(409);
    const other = t.membership.addPerson(c.churchId, 'Bob');
    const anon = await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, personId: other } });
    expect(anon).toMatchObject({ personId: other, status: 'confirmed' });
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}/count?churchId=${c.churchId}`)).count).toBe(2);
  });

  it('takes guests signed out, refuses unknown people, other people without Content.Edit and other churches', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const g = await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, guestInfo: { ...guest(1), phone: '' } } });
    expect(g).toMatchObject({ personId: null, guestFirstName: 'Guest', guestLastName: 'No1', guestEmail: 'guest1@example.test', guestPhone: null, status: 'confirmed' });
    const stranger = await call(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, personId: randomUUID() } });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json().errors[0]).toMatchObject({ param: 'personId' });
    const someoneElse = t.membership.addPerson(c.churchId, 'Cy');
    expect((await call(t.app, 'POST', '/content/registrations/register', { token: c.anyone, body: { eventId: event.id, personId: someoneElse } })).statusCode).toBe(401);
    expect(await ok(t.app, 'POST', '/content/registrations/register', { token: c.editor, body: { churchId: c.churchId, eventId: event.id, personId: someoneElse } })).toMatchObject({ personId: someoneElse });
    // Another church's staff: the event is not theirs (their token's church wins over the body's).
    const foreign = await call(t.app, 'POST', '/content/registrations/register', { token: church().editor, body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(2) } });
    expect(foreign.statusCode).toBe(404);
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor })).length).toBe(2);
  });

  it('members name only people of the registering church, on sign-up and on edit; nothing is written otherwise', async () => {
    const c = church();
    const other = church();
    const event = await registrableEvent(t, c.editor);
    const me = t.membership.addPerson(c.churchId);
    const kid = t.membership.addPerson(c.churchId, 'Kid');
    const theirs = t.membership.addPerson(other.churchId, 'Theirs');
    const bodies = [
      { token: c.tokenOf(me), body: { eventId: event.id, members: [{ firstName: 'Ann', personId: me }, { firstName: 'X', personId: theirs }] }, param: 'members[1].personId' },
      { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(3), members: [{ firstName: 'X', personId: theirs }] }, param: 'members[0].personId' },
      { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(4), members: [{ firstName: 'Y', personId: randomUUID() }] }, param: 'members[0].personId' },
    ];
    for (const { token, body, param } of bodies) {
      const res = await call(t.app, 'POST', '/content/registrations/register', { token, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param });
    }
    expect(await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor })).toEqual([]);
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(me), body: { eventId: event.id, members: [{ firstName: 'Ann', personId: me }, { firstName: 'Kid', personId: kid }] } });
    expect(reg.members.map((m: { personId: string }) => m.personId)).toEqual([me, kid]);
    const edit = await call(t.app, 'PUT', `/content/registrations/${reg.id}`, { token: c.tokenOf(me), body: { members: [{ firstName: 'X', personId: theirs }] } });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().errors[0]).toMatchObject({ param: 'members[0].personId' });
    expect((await ok(t.app, 'GET', `/content/registrations/${reg.id}`, { token: c.tokenOf(me) })).members.map((m: { personId: string }) => m.personId)).toEqual([me, kid]);
  });

  it('validates the body and the event: 400 with the field, never a 500', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const post = (body: unknown) => call(t.app, 'POST', '/content/registrations/register', { body });
    const param = async (body: unknown) => {
      const res = await post(body);
      expect(res.statusCode).toBe(400);
      return res.json().errors[0].param;
    };
    expect(await param({ churchId: c.churchId, eventId: 'nope', guestInfo: guest(1) })).toBe('eventId');
    expect(await param({ eventId: event.id, guestInfo: guest(1) })).toBe('churchId');
    expect(await param({ churchId: c.churchId, eventId: event.id })).toBe('guestInfo');
    expect(await param({ churchId: c.churchId, eventId: event.id, guestInfo: { ...guest(1), email: 'not-an-email' } })).toBe('guestInfo.email');
    expect(await param({ churchId: c.churchId, eventId: event.id, guestInfo: guest(1), members: [{ firstName: 'A', registrationTypeId: randomUUID() }] })).toBe('members[0].registrationTypeId');
    expect(await param({ churchId: c.churchId, eventId: event.id, guestInfo: guest(1), selections: [{ selectionId: randomUUID() }] })).toBe('selections[0].selectionId');
    expect(await param({ churchId: c.churchId, eventId: event.id, guestInfo: guest(1), couponCode: 'NOPE' })).toBe('couponCode');
    const closed = await registrableEvent(t, c.editor, { registrationCloseDate: new Date(Date.now() - 86_400_000).toISOString() });
    expect((await post({ churchId: c.churchId, eventId: closed.id, guestInfo: guest(1) })).json().errors[0]).toMatchObject({ msg: 'Registration has closed', param: 'eventId' });
    const off = await registrableEvent(t, c.editor, { registrationEnabled: false });
    expect((await post({ churchId: c.churchId, eventId: off.id, guestInfo: guest(1) })).statusCode).toBe(400);
    expect((await post({ churchId: c.churchId, eventId: randomUUID(), guestInfo: guest(1) })).statusCode).toBe(404);
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor })).length).toBe(0);
  });
});

describe('capacity under concurrency', () => {
  const twenty = (churchId: string, eventId: string) =>
    Promise.all(Array.from({ length: 20 }, (_, i) => call(t.app, 'POST', '/content/registrations/register', { body: { churchId, eventId, guestInfo: guest(i) } })));

  it('20 sign-ups at once for 5 places: exactly 5 registered, 15 refused (no wait list)', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 5 });
    const answers = await twenty(c.churchId, event.id);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(15);
    expect(refused[0]!.json().errors).toEqual(['Event is at capacity']);
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}/count?churchId=${c.churchId}`)).count).toBe(5);
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor })).length).toBe(5);
  });

  it('20 sign-ups at once for 5 places with a wait list: 5 confirmed, 15 wait-listed in order', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 5, waitlistEnabled: true });
    const answers = await twenty(c.churchId, event.id);
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const statuses = answers.map((r) => r.json().status as string);
    expect(statuses.filter((s) => s === 'confirmed')).toHaveLength(5);
    expect(statuses.filter((s) => s === 'waitlisted')).toHaveLength(15);
    const list = await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor });
    expect(list.filter((r: { status: string }) => r.status === 'confirmed')).toHaveLength(5);
    expect((await ok(t.app, 'GET', `/content/registrations/event/${event.id}/count?churchId=${c.churchId}`)).count).toBe(5);
  });
});

describe('GET /content/registrations/event/:eventId/count (public)', () => {
  it('needs the church and answers 404 for an event of another church', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    expect((await call(t.app, 'GET', `/content/registrations/event/${event.id}/count`)).json().errors[0]).toMatchObject({ param: 'churchId', location: 'query' });
    expect((await call(t.app, 'GET', `/content/registrations/event/${event.id}/count?churchId=${randomUUID()}`)).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', `/content/registrations/event/${event.id}/count?churchId=${c.churchId}`)).toEqual({ count: 0 });
  });
});
