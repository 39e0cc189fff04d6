import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { registrations } from '../../../src/db/registrations';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';
import { fakeGiving, registrableEvent } from './registration-fakes';

const giving = fakeGiving();
const t = useContent({ routes: giving.routes });

const card = { provider: 'stripe', token: 'pm_card_visa', type: 'card' };

/** An event with an adult ($25.00) and a child ($10.50) type, a T-shirt ($7.25) and a 12.5% code. */
async function pricedEvent(editor: string, settings: Record<string, unknown> = {}) {
  const event = await registrableEvent(t, editor, settings);
  const [adult, child] = await ok(t.app, 'POST', '/content/registrations/types', {
    token: editor,
    body: [
      { id: '', eventId: event.id, name: 'Adult', price: 25, capacity: null, sort: 1 },
      { eventId: event.id, name: 'Child', price: 10.5, capacity: 1, sort: 2 },
    ],
  });
  const [shirt] = await ok(t.app, 'POST', '/content/registrations/selections', { token: editor, body: [{ eventId: event.id, name: 'T-shirt', price: 7.25, maxQuantity: 3 }] });
  await ok(t.app, 'POST', '/content/registrations/coupons', { token: editor, body: [{ eventId: event.id, code: 'Family', discountType: 'percent', value: 12.5 }] });
  return { event, adult: adult.id as string, child: child.id as string, shirt: shirt.id as string };
}

describe('paid registrations', () => {
  it('prices on the server in cents, charges giving once with decimal text and records the payment', async () => {
    const c = church();
    const p = await pricedEvent(c.editor);
    const me = t.membership.addPerson(c.churchId);
    const reg = await ok(t.app, 'POST', '/content/registrations/register', {
      body: {
        churchId: c.churchId,
        eventId: p.event.id,
        personId: me,
        members: [
          { firstName: 'Ann', lastName: 'Lee', registrationTypeId: p.adult },
          { firstName: 'Kid', lastName: 'Lee', registrationTypeId: p.child },
        ],
        selections: [{ selectionId: p.shirt, quantity: 2 }],
        couponCode: 'FAMILY',
        ...card,
      },
    });
    // 25.00 + 10.50 + 2 × 7.25 = 50.00, less 12.5% = 43.75
    expect(reg).toMatchObject({ status: 'confirmed', totalAmount: 43.75, amountPaid: 43.75, personId: me });
    const [charge] = giving.charges(t.internal.calls).filter((b) => b.registrationId === reg.id);
    expect(charge).toMatchObject({ churchId: c.churchId, amount: '43.75', personId: me, email: 'ann@example.test', name: 'Ann Lee', provider: 'stripe', token: 'pm_card_visa', type: 'card', idempotencyKey: `registration:${reg.id}:0` });
    const detail = await ok(t.app, 'GET', `/content/registrations/${reg.id}`, { token: c.tokenOf(me) });
    expect(detail.payments).toEqual([expect.objectContaining({ amount: 43.75, status: 'succeeded', provider: 'stripe', transactionId: expect.stringMatching(/^pi_/), kind: 'charge' })]);
    expect(detail.selectionChoices).toEqual([expect.objectContaining({ selectionId: p.shirt, quantity: 2 })]);
    expect(detail.event).toMatchObject({ id: p.event.id, title: 'Family Camp' });

    // The child type had one place: a second child is refused, and nothing is charged for it.
    const full = await call(t.app, 'POST', '/content/registrations/register', {
      body: { churchId: c.churchId, eventId: p.event.id, guestInfo: { firstName: 'G', lastName: 'H', email: 'g@example.test' }, members: [{ firstName: 'Kid2', registrationTypeId: p.child }], ...card },
    });
    expect(full.statusCode).toBe(409);
    expect(full.json().errors).toEqual(['Attendee type is at capacity']);
    // The types the wizard reads show it.
    const types = await ok(t.app, 'GET', `/content/registrations/types/event/${p.event.id}?churchId=${c.churchId}`);
    expect(types.map((x: { name: string; price: number; remainingCapacity: number | null }) => [x.name, x.price, x.remainingCapacity])).toEqual([
      ['Adult', 25, null],
      ['Child', 10.5, 0],
    ]);
  });

  it('a refused card removes the registration again (its place freed) and answers giving 400', async () => {
    const c = church();
    const p = await pricedEvent(c.editor, { capacity: 1 });
    giving.state.next = 'declined';
    const res = await call(t.app, 'POST', '/content/registrations/register', {
      body: { churchId: c.churchId, eventId: p.event.id, guestInfo: { firstName: 'G', lastName: 'H', email: 'g@example.test' }, members: [{ firstName: 'G', registrationTypeId: p.adult }], ...card },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ msg: 'Your card was declined.' });
    expect((await ok(t.app, 'GET', `/content/registrations/event/${p.event.id}/count?churchId=${c.churchId}`)).count).toBe(0);
    expect(await ok(t.app, 'GET', `/content/registrations/event/${p.event.id}`, { token: c.editor })).toEqual([]);
  });

  it('a staff sign-up leaves the balance due; a retried pay after a lost answer is charged once', async () => {
    const c = church();
    const p = await pricedEvent(c.editor);
    const me = t.membership.addPerson(c.churchId, 'Dee');
    const reg = await ok(t.app, 'POST', '/content/registrations/register', {
      token: c.editor,
      body: { churchId: c.churchId, eventId: p.event.id, personId: me, members: [{ firstName: 'Dee', registrationTypeId: p.adult }] },
    });
    expect(reg).toMatchObject({ status: 'pending', totalAmount: 25, amountPaid: 0 });
    const member = c.tokenOf(me);
    // Someone else of the church may not pay it; another church does not find it.
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.anyone, body: card })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: church().editor, body: card })).statusCode).toBe(404);

    const before = giving.distinctCharges();
    giving.state.next = 'lost';
    const lost = await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: member, body: card });
    expect(lost.statusCode).toBe(503);
    expect(lost.headers['retry-after']).toBe('30');
    expect(lost.json()).toMatchObject({ registrationId: reg.id });
    const paid = await ok(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: member, body: card });
    expect(paid).toMatchObject({ status: 'confirmed', amountPaid: 25, totalAmount: 25 });
    expect(giving.distinctCharges()).toBe(before + 1);
    const keys = giving.charges(t.internal.calls).filter((b) => b.registrationId === reg.id).map((b) => [b.idempotencyKey, b.amount]);
    expect(keys).toEqual([
      [`registration:${reg.id}:0`, '25.00'],
      [`registration:${reg.id}:0`, '25.00'],
    ]);
    const again = await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: member, body: card });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors[0]).toMatchObject({ msg: 'No balance due' });
    expect((await ok(t.app, 'GET', `/content/registrations/${reg.id}`, { token: c.editor })).payments).toHaveLength(1);
  });

  it('a declined pay advances the attempt (a new card is a new charge); 3-D Secure hands the client secret back', async () => {
    const c = church();
    const p = await pricedEvent(c.editor);
    const me = t.membership.addPerson(c.churchId, 'Eve');
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(me), body: { eventId: p.event.id, members: [{ firstName: 'Eve', registrationTypeId: p.adult }] } });
    giving.state.next = 'declined';
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: card })).statusCode).toBe(400);
    giving.state.next = '3ds';
    const pending = await ok(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: card });
    expect(pending).toMatchObject({ status: 'pending', amountPaid: 0, payment: { status: 'requires_action', clientSecret: 'pi_secret_3ds' } });
    const keys = giving.charges(t.internal.calls).filter((b) => b.registrationId === reg.id).map((b) => b.idempotencyKey);
    expect(keys).toEqual([`registration:${reg.id}:0`, `registration:${reg.id}:1`]);
    const bad = await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: { gatewayId: 'x' } });
    expect(bad.json().errors[0]).toMatchObject({ param: 'gatewayId' });
  });
});

describe('PUT /content/registrations/:id (B1App edit)', () => {
  it('replaces members and extras under the places rules and prices again; own or staff only', async () => {
    const c = church();
    const p = await pricedEvent(c.editor);
    const me = t.membership.addPerson(c.churchId, 'Fay');
    const mine = c.tokenOf(me);
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { token: mine, body: { eventId: p.event.id, members: [{ firstName: 'Fay', registrationTypeId: p.adult }], ...card } });
    expect(reg).toMatchObject({ status: 'confirmed', totalAmount: 25, amountPaid: 25 });
    const put = (token: string, body: unknown) => call(t.app, 'PUT', `/content/registrations/${reg.id}`, { token, body });
    const edited = await put(mine, {
      members: [
        { firstName: 'Fay', lastName: 'Lee', registrationTypeId: p.adult },
        { firstName: 'Kid', lastName: 'Lee', registrationTypeId: p.child },
      ],
      selections: [{ selectionId: p.shirt, quantity: 1 }],
    });
    expect(edited.statusCode).toBe(200);
    // 25.00 + 10.50 + 7.25: a balance of 17.75 is due, nothing charged
    expect(edited.json()).toMatchObject({ totalAmount: 42.75, amountPaid: 25, status: 'confirmed', members: [expect.anything(), expect.anything()], selectionChoices: [expect.objectContaining({ quantity: 1 })] });
    // The one child place is this registration's own: saving it again keeps it.
    expect((await put(mine, { members: [{ firstName: 'Kid', registrationTypeId: p.child }] })).json()).toMatchObject({ totalAmount: 17.75 });
    const other = await ok(t.app, 'POST', '/content/registrations/register', { token: c.editor, body: { eventId: p.event.id, personId: t.membership.addPerson(c.churchId), members: [{ firstName: 'O', registrationTypeId: p.adult }] } });
    const full = await call(t.app, 'PUT', `/content/registrations/${other.id}`, { token: c.editor, body: { members: [{ firstName: 'O', registrationTypeId: p.child }] } });
    expect(full.statusCode).toBe(409);
    expect((await ok(t.app, 'GET', `/content/registrations/${other.id}`, { token: c.editor })).members).toEqual([expect.objectContaining({ firstName: 'O', registrationTypeId: p.adult })]);
    expect((await put(c.anyone, { members: [] })).statusCode).toBe(401);
    expect((await put(church().editor, { members: [] })).statusCode).toBe(404);
    expect((await put(mine, { selections: [{ selectionId: p.shirt, quantity: 9 }] })).json().errors[0]).toMatchObject({ param: 'selections[0].quantity' });
  });
});

describe('wait list', () => {
  it('cancel frees a place for the first of the wait list, who is told; staff promote and delete', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 1, waitlistEnabled: true });
    const [a, b, d] = [t.membership.addPerson(c.churchId), t.membership.addPerson(c.churchId), t.membership.addPerson(c.churchId)];
    const first = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(a), body: { eventId: event.id } });
    const second = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(b), body: { eventId: event.id } });
    const third = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(d), body: { eventId: event.id } });
    expect([first.status, second.status, third.status]).toEqual(['confirmed', 'waitlisted', 'waitlisted']);

    expect((await call(t.app, 'POST', `/content/registrations/${second.id}/promote`, { token: c.editor })).statusCode).toBe(409);
    expect((await call(t.app, 'POST', `/content/registrations/${second.id}/promote`, { token: c.tokenOf(b) })).statusCode).toBe(401);
    // Only the registrant (or staff) cancels.
    expect((await call(t.app, 'POST', `/content/registrations/${first.id}/cancel`, { token: c.tokenOf(b) })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/registrations/${first.id}/cancel`, { token: church().editor })).statusCode).toBe(404);
    const cancelled = await ok(t.app, 'POST', `/content/registrations/${first.id}/cancel`, { token: c.tokenOf(a) });
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledDate: expect.any(String) });
    expect((await call(t.app, 'POST', `/content/registrations/${first.id}/cancel`, { token: c.tokenOf(a) })).statusCode).toBe(400);
    const mine = await ok(t.app, 'GET', `/content/registrations/person/${b}`, { token: c.tokenOf(b) });
    expect(mine).toEqual([expect.objectContaining({ id: second.id, status: 'confirmed', waitlistNotifiedDate: expect.any(String), event: expect.objectContaining({ title: 'Family Camp' }) })]);
    await t.drain();
    const told = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople').map((j) => j.data as { personIds: string[]; contentId: string });
    expect(told).toContainEqual(expect.objectContaining({ personIds: [b], contentId: second.id }));

    // Staff delete the confirmed one: the next takes the place. A cancelled person may register again.
    expect((await call(t.app, 'DELETE', `/content/registrations/${second.id}`, { token: c.tokenOf(b) })).statusCode).toBe(401);
    expect(await ok(t.app, 'DELETE', `/content/registrations/${second.id}`, { token: c.editor })).toEqual({});
    expect((await ok(t.app, 'GET', `/content/registrations/${third.id}`, { token: c.tokenOf(d) })).status).toBe('confirmed');
    expect((await call(t.app, 'GET', `/content/registrations/${second.id}`, { token: c.editor })).statusCode).toBe(404);
    const back = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(a), body: { eventId: event.id } });
    expect(back.status).toBe('waitlisted');
    expect((await ok(t.app, 'DELETE', `/content/registrations/${third.id}`, { token: c.editor }))).toEqual({});
    expect((await ok(t.app, 'GET', `/content/registrations/${back.id}`, { token: c.tokenOf(a) })).status).toBe('confirmed');
  });

  it('a freed place goes to the first wait-listed registration whose attendee types still have room', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 2, waitlistEnabled: true });
    const [kids] = await ok(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ eventId: event.id, name: 'Child', capacity: 1 }] });
    const reg = (n: number, typed: boolean) =>
      ok(t.app, 'POST', '/content/registrations/register', {
        body: { churchId: c.churchId, eventId: event.id, guestInfo: { firstName: 'G', lastName: `${n}`, email: `g${n}@example.test` }, members: [{ firstName: 'M', registrationTypeId: typed ? kids.id : null }] },
      });
    const withKid = await reg(1, true);
    const plain = await reg(2, false);
    const waitingKid = await reg(3, true);
    const waitingPlain = await reg(4, false);
    expect([withKid.status, plain.status, waitingKid.status, waitingPlain.status]).toEqual(['confirmed', 'confirmed', 'waitlisted', 'waitlisted']);
    await ok(t.app, 'POST', `/content/registrations/${plain.id}/cancel`, { token: c.editor });
    // The child type is still full: the second in line takes the place.
    expect((await ok(t.app, 'GET', `/content/registrations/${waitingKid.id}`, { token: c.editor })).status).toBe('waitlisted');
    expect((await ok(t.app, 'GET', `/content/registrations/${waitingPlain.id}`, { token: c.editor })).status).toBe('confirmed');
    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: event.id, capacity: 3 }] });
    const refused = await call(t.app, 'POST', `/content/registrations/${waitingKid.id}/promote`, { token: c.editor });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors).toEqual(['Attendee type is at capacity']);
  });

  it('staff promote a wait-listed registration when a place is free; a person reads only their own list', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 0, waitlistEnabled: true });
    const a = t.membership.addPerson(c.churchId);
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(a), body: { eventId: event.id } });
    expect(reg.status).toBe('waitlisted');
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(a), body: card })).statusCode).toBe(400);
    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: event.id, capacity: 2 }] });
    expect(await ok(t.app, 'POST', `/content/registrations/${reg.id}/promote`, { token: c.editor })).toMatchObject({ id: reg.id, status: 'confirmed' });
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/promote`, { token: c.editor })).statusCode).toBe(400);
    expect((await call(t.app, 'GET', `/content/registrations/person/${a}`, { token: c.anyone })).statusCode).toBe(401);
    expect(await ok(t.app, 'GET', `/content/registrations/person/${a}`, { token: church().editor })).toEqual([]);
    expect((await call(t.app, 'GET', `/content/registrations/${randomUUID()}`, { token: c.editor })).statusCode).toBe(404);
  });
});

describe('priced events (a registration used to be confirmed for $0)', () => {
  /** An event whose only attendee type costs 150.00, with one place. */
  async function campAt150(c: ReturnType<typeof church>) {
    const event = await registrableEvent(t, c.editor, { capacity: 1 });
    const [type] = await ok(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ eventId: event.id, name: 'Camper', price: 150 }] });
    return { event, type: type.id as string };
  }
  const guest = { guestInfo: { firstName: 'Gus', lastName: 'Guest', email: 'gus@example.test' } };
  const count = async (c: { churchId: string }, eventId: string) => (await ok(t.app, 'GET', `/content/registrations/event/${eventId}/count?churchId=${c.churchId}`)).count;

  it('takes every attendee with a type, prices on the server and confirms nothing before it is paid', async () => {
    const c = church();
    const { event, type } = await campAt150(c);
    const me = t.membership.addPerson(c.churchId);
    const tries = [
      { body: { churchId: c.churchId, eventId: event.id, ...guest, members: [{ firstName: 'Gus' }] }, param: 'members[0].registrationTypeId' },
      { body: { churchId: c.churchId, eventId: event.id, ...guest }, param: 'members' },
      { body: { eventId: event.id }, token: c.tokenOf(me), param: 'members' },
      { body: { churchId: c.churchId, eventId: event.id, ...guest, members: [{ firstName: 'A', registrationTypeId: type }, { firstName: 'B' }] }, param: 'members[1].registrationTypeId' },
    ];
    for (const { body, token, param } of tries) {
      const res = await call(t.app, 'POST', '/content/registrations/register', { body, token });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param });
    }
    expect(await count(c, event.id)).toBe(0);
    expect(await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor })).toEqual([]);
    // with its type: 150.00 due, pending (holding the place for a while), with the key to pay it signed out
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, ...guest, members: [{ firstName: 'Gus', registrationTypeId: type }] } });
    expect(reg).toMatchObject({ status: 'pending', totalAmount: 150, amountPaid: 0, payKey: expect.any(String) });
    expect(Date.parse(reg.holdUntil) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(await count(c, event.id)).toBe(1);
    // an edit may not drop the type again
    const edit = await call(t.app, 'PUT', `/content/registrations/${reg.id}`, { token: c.editor, body: { members: [{ firstName: 'Gus' }] } });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().errors[0]).toMatchObject({ param: 'members[0].registrationTypeId' });
    // paid signed out with its key: confirmed, no longer held by time
    const paid = await ok(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { body: { ...card, payKey: reg.payKey } });
    expect(paid).toMatchObject({ status: 'confirmed', amountPaid: 150, holdUntil: null });
    expect(paid.payKey).toBeUndefined();
  });

  it('giving unreachable: 503 with Retry-After and the registration, whose payment is retried; an unpaid hold runs out', async () => {
    const c = church();
    const { event, type } = await campAt150(c);
    const sign = { churchId: c.churchId, eventId: event.id, ...guest, members: [{ firstName: 'Gus', registrationTypeId: type }], ...card };
    giving.state.down = true;
    let res;
    try {
      res = await call(t.app, 'POST', '/content/registrations/register', { body: sign });
    } finally {
      giving.state.down = false;
    }
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    const down = res.json();
    expect(down).toMatchObject({ registrationId: expect.any(String), payKey: expect.any(String), holdUntil: expect.any(String) });
    expect(down.errors[0]).toMatch(/retry the payment/);
    const [held] = await ok(t.app, 'GET', `/content/registrations/event/${event.id}`, { token: c.editor });
    expect(held).toMatchObject({ id: down.registrationId, status: 'pending', amountPaid: 0 });
    // signed out: the key is needed, and only this registration's
    expect((await call(t.app, 'POST', `/content/registrations/${down.registrationId}/pay`, { body: card })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/registrations/${randomUUID()}/pay`, { body: { ...card, payKey: down.payKey } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/registrations/${down.registrationId}/pay`, { body: { ...card, payKey: 'v1.forged.key.x' } })).statusCode).toBe(401);
    const paid = await ok(t.app, 'POST', `/content/registrations/${down.registrationId}/pay`, { body: { ...card, payKey: down.payKey } });
    expect(paid).toMatchObject({ id: down.registrationId, status: 'confirmed', amountPaid: 150 });
    expect(giving.charges(t.internal.calls).filter((b) => b.registrationId === down.registrationId).map((b) => b.idempotencyKey)).toEqual([
      `registration:${down.registrationId}:0`,
      `registration:${down.registrationId}:0`,
    ]);

    // Another event: a hold that ran out no longer counts, is released when the next person signs up, and
    // cannot be paid any more; its place went to the newcomer.
    const second = await campAt150(c);
    const first = await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: second.event.id, ...guest, members: [{ firstName: 'Gus', registrationTypeId: second.type }] } });
    expect(first.status).toBe('pending');
    await t.app.db.update(registrations).set({ holdUntil: new Date(Date.now() - 1000) }).where(eq(registrations.id, first.id));
    expect(await count(c, second.event.id)).toBe(0);
    const next = await ok(t.app, 'POST', '/content/registrations/register', {
      body: { churchId: c.churchId, eventId: second.event.id, guestInfo: { firstName: 'Nia', lastName: 'New', email: 'nia@example.test' }, members: [{ firstName: 'Nia', registrationTypeId: second.type }] },
    });
    expect(next.status).toBe('pending');
    const list = await ok(t.app, 'GET', `/content/registrations/event/${second.event.id}`, { token: c.editor });
    expect(list.find((r: { id: string }) => r.id === first.id)).toMatchObject({ status: 'cancelled', holdUntil: null });
    const late = await call(t.app, 'POST', `/content/registrations/${first.id}/pay`, { body: { ...card, payKey: first.payKey } });
    expect(late.statusCode).toBe(400);
    // a hold that ran out while its place is still free is renewed by its payment
    await t.app.db.update(registrations).set({ holdUntil: new Date(Date.now() - 1000) }).where(eq(registrations.id, next.id));
    expect(await ok(t.app, 'POST', `/content/registrations/${next.id}/pay`, { body: { ...card, payKey: next.payKey } })).toMatchObject({ status: 'confirmed', amountPaid: 150 });
  });
});
