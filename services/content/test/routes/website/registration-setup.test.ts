import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';
import { fakeGiving, registrableEvent, signed } from './registration-fakes';

const giving = fakeGiving();
const t = useContent({ routes: giving.routes });
const guest = (n: number) => ({ firstName: 'Guest', lastName: `No${n}`, email: `guest${n}@example.test` });

describe('POST /content/registrations/types, /selections, /coupons (B1Admin useEditableRowList)', () => {
  it('saves the posted list for staff in one go, read back by the wizard; validates; refuses others', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const saved = await ok(t.app, 'POST', '/content/registrations/types', {
      token: c.editor,
      body: [
        { id: '', churchId: c.churchId, eventId: event.id, name: 'Adult', price: 19.99, capacity: null, sort: 1, active: true },
        { eventId: event.id, name: 'Retired', price: null, sort: 2, active: false },
      ],
    });
    expect(saved).toEqual([
      { id: expect.any(String), churchId: c.churchId, eventId: event.id, name: 'Adult', description: null, price: 19.99, capacity: null, minAgeYears: null, maxAgeYears: null, formId: null, sort: 1, active: true },
      expect.objectContaining({ name: 'Retired', price: null, active: false }),
    ]);
    // The wizard sees the active ones only.
    expect((await ok(t.app, 'GET', `/content/registrations/types/event/${event.id}?churchId=${c.churchId}`)).map((x: { name: string }) => x.name)).toEqual(['Adult']);
    const [renamed] = await ok(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ ...saved[0], name: 'Grown-up', price: 20 }] });
    expect(renamed).toMatchObject({ id: saved[0].id, name: 'Grown-up', price: 20 });

    const bad = async (path: string, body: unknown) => {
      const res = await call(t.app, 'POST', path, { token: c.editor, body });
      expect(res.statusCode).toBe(400);
      return res.json().errors[0].param;
    };
    expect(await bad('/content/registrations/types', [{ eventId: event.id, name: 'X', price: 1.005 }])).toBe('[0].price');
    expect(await bad('/content/registrations/types', [{ eventId: event.id }])).toBe('[0].name');
    expect(await bad('/content/registrations/selections', [{ eventId: event.id, name: 'X', price: -1 }])).toBe('[0].price');
    expect(await bad('/content/registrations/coupons', [{ eventId: event.id, code: 'X', discountType: 'free' }])).toBe('[0].discountType');
    // An event of another church is not one of this church's.
    const foreign = await registrableEvent(t, church().editor);
    expect(await bad('/content/registrations/types', [{ eventId: foreign.id, name: 'X' }])).toBe('[0].eventId');

    expect((await call(t.app, 'POST', '/content/registrations/types', { token: c.anyone, body: [{ eventId: event.id, name: 'X' }] })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/registrations/types/${saved[0].id}`, { token: church().editor })).statusCode).toBe(404);
    expect(await ok(t.app, 'DELETE', `/content/registrations/types/${saved[0].id}`, { token: c.editor })).toEqual({});
    expect(await ok(t.app, 'GET', `/content/registrations/types/event/${event.id}?churchId=${c.churchId}`)).toEqual([]);
    expect((await call(t.app, 'GET', `/content/registrations/types/event/${event.id}?churchId=${randomUUID()}`)).statusCode).toBe(404);
  });

  it('lists the codes with their uses to staff only; the public check answers the reason the app translates', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    await ok(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ eventId: event.id, name: 'Adult', price: 40 }] });
    const [type] = await ok(t.app, 'GET', `/content/registrations/types/event/${event.id}?churchId=${c.churchId}`);
    const [once, pair, later] = await ok(t.app, 'POST', '/content/registrations/coupons', {
      token: c.editor,
      body: [
        { eventId: event.id, code: 'ONCE', discountType: 'amount', value: 15.5, maxUses: 1 },
        { eventId: event.id, code: 'PAIR', discountType: 'percent', value: 100, minMembers: 2 },
        { eventId: event.id, code: 'LATER', discountType: 'percent', value: 10, startDate: new Date(Date.now() + 86_400_000).toISOString() },
      ],
    });
    expect(once).toMatchObject({ code: 'ONCE', discountType: 'amount', value: 15.5, maxUses: 1, active: true });
    const check = (code: string, memberCount = 1) => ok(t.app, 'POST', '/content/registrations/coupons/validate', { body: { churchId: c.churchId, eventId: event.id, code, memberCount } });
    expect(await check('once')).toEqual({ valid: true, discountType: 'amount', value: 15.5 });
    expect(await check('PAIR')).toEqual({ valid: false, reason: 'min-members' });
    expect(await check('LATER')).toEqual({ valid: false, reason: 'not-started' });
    expect(await check('NONE')).toEqual({ valid: false, reason: 'not-found' });

    // 40.00 − 15.50 = 24.50, then the code is used up.
    const reg = await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(1), members: [{ firstName: 'G', registrationTypeId: type.id }], couponCode: 'once' } });
    expect(reg).toMatchObject({ status: 'pending', totalAmount: 24.5, couponId: once.id });
    expect(await check('ONCE')).toEqual({ valid: false, reason: 'max-uses' });
    // 100% off two people: free, so confirmed without a charge.
    const free = await ok(t.app, 'POST', '/content/registrations/register', {
      body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(2), members: [{ firstName: 'A', registrationTypeId: type.id }, { firstName: 'B', registrationTypeId: type.id }], couponCode: 'PAIR', provider: 'stripe', token: 'pm_x' },
    });
    expect(free).toMatchObject({ status: 'confirmed', totalAmount: 0 });
    expect(giving.charges(t.internal.calls).filter((b) => b.registrationId === free.id)).toEqual([]);

    const listed = await ok(t.app, 'GET', `/content/registrations/coupons/event/${event.id}`, { token: c.editor });
    expect(listed.map((x: { code: string; uses: number }) => [x.code, x.uses])).toEqual([
      ['LATER', 0],
      ['ONCE', 1],
      ['PAIR', 1],
    ]);
    expect((await call(t.app, 'GET', `/content/registrations/coupons/event/${event.id}`, { token: c.anyone })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/content/registrations/coupons/event/${event.id}`, { token: church().editor })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/registrations/coupons', { token: c.editor, body: [{ eventId: event.id, code: 'once' }] })).statusCode).toBe(409);
    expect(pair.id && later.id).toBeTruthy();
  });

  it('takes a percentage in integer cents, rounded half up, and never below zero', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const [type] = await ok(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ eventId: event.id, name: 'Adult', price: 10 }] });
    await ok(t.app, 'POST', '/content/registrations/coupons', {
      token: c.editor,
      body: [
        { eventId: event.id, code: 'THIRD', discountType: 'percent', value: 33.33 },
        { eventId: event.id, code: 'HALFCENT', discountType: 'percent', value: 0.05 },
        { eventId: event.id, code: 'BIG', discountType: 'amount', value: 25 },
      ],
    });
    const total = async (n: number, couponCode: string, people = 1) =>
      (
        await ok(t.app, 'POST', '/content/registrations/register', {
          body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(n), couponCode, members: Array.from({ length: people }, () => ({ firstName: 'M', registrationTypeId: type.id })) },
        })
      ).totalAmount;
    expect(await total(1, 'THIRD')).toBe(6.67); // 10.00 − 3.333 → 3.33
    expect(await total(2, 'HALFCENT')).toBe(9.99); // 10.00 × 0.05% = 0.005 → 0.01 (half up)
    expect(await total(3, 'BIG', 2)).toBe(0);
  });

  it('lists extras with the quantity left, and refuses more than an extra has', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor);
    const [meal] = await ok(t.app, 'POST', '/content/registrations/selections', { token: c.editor, body: { eventId: event.id, name: 'Meal', price: 12, capacity: 3, maxQuantity: 2 } });
    await ok(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(1), selections: [{ selectionId: meal.id, quantity: 2 }] } });
    expect(await ok(t.app, 'GET', `/content/registrations/selections/event/${event.id}?churchId=${c.churchId}`)).toEqual([
      expect.objectContaining({ id: meal.id, name: 'Meal', price: 12, capacity: 3, maxQuantity: 2, remainingCapacity: 1 }),
    ]);
    const tooMany = await call(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(2), selections: [{ selectionId: meal.id, quantity: 3 }] } });
    expect(tooMany.json().errors[0]).toMatchObject({ param: 'selections[0].quantity' });
    const soldOut = await call(t.app, 'POST', '/content/registrations/register', { body: { churchId: c.churchId, eventId: event.id, guestInfo: guest(3), selections: [{ selectionId: meal.id, quantity: 2 }] } });
    expect(soldOut.statusCode).toBe(409);
    expect(soldOut.json().errors).toEqual(['Selection is at capacity']);
  });
});

describe('GET /content/events/public/:churchId/:eventId', () => {
  it('answers a public event of the church with its public fields only; private or another church: 404', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 30, waitlistEnabled: true, description: 'Bring a tent', tags: 'camp' });
    const page = await ok(t.app, 'GET', `/content/events/public/${c.churchId}/${event.id}`);
    expect(page).toEqual({
      id: event.id,
      churchId: c.churchId,
      title: 'Family Camp',
      description: 'Bring a tent',
      start: expect.any(String),
      end: expect.any(String),
      allDay: false,
      recurrenceRule: null,
      registrationEnabled: true,
      capacity: 30,
      waitlistEnabled: true,
      registrationOpenDate: null,
      registrationCloseDate: null,
      tags: 'camp',
      formId: null,
    });
    expect((await call(t.app, 'GET', `/content/events/public/${randomUUID()}/${event.id}`)).statusCode).toBe(404);
    const hidden = await registrableEvent(t, c.editor, { visibility: 'private' });
    expect((await call(t.app, 'GET', `/content/events/public/${c.churchId}/${hidden.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/events/public/${c.churchId}/nope`)).json().errors[0]).toMatchObject({ param: 'eventId' });
  });
});

describe('POST /content/internal/events/registrations (messaging reminders)', () => {
  it('answers the registrants and attendees of pending and confirmed registrations, signed calls only', async () => {
    const c = church();
    const event = await registrableEvent(t, c.editor, { capacity: 2, waitlistEnabled: true });
    const [a, b, w] = [t.membership.addPerson(c.churchId), t.membership.addPerson(c.churchId), t.membership.addPerson(c.churchId)];
    const kid = t.membership.addPerson(c.churchId, 'Kid');
    await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(a), body: { eventId: event.id, members: [{ firstName: 'A', personId: a }, { firstName: 'Kid', personId: kid }, { firstName: 'Typed' }] } });
    await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(b), body: { eventId: event.id } });
    const waiting = await ok(t.app, 'POST', '/content/registrations/register', { token: c.tokenOf(w), body: { eventId: event.id } });
    expect(waiting.status).toBe('waitlisted');
    const body = { churchId: c.churchId, eventId: event.id };
    expect((await call(t.app, 'POST', '/content/internal/events/registrations', { body, token: c.editor })).statusCode).toBe(401);
    const res = await signed(t.app, '/content/internal/events/registrations', body);
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect([...answer.registrants].sort()).toEqual([a, b].sort());
    expect(answer.attendees.map((x: { personId: string | null }) => x.personId).sort()).toEqual([a, kid, b, null].sort());
    expect((await signed(t.app, '/content/internal/events/registrations', { churchId: randomUUID(), eventId: event.id })).json()).toEqual({ registrants: [], attendees: [] });
  });
});
