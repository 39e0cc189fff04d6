import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { eq } from 'drizzle-orm';
import { donations, fundDonations } from '../../src/db/schema';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, signedStripe, useGiving } from '../setup';

// What the attack on giving found (issue 31), each refused now.
const t = useGiving();

const staff = (c: ReturnType<typeof makeChurch>) => c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
const donationsOf = (churchId: string) => t.app.db.select().from(donations).where(eq(donations.churchId, churchId));
const total = async (churchId: string, fundId: string) => (await call(t.app, 'GET', `/giving/funds/public/${churchId}/${fundId}/total`)).json().totalAmount;

describe('Idempotency-Key belongs to its caller (item 2)', () => {
  it('charges two donors who send the same key and body each once, each with their own payment', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const ann = makePerson('Ann', 'One', null, c.churchId);
    const bob = makePerson('Bob', 'Two', null, c.churchId);
    const body = { id: 'pm_card_visa', amount: 10, funds: [{ id: general, amount: 10 }] };
    const headers = { 'idempotency-key': 'gift-2025-03-02' };
    const annToken = c.token([], { personId: ann.id });
    const first = await call(t.app, 'POST', '/giving/donate/charge', { token: annToken, body, headers });
    const second = await call(t.app, 'POST', '/giving/donate/charge', { token: c.token([], { personId: bob.id }), body, headers });
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().id).not.toBe(first.json().id);
    expect(second.json().donationId).not.toBe(first.json().donationId);
    expect((await donationsOf(c.churchId)).map((d) => d.personId).sort()).toEqual([ann.id, bob.id].sort());
    // the same donor's retry is still answered from the first
    const retry = await call(t.app, 'POST', '/giving/donate/charge', { token: annToken, body, headers });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
  });
});

describe("a donation's allocations never exceed its amount (item 6)", () => {
  it('refuses an allocation above the donation, and the public fund total does not count it', async () => {
    const c = makeChurch();
    const [general] = await makeFunds(t, staff(c), ['General']);
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { amount: 4321.09 } })).json();
    const over = await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: [{ donationId: gift.id, fundId: general, amount: 999999 }] });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0]).toMatchObject({ param: '[0].amount', msg: expect.stringContaining('999999.00') });
    expect(await total(c.churchId, general!)).toBe(0);
    // across calls: a second allocation that would pass the amount with the first
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: [{ donationId: gift.id, fundId: general, amount: 4000 }] })).statusCode).toBe(200);
    const more = await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: { donationId: gift.id, fundId: general, amount: 400 } });
    expect(more.statusCode).toBe(400);
    expect(more.json().errors[0].param).toBe('amount');
    expect(await total(c.churchId, general!)).toBe(4000);
  });

  it('holds concurrent allocations of one donation to its amount', async () => {
    const c = makeChurch();
    const [general, missions] = await makeFunds(t, staff(c), ['General', 'Missions']);
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { amount: 50 } })).json();
    const answers = await Promise.all(
      [general, missions, general, missions].map((fundId) => call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: { donationId: gift.id, fundId, amount: 30 } })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400, 400, 400]);
    const kept = await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, gift.id));
    expect(kept.map((a) => a.amount)).toEqual(['30.00']);
  });

  it('refuses lowering an amount below its allocations (400 naming both) unless the same request carries the new ones', async () => {
    const c = makeChurch();
    const [general] = await makeFunds(t, staff(c), ['General']);
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { amount: 50, funds: [{ fundId: general, amount: 50 }] } })).json();
    const lowered = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ id: gift.id, amount: 30 }] });
    expect(lowered.statusCode).toBe(400);
    expect(lowered.json().errors[0]).toEqual({ param: '[0].amount', location: 'body', msg: "the donation's allocations (50.00) would exceed its amount (30.00)" });
    expect((await donationsOf(c.churchId))[0]!.amount).toBe('50.00');
    const both = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ id: gift.id, amount: 30, funds: [{ id: gift.funds[0].id, fundId: general, amount: 30 }] }] });
    expect(both.statusCode).toBe(200);
    expect(both.json()[0]).toMatchObject({ amount: 30, funds: [{ id: gift.funds[0].id, amount: 30 }] });
  });

  it('does not record a signed payment whose metadata allocates more than was paid', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const pi = { id: `pi_${randomUUID().slice(0, 10)}`, object: 'payment_intent', amount: 432109, amount_received: 432109, currency: 'usd', payment_method_types: ['card'], status: 'succeeded', metadata: { churchId: c.churchId, funds: `${general}:99999900` } };
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', pi))).statusCode).toBe(200);
    await t.drain();
    expect(await donationsOf(c.churchId)).toEqual([]);
    expect(await total(c.churchId, general!)).toBe(0);
  });
});

describe("a manual donation's person is the church's (item 7)", () => {
  it('refuses a person of another church or none, and writes nothing', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const theirs = makePerson('Tess', 'Theirs', null, other.churchId);
    const ours = makePerson('Olly', 'Ours', null, c.churchId);
    const res = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ personId: ours.id, amount: 5 }, { personId: theirs.id, amount: 5 }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].personId', msg: 'is not a person of this church' });
    const nobody = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { personId: randomUUID(), amount: 5 } });
    expect(nobody.json().errors[0]).toMatchObject({ param: 'personId' });
    expect(await donationsOf(c.churchId)).toEqual([]);
    expect((await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { personId: ours.id, amount: 5 } })).statusCode).toBe(200);
  });
});

describe('hardening of payments and webhooks', () => {
  it('refuses a Stripe signature from the future as it refuses a stale one', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const event = t.stripe.event('customer.created', { id: 'cus_x', object: 'customer' });
    const inject = (timestamp: number) => {
      const { body, headers } = signedStripe(event, 'whsec_test_secret', timestamp);
      return t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe?churchId=${c.churchId}`, payload: body, headers });
    };
    const now = Math.floor(Date.now() / 1000);
    expect((await inject(now + 3600)).statusCode).toBe(400);
    expect((await inject(now - 3600)).statusCode).toBe(400);
    expect((await inject(now + 60)).statusCode).toBe(200);
  });

  it('takes ISO 4217 currencies only, and only the gateway’s for payments', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const gift = { id: 'pm_card_visa', amount: 10, funds: [{ id: general, amount: 10 }] };
    const made = await call(t.app, 'POST', '/giving/donate/charge', { token: c.token(), body: { ...gift, currency: 'xyz' } });
    expect(made.statusCode).toBe(400);
    expect(made.json().errors[0]).toMatchObject({ param: 'currency', msg: 'must be an ISO 4217 currency code' });
    const foreign = await call(t.app, 'POST', '/giving/donate/charge', { token: c.token(), body: { ...gift, currency: 'eur' } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0]).toMatchObject({ param: 'currency', msg: "must be USD, the currency of the church's gateway" });
    expect((await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { amount: 1, currency: 'abc' } })).statusCode).toBe(400);
    expect(await donationsOf(c.churchId)).toEqual([]);
  });

  it('lets a card payment cover the card fee only, and a bank payment the bank fee or the card fee the forms compute', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const fee = async (type: string) => (await call(t.app, 'POST', `/giving/donate/fee?churchId=${c.churchId}`, { body: { type, amount: 100 } })).json().calculatedFee as number;
    const [bankFee, cardFee] = [await fee('bank'), await fee('card')];
    expect(bankFee).toBeLessThan(cardFee);
    const gift = (id: string, amount: number) => ({ id, type: 'bank', amount, interval: { interval: 'month', interval_count: 1 }, funds: [{ id: general, amount: 100 }] });
    const claimed = await call(t.app, 'POST', '/giving/donate/subscribe', { token: c.token(), body: gift('pm_card_visa', 100 + bankFee) });
    expect(claimed.statusCode).toBe(400);
    expect(claimed.json().errors[0].param).toBe('amount');
    expect((await call(t.app, 'POST', '/giving/donate/charge', { token: c.token(), body: gift('pm_card_visa', 100 + cardFee) })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/donate/charge', { token: c.token(), body: gift('pm_usBankAccount', 100 + bankFee) })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/donate/charge', { token: c.token(), body: gift('pm_usBankAccount', 100 + cardFee) })).statusCode).toBe(200);
  });

  it('refuses a billing_cycle_anchor in the past', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const body = { id: 'pm_card_visa', amount: 10, interval: { interval: 'month', interval_count: 1 }, funds: [{ id: general, amount: 10 }] };
    const past = await call(t.app, 'POST', '/giving/donate/subscribe', { token: c.token(), body: { ...body, billing_cycle_anchor: Math.floor(Date.now() / 1000) - 3 * 86_400 } });
    expect(past.statusCode).toBe(400);
    expect(past.json().errors[0]).toMatchObject({ param: 'billing_cycle_anchor', msg: 'must not be in the past' });
    expect(t.stripe.requests('POST', '/v1/subscriptions').filter((r) => r.form.get('metadata[churchId]') === c.churchId)).toHaveLength(0);
  });
});
