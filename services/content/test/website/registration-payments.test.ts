import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../setup';
import { church, ok } from './helpers';
import { fakeModules, registrableEvent } from './registration-fakes';

const modules = fakeModules();
const t = useContent({ overrides: { internal: modules.internal } });

const card = { provider: 'stripe', token: 'pm_card_visa', type: 'card' };

/** An event with an adult ($25.00) and a child ($10.50) type, a T-shirt ($7.25) and a 12.5% code. */
async function pricedEvent(editor: string, settings: Record<string, unknown> = {}) {
  const event = await registrableEvent(t.app, editor, settings);
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
    const me = modules.addPerson(c.churchId);
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
    const [charge] = modules.charges().filter((b) => b.registrationId === reg.id);
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
    modules.giving.next = 'declined';
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
    const me = modules.addPerson(c.churchId, 'Dee');
    const reg = await ok(t.app, 'POST', '/content/registrations/register', {
      token: c.editor,
      body: { churchId: c.churchId, eventId: p.event.id, personId: me, members: [{ firstName: 'Dee', registrationTypeId: p.adult }] },
    });
    expect(reg).toMatchObject({ status: 'pending', totalAmount: 25, amountPaid: 0 });
    const member = c.tokenOf(me);
    // Someone else of the church may not pay it; another church does not find it.
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.anyone, body: card })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: church().editor, body: card })).statusCode).toBe(404);

    const before = modules.distinctCharges();
    modules.giving.next = 'lost';
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: member, body: card })).statusCode).toBe(502);
    const paid = await ok(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: member, body: card });
    expect(paid).toMatchObject({ status: 'confirmed', amountPaid: 25, totalAmount: 25 });
    expect(modules.distinctCharges()).toBe(before + 1);
    const keys = modules.charges().filter((b) => b.registrationId === reg.id).map((b) => [b.idempotencyKey, b.amount]);
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
    const me = modules.addPerson(c.churchId, 'Eve');
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(me), body: { eventId: p.event.id, members: [{ firstName: 'Eve', registrationTypeId: p.adult }] } });
    modules.giving.next = 'declined';
    expect((await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: card })).statusCode).toBe(400);
    modules.giving.next = '3ds';
    const pending = await ok(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: card });
    expect(pending).toMatchObject({ status: 'pending', amountPaid: 0, payment: { status: 'requires_action', clientSecret: 'pi_secret_3ds' } });
    const keys = modules.charges().filter((b) => b.registrationId === reg.id).map((b) => b.idempotencyKey);
    expect(keys).toEqual([`registration:${reg.id}:0`, `registration:${reg.id}:1`]);
    const bad = await call(t.app, 'POST', `/content/registrations/${reg.id}/pay`, { token: c.tokenOf(me), body: { gatewayId: 'x' } });
    expect(bad.json().errors[0]).toMatchObject({ param: 'gatewayId' });
  });
});

describe('PUT /content/registrations/:id (B1App edit)', () => {
  it('replaces members and extras under the places rules and prices again; own or staff only', async () => {
    const c = church();
    const p = await pricedEvent(c.editor);
    const me = modules.addPerson(c.churchId, 'Fay');
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
    const other = await ok(t.app, 'POST', '/content/registrations/register', { token: c.editor, body: { eventId: p.event.id, personId: modules.addPerson(c.churchId), members: [{ firstName: 'O', registrationTypeId: p.adult }] } });
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
    const event = await registrableEvent(t.app, c.editor, { capacity: 1, waitlistEnabled: true });
    const [a, b, d] = [modules.addPerson(c.churchId), modules.addPerson(c.churchId), modules.addPerson(c.churchId)];
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
    const event = await registrableEvent(t.app, c.editor, { capacity: 2, waitlistEnabled: true });
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
    const event = await registrableEvent(t.app, c.editor, { capacity: 0, waitlistEnabled: true });
    const a = modules.addPerson(c.churchId);
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
