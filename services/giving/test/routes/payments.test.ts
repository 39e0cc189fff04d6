import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readMailbox } from '@church/common/testing';
import { customers, donations, fundDonations, gateways, paymentMethods, subscriptionFunds, subscriptions } from '../../src/db/schema';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, STRIPE_SECRET, useGiving } from '../setup';
import { parseForm } from '../fake-stripe';

const t = useGiving({ config: { GIVING_PUBLIC_URL: 'https://api.example.org/' } });

const donationsOf = (churchId: string) => t.app.db.select().from(donations).where(eq(donations.churchId, churchId));

describe('gateways', () => {
  it('seals keys at rest, masks them on every read, provisions the webhook and product, and removes the webhook on delete', async () => {
    const c = makeChurch();
    const admin = c.token(['Settings.Edit']);
    const saved = await call(t.app, 'POST', '/giving/gateways', { token: admin, body: { provider: 'stripe', publicKey: 'pk_test_123', privateKey: STRIPE_SECRET, payFees: true } });
    expect(saved.statusCode).toBe(200);
    const gw = saved.json()[0];
    expect(gw).toMatchObject({ provider: 'stripe', publicKey: 'pk_test_123', privateKey: '••••1234', payFees: true });
    expect(gw.webhookKey).toMatch(/^••••/);
    expect(gw.webhookId).toMatch(/^we_/);
    expect(gw.productId).toMatch(/^prod_/);
    // the endpoint points at this church's webhook URL, with the events the module handles
    const hook = t.stripe.requests('POST', '/v1/webhook_endpoints').at(-1)!;
    expect(parseForm(hook.form).url).toBe(`https://api.example.org/giving/donate/webhook/stripe?churchId=${c.churchId}`);
    expect(hook.headers.authorization).toBe(`Bearer ${STRIPE_SECRET}`);
    const [row] = await t.app.db.select().from(gateways).where(eq(gateways.id, gw.id));
    expect(row!.privateKey).not.toContain(STRIPE_SECRET);
    expect(t.deps.secrets.decrypt(row!.privateKey!)).toBe(STRIPE_SECRET);
    expect(t.deps.secrets.decrypt(row!.webhookKey!)).toMatch(/^whsec_/);

    for (const [url, token] of [['/giving/gateways', c.token()], [`/giving/gateways/${gw.id}`, admin]] as const) {
      const body = (await call(t.app, 'GET', url, { token })).body;
      expect(body).not.toContain(STRIPE_SECRET);
      expect(body).toContain('••••1234');
    }
    const pub = await call(t.app, 'GET', `/giving/gateways/churchId/${c.churchId}`);
    expect(pub.json()).toEqual([{ id: gw.id, provider: 'stripe', publicKey: 'pk_test_123', payFees: true, currency: 'usd' }]);
    expect((await call(t.app, 'GET', `/giving/donate/gateways/${c.churchId}`)).json()).toEqual(pub.json());
    expect((await call(t.app, 'GET', `/giving/gateways/configured/${c.churchId}`)).json()).toEqual({ configured: true });
    expect((await call(t.app, 'GET', `/giving/gateways/configured/${randomUUID()}`)).json()).toEqual({ configured: false });

    // a masked key posted back keeps the stored one
    const patched = await call(t.app, 'PATCH', `/giving/gateways/${gw.id}`, { token: admin, body: { privateKey: '••••1234', payFees: false } });
    expect(patched.json()).toMatchObject({ privateKey: '••••1234', payFees: false });
    const [after] = await t.app.db.select().from(gateways).where(eq(gateways.id, gw.id));
    expect(t.deps.secrets.decrypt(after!.privateKey!)).toBe(STRIPE_SECRET);

    expect((await call(t.app, 'DELETE', `/giving/gateways/${gw.id}`, { token: makeChurch().token(['Settings.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/gateways/${gw.id}`, { token: admin })).statusCode).toBe(200);
    expect(t.stripe.requests('DELETE', `/v1/webhook_endpoints/${gw.webhookId}`)).toHaveLength(1);
    expect((await call(t.app, 'GET', `/giving/gateways/configured/${c.churchId}`)).json()).toEqual({ configured: false });
  });

  it('saves nothing when provisioning fails at the provider (502)', async () => {
    const c = makeChurch();
    t.stripe.state.failNext = 1;
    const res = await call(t.app, 'POST', '/giving/gateways', { token: c.token(['Settings.Edit']), body: { provider: 'stripe', publicKey: 'pk_test_1', privateKey: STRIPE_SECRET } });
    expect(res.statusCode).toBe(502);
    expect(await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId))).toHaveLength(0);
  });

  it('saves a hand-made webhook secret as given, and needs Settings.Edit', async () => {
    const c = makeChurch();
    const before = t.stripe.requests('POST', '/v1/webhook_endpoints').length;
    await makeStripeGateway(t, c.token(['Settings.Edit']), { webhookKey: 'whsec_by_hand', productId: 'prod_mine' });
    expect(t.stripe.requests('POST', '/v1/webhook_endpoints')).toHaveLength(before);
    expect((await call(t.app, 'POST', '/giving/gateways', { token: c.token(['Donations.Edit']), body: { provider: 'stripe', privateKey: 'sk_x' } })).statusCode).toBe(401);
    const bad = await call(t.app, 'POST', '/giving/gateways', { token: makeChurch().token(['Settings.Edit']), body: { provider: 'stripe' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('privateKey');
  });
});

describe('payments without a gateway', () => {
  it('answer a clear 400 naming the missing gateway, while the fee still computes', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    for (const [url, body] of [
      ['/giving/donate/charge', { id: 'pm_card_visa', amount: 10, funds: [{ id: fund, amount: 10 }] }],
      ['/giving/donate/subscribe', { id: 'pm_card_visa', amount: 10, interval: { interval: 'month', interval_count: 1 }, funds: [{ id: fund, amount: 10 }] }],
      ['/giving/donate/client-token', {}],
      ['/giving/paymentmethods/addcard', { id: 'pm_card_visa' }],
    ] as const) {
      const res = await call(t.app, 'POST', url, { token: c.token(), body });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].msg).toMatch(/gateway for this church is not configured/);
    }
    const fee = await call(t.app, 'POST', `/giving/donate/fee?churchId=${c.churchId}`, { body: { type: 'card', amount: 100, currency: 'usd' } });
    expect(fee.json()).toMatchObject({ calculatedFee: 3.3, total: 103.3 });
  });
});

describe('POST /donate/fee', () => {
  it('grosses up card, bank (capped), checkout and currency-specific fees, with church overrides', async () => {
    const c = makeChurch();
    const fee = async (body: object, churchId = c.churchId) => (await call(t.app, 'POST', `/giving/donate/fee?churchId=${churchId}`, { body })).json();
    // (100 + 0.30) / (1 - 0.029) - 100 = 3.2956 → 3.30
    expect((await fee({ type: 'card', amount: 100 })).calculatedFee).toBe(3.3);
    expect((await fee({ type: 'card', amount: 10 })).calculatedFee).toBe(0.61);
    expect((await fee({ type: 'card', amount: 100, currency: 'eur' })).calculatedFee).toBe(3.24);
    expect((await fee({ type: 'ach', amount: 100 })).calculatedFee).toBe(0.81);
    expect((await fee({ type: 'bank', amount: 5000 })).calculatedFee).toBe(5);
    expect((await fee({ type: 'card', provider: 'paypal', amount: 100 })).calculatedFee).toBe(3.3);
    await makeStripeGateway(t, c.token(['Settings.Edit']), { webhookKey: 'whsec_x', feeSettings: { card: { percent: 2.2, fixed: 0.3 } } });
    expect((await fee({ type: 'card', amount: 100 })).calculatedFee).toBe(2.56);
    const bad = await call(t.app, 'POST', '/giving/donate/fee', { body: { amount: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'churchId', location: 'query' });
  });
});

describe('POST /donate/charge (Stripe SDK against the loopback fake)', () => {
  const setup = async () => {
    const c = makeChurch();
    const donor = makePerson('Dora', 'Donor');
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general, missions] = await makeFunds(t, c.token(['Donations.Edit']), ['General', 'Missions']);
    const token = c.token([], { personId: donor.id, email: donor.email! });
    const body = (id: string, extra: object = {}) => ({ provider: 'stripe', id, amount: 25, currency: 'usd', person: { id: donor.id, email: donor.email }, funds: [{ id: general, amount: 20 }, { id: missions, amount: 5 }], church: { name: 'Grace' }, ...extra });
    return { c, donor, token, general, missions, body };
  };

  it('charges, records the donation with its allocations and emails the receipt', async () => {
    const { c, donor, token, body } = await setup();
    const res = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa') });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'succeeded', provider: 'stripe' });
    const pi = t.stripe.requests('POST', '/v1/payment_intents').at(-1)!;
    const sent = parseForm(pi.form) as Record<string, unknown>;
    expect(sent).toMatchObject({ amount: '2500', currency: 'usd', payment_method: 'pm_card_visa', confirm: 'true' });
    expect(sent.customer).toMatch(/^cus_/);
    const [row] = await donationsOf(c.churchId);
    expect(row).toMatchObject({ amount: '25.00', status: 'complete', transactionId: res.json().id, personId: donor.id, method: 'card', fee: '0.00' });
    expect(await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, row!.id))).toHaveLength(2);
    expect(await t.app.db.select().from(customers).where(and(eq(customers.churchId, c.churchId), eq(customers.personId, donor.id)))).toHaveLength(1);
    await t.drain();
    const mail = readMailbox(t.config).filter((m) => m.to === donor.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain('General: USD 20.00');
  });

  it('accepts the covered fee exactly as /donate/fee computes it, and refuses any other amount naming amount', async () => {
    const { c, token, body } = await setup();
    const wrong = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa', { amount: 26 }) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].param).toBe('amount');
    // fee on 25.00: (25 + 0.30) / 0.971 - 25 = 1.0556 → 1.06
    const ok = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa', { amount: 26.06 }) });
    expect(ok.statusCode).toBe(200);
    const [row] = await donationsOf(c.churchId);
    expect(row).toMatchObject({ amount: '26.06', fee: '1.06' });
    await t.drain();
    expect(readMailbox(t.config).some((m) => m.text.includes('Transaction fee covered: USD 1.06'))).toBe(true);
  });

  it('answers a declined card 402, a provider 500 and a timeout 502, and records nothing', async () => {
    const { c, token, body } = await setup();
    const declined = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_chargeDeclined') });
    expect(declined.statusCode).toBe(402);
    expect(declined.json().errors[0]).toMatch(/declined/);
    const outage = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_fail500') });
    expect(outage.statusCode).toBe(502);
    const slow = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_slow') });
    expect(slow.statusCode).toBe(502);
    expect(await donationsOf(c.churchId)).toHaveLength(0);
  });

  it('records an ACH debit as pending, and answers a payment needing 3-D Secure without recording it', async () => {
    const { c, token, body } = await setup();
    const ach = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_usBankAccount', { type: 'bank' }) });
    expect(ach.json()).toMatchObject({ status: 'processing' });
    const sca = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_threeDSecure2Required') });
    expect(sca.json()).toMatchObject({ status: 'requires_action', donationId: null });
    expect(sca.json().clientSecret).toMatch(/_secret_/);
    const rows = await donationsOf(c.churchId);
    expect(rows.map((r) => [r.status, r.method])).toEqual([['pending', 'ach']]);
  });

  it('charges once for a retried Idempotency-Key and passes the key to Stripe', async () => {
    const { c, token, body } = await setup();
    const key = randomUUID();
    const before = t.stripe.requests('POST', '/v1/payment_intents').length;
    const first = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa'), headers: { 'idempotency-key': key } });
    const retry = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa'), headers: { 'idempotency-key': key } });
    expect(retry.json()).toEqual(first.json());
    expect(t.stripe.requests('POST', '/v1/payment_intents').length - before).toBe(1);
    expect(t.stripe.requests('POST', '/v1/payment_intents').at(-1)!.headers['idempotency-key']).toContain(key);
    expect(await donationsOf(c.churchId)).toHaveLength(1);
  });

  it('refuses charging for another person without Donations.Edit, and unknown funds', async () => {
    const { token, body, c } = await setup();
    const someone = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa', { person: { id: randomUUID() } }) });
    expect(someone.statusCode).toBe(401);
    const fund = await call(t.app, 'POST', '/giving/donate/charge', { token, body: body('pm_card_visa', { funds: [{ id: randomUUID(), amount: 25 }] }) });
    expect(fund.statusCode).toBe(400);
    expect(fund.json().errors[0].param).toBe('funds[0].id');
    expect(await donationsOf(c.churchId)).toHaveLength(0);
  });
});

describe('subscriptions', () => {
  it('subscribes at Stripe, lists, updates and cancels with provider and reason; "own subscription" both ways', async () => {
    const c = makeChurch();
    const donor = makePerson('Sam', 'Sub');
    await makeStripeGateway(t, c.token(['Settings.Edit']), { webhookKey: 'whsec_x', productId: 'prod_recurring' });
    const [general, missions] = await makeFunds(t, c.token(['Donations.Edit']), ['General', 'Missions']);
    const token = c.token([], { personId: donor.id });
    const anchor = Math.floor(Date.now() / 1000) + 7 * 86400;
    const res = await call(t.app, 'POST', '/giving/donate/subscribe', {
      token,
      body: { provider: 'stripe', id: 'pm_card_visa', amount: 50, currency: 'usd', interval: { interval: 'month', interval_count: 1 }, billing_cycle_anchor: anchor, person: { id: donor.id, email: donor.email }, funds: [{ id: general, amount: 30 }, { id: missions, amount: 20 }], church: { name: 'Grace' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'active', provider: 'stripe' });
    const sent = parseForm(t.stripe.requests('POST', '/v1/subscriptions').at(-1)!.form);
    expect(sent).toMatchObject({ billing_cycle_anchor: String(anchor), default_payment_method: 'pm_card_visa' });
    const price = parseForm(t.stripe.requests('POST', '/v1/prices').at(-1)!.form);
    expect(price).toMatchObject({ unit_amount: '5000', product: 'prod_recurring', recurring: { interval: 'month', interval_count: '1' } });
    const subId = res.json().id;

    const view = c.token(['Donations.ViewSummary', 'Donations.View']);
    const list = await call(t.app, 'GET', '/giving/subscriptions', { token: view });
    expect(list.json()).toEqual([expect.objectContaining({ id: subId, amount: 50, interval: 'month', personId: donor.id, funds: expect.arrayContaining([expect.objectContaining({ fundId: general, amount: 30 })]) })]);
    // subscription funds: own subscription reads them, someone else gets 401
    expect((await call(t.app, 'GET', `/giving/subscriptionfunds?subscriptionId=${subId}`, { token })).json()).toHaveLength(2);
    const stranger = c.token([], { personId: randomUUID() });
    expect((await call(t.app, 'GET', `/giving/subscriptionfunds?subscriptionId=${subId}`, { token: stranger })).statusCode).toBe(401);
    // the customer record and its gateway subscriptions, for its own person
    const [cust] = await t.app.db.select().from(customers).where(eq(customers.personId, donor.id));
    const gs = await call(t.app, 'GET', `/giving/customers/${cust!.id}/subscriptions`, { token });
    // AppHelper:packages/donations/src/components/RecurringDonations.tsx reads `data`, each with Stripe's `plan` (cents) and `default_payment_method`
    expect(gs.json()).toEqual({
      object: 'list',
      data: [
        expect.objectContaining({
          id: res.json().subscriptionId,
          subscriptionId: subId,
          amount: 50,
          status: 'active',
          default_payment_method: 'pm_card_visa',
          plan: { amount: 5000, currency: 'usd', interval: 'month', interval_count: 1 },
        }),
      ],
    });
    expect((await call(t.app, 'GET', `/giving/customers/${cust!.id}`, { token: stranger })).statusCode).toBe(401);

    // update: someone else 401, owner changes the amount and allocations
    expect((await call(t.app, 'POST', '/giving/subscriptions', { token: stranger, body: { id: subId, amount: 60 } })).statusCode).toBe(401);
    const upd = await call(t.app, 'POST', '/giving/subscriptions', { token, body: { id: subId, amount: 60, funds: [{ fundId: general, amount: 60 }] } });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()[0]).toMatchObject({ amount: 60, funds: [expect.objectContaining({ fundId: general, amount: 60 })] });

    // cancel: someone else 401; the owner cancels at Stripe, then it is removed here
    expect((await call(t.app, 'DELETE', `/giving/subscriptions/${subId}`, { token: stranger, body: { provider: 'stripe', reason: 'x' } })).statusCode).toBe(401);
    const del = await call(t.app, 'DELETE', `/giving/subscriptions/${subId}`, { token, body: { provider: 'stripe', reason: 'moving away' } });
    expect(del.statusCode).toBe(200);
    const cancel = t.stripe.requests('DELETE', `/v1/subscriptions/${res.json().subscriptionId}`);
    expect(cancel).toHaveLength(1);
    expect(await t.app.db.select().from(subscriptions).where(eq(subscriptions.id, subId))).toHaveLength(0);
    expect(await t.app.db.select().from(subscriptionFunds).where(eq(subscriptionFunds.subscriptionId, subId))).toHaveLength(0);
  });
});

describe('subscription updates as a batch', () => {
  /** A church with a Stripe gateway, two funds and `n` subscriptions of one donor made through the donation form. */
  async function subscribed(n: number) {
    const c = makeChurch();
    const donor = makePerson('Bea', 'Batch');
    await makeStripeGateway(t, c.token(['Settings.Edit']), { webhookKey: 'whsec_x', productId: 'prod_recurring' });
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    const token = c.token([], { personId: donor.id });
    const subs: Array<{ id: string; subscriptionId: string }> = [];
    for (let i = 0; i < n; i++) {
      const res = await call(t.app, 'POST', '/giving/donate/subscribe', {
        token,
        body: { provider: 'stripe', id: 'pm_card_visa', amount: 10 + i, currency: 'usd', interval: { interval: 'month', interval_count: 1 }, person: { id: donor.id, email: donor.email }, funds: [{ id: general, amount: 10 + i }], church: { name: 'Grace' } },
      });
      expect(res.statusCode).toBe(200);
      subs.push(res.json());
    }
    const amountOf = async (id: string) => (await t.app.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!.amount;
    const updates = (sub: { subscriptionId: string }) => t.stripe.requests('POST', `/v1/subscriptions/${sub.subscriptionId}`).length;
    return { c, token, general, subs, amountOf, updates, edit: c.token(['Donations.Edit']) };
  }

  it('checks every item before the gateway is asked: a bad item changes nothing at the gateway or here', async () => {
    const s = await subscribed(2);
    const other = makeChurch();
    const [foreignFund] = await makeFunds(t, other.token(['Donations.Edit']), ['Theirs']);
    const res = await call(t.app, 'POST', '/giving/subscriptions', {
      token: s.edit,
      body: [
        { id: s.subs[0]!.id, amount: 60 },
        { id: s.subs[1]!.id, amount: 70, funds: [{ fundId: foreignFund, amount: 70 }] },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[1].funds[0].fundId');
    expect(s.updates(s.subs[0]!)).toBe(0);
    expect(await s.amountOf(s.subs[0]!.id)).toBe('10.00');
    // a subscription named twice is refused as well, before any gateway call
    const twice = await call(t.app, 'POST', '/giving/subscriptions', { token: s.edit, body: [{ id: s.subs[0]!.id, amount: 60 }, { id: s.subs[0]!.subscriptionId, amount: 61 }] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors[0].param).toBe('[1].id');
    expect(s.updates(s.subs[0]!)).toBe(0);
  });

  it('asks the gateway for each item, then writes them all in one transaction and reports each', async () => {
    const s = await subscribed(2);
    const res = await call(t.app, 'POST', '/giving/subscriptions', {
      token: s.edit,
      body: [
        { id: s.subs[0]!.id, amount: 60, funds: [{ fundId: s.general, amount: 60 }] },
        { id: s.subs[1]!.subscriptionId, amount: 70 },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((r: { id: string; amount: number }) => [r.id, r.amount])).toEqual([
      [s.subs[0]!.id, 60],
      [s.subs[1]!.id, 70],
    ]);
    expect([s.updates(s.subs[0]!), s.updates(s.subs[1]!)]).toEqual([1, 1]);
    expect([await s.amountOf(s.subs[0]!.id), await s.amountOf(s.subs[1]!.id)]).toEqual(['60.00', '70.00']);
  });

  it('writes the batch whole or not at all: an item whose row is gone by the write fails it, and no item of the batch is written', async () => {
    const s = await subscribed(2);
    const second = s.subs[1]!;
    // While Stripe answers the second update, the subscription is cancelled in the church's dashboard: its
    // webhook removes the row here before the batch writes.
    t.stripe.state.meanwhile = async (req) => {
      if (req.method !== 'POST' || req.path !== `/v1/subscriptions/${second.subscriptionId}`) return;
      t.stripe.state.meanwhile = undefined;
      const cancelled = t.stripe.event('customer.subscription.deleted', { id: second.subscriptionId, object: 'subscription', status: 'canceled' });
      expect((await deliver(t, s.c.churchId, cancelled, 'whsec_x')).statusCode).toBe(200);
      await t.drain();
    };
    const reportedBefore = t.deps.queue.handedOff.length;
    let res;
    try {
      res = await call(t.app, 'POST', '/giving/subscriptions', {
        token: s.edit,
        body: [
          { id: s.subs[0]!.id, amount: 60, funds: [{ fundId: s.general, amount: 60 }] },
          { id: second.id, amount: 70 },
        ],
      });
    } finally {
      t.stripe.state.meanwhile = undefined;
    }
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toMatch(/Subscription/);
    // the gateway took both; the database took neither: the first keeps its amount and allocations, nothing reported
    expect([s.updates(s.subs[0]!), s.updates(second)]).toEqual([1, 1]);
    expect(await s.amountOf(s.subs[0]!.id)).toBe('10.00');
    const funds = await t.app.db.select().from(subscriptionFunds).where(eq(subscriptionFunds.subscriptionId, s.subs[0]!.id));
    expect(funds.map((f) => [f.fundId, f.amount])).toEqual([[s.general, '10.00']]);
    const updated = t.deps.queue.handedOff
      .slice(reportedBefore)
      .filter((j) => j.name === 'membership.changes')
      .flatMap((j) => (j.data as { records: Array<{ entityType: string; action: string }> }).records)
      .filter((r) => r.entityType === 'subscription' && r.action === 'updated');
    expect(updated).toEqual([]);
    // the same batch without the removed subscription goes through whole
    const again = await call(t.app, 'POST', '/giving/subscriptions', { token: s.edit, body: [{ id: s.subs[0]!.id, amount: 60, funds: [{ fundId: s.general, amount: 60 }] }] });
    expect(again.statusCode).toBe(200);
    expect(await s.amountOf(s.subs[0]!.id)).toBe('60.00');
  });

  it('keeps what the gateway took when it refuses a later item, and answers the refusal', async () => {
    const s = await subscribed(2);
    // the second is gone at the gateway (cancelled in its dashboard): Stripe answers 404 for it
    await t.app.db.update(subscriptions).set({ providerSubscriptionId: 'sub_gone_at_stripe' }).where(eq(subscriptions.id, s.subs[1]!.id));
    const res = await call(t.app, 'POST', '/giving/subscriptions', {
      token: s.edit,
      body: [
        { id: s.subs[0]!.id, amount: 60 },
        { id: s.subs[1]!.id, amount: 70 },
      ],
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(600);
    expect(res.statusCode).not.toBe(500);
    expect(s.updates(s.subs[0]!)).toBe(1);
    // the first is written as the gateway now bills it; the second is left as it was
    expect([await s.amountOf(s.subs[0]!.id), await s.amountOf(s.subs[1]!.id)]).toEqual(['60.00', '11.00']);
  });
});

describe('payment methods', () => {
  it('attaches a card, updates it, lists it for its own person, verifies a bank account and detaches', async () => {
    const c = makeChurch();
    const donor = makePerson('Pat', 'Payer');
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const token = c.token([], { personId: donor.id });
    const stranger = c.token([], { personId: randomUUID() });
    const added = await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token, body: { id: 'pm_card_visa', personId: donor.id, email: donor.email, name: 'Pat Payer', provider: 'stripe' } });
    expect(added.statusCode).toBe(200);
    expect(added.json()).toMatchObject({ type: 'card', brand: 'visa', last4: '4242', providerMethodId: 'pm_card_visa', personId: donor.id });
    expect((await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: stranger, body: { id: 'pm_card_visa', personId: donor.id } })).statusCode).toBe(401);

    const upd = await call(t.app, 'POST', '/giving/paymentmethods/updatecard', { token, body: { personId: donor.id, paymentMethodId: 'pm_card_visa', cardData: { exp_month: 3, exp_year: 2031 }, provider: 'stripe' } });
    expect(upd.json()).toMatchObject({ expMonth: 3, expYear: 2031 });
    expect((await call(t.app, 'POST', '/giving/paymentmethods/updatecard', { token: stranger, body: { paymentMethodId: 'pm_card_visa', cardData: {} } })).statusCode).toBe(401);

    const listed = await call(t.app, 'GET', `/giving/paymentmethods/personid/${donor.id}`, { token });
    expect(listed.json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/giving/paymentmethods/personid/${donor.id}`, { token: stranger })).statusCode).toBe(401);

    const si = await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent', { token, body: { personId: donor.id, email: donor.email, name: 'Pat' } });
    expect(si.statusCode).toBe(200);
    expect(si.json().clientSecret).toMatch(/^seti_.*_secret_/);
    const customerId = si.json().customerId;
    const wrong = await call(t.app, 'POST', '/giving/paymentmethods/verifybank', { token, body: { paymentMethodId: si.json().id, customerId, amountData: { amounts: [1, 2] } } });
    expect(wrong.statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/giving/paymentmethods/verifybank', { token: stranger, body: { paymentMethodId: si.json().id, customerId, amountData: { amounts: [32, 45] } } })).statusCode).toBe(401);
    const verified = await call(t.app, 'POST', '/giving/paymentmethods/verifybank', { token, body: { paymentMethodId: si.json().id, customerId, amountData: { amounts: [32, 45] } } });
    expect(verified.json()).toMatchObject({ type: 'bank', status: 'verified', last4: '6789' });

    const bank = await call(t.app, 'POST', '/giving/paymentmethods/addbankaccount', { token, body: { id: 'btok_us_verified', personId: donor.id, customerId } });
    expect(bank.json()).toMatchObject({ type: 'bank', status: 'pending' });
    const renamed = await call(t.app, 'POST', '/giving/paymentmethods/updatebank', { token, body: { paymentMethodId: bank.json().providerMethodId, personId: donor.id, customerId, bankData: { account_holder_name: 'Pat P' } } });
    expect(renamed.statusCode).toBe(200);

    expect((await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_visa/${customerId}`, { token: stranger })).statusCode).toBe(401);
    const del = await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_visa/${customerId}`, { token });
    expect(del.statusCode).toBe(200);
    expect(t.stripe.requests('POST', '/v1/payment_methods/pm_card_visa/detach')).toHaveLength(1);
    expect(await t.app.db.select().from(paymentMethods).where(and(eq(paymentMethods.churchId, c.churchId), eq(paymentMethods.providerMethodId, 'pm_card_visa')))).toHaveLength(0);
  });
});

describe('captcha', () => {
  it('answers a clear 400 when no verifier is configured', async () => {
    const res = await call(t.app, 'POST', '/giving/donate/captcha-verify', { body: { token: 'abc' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'CAPTCHA_SECRET' });
    const anon = await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent-anon', { body: { churchId: randomUUID(), email: 'a@b.c', captchaToken: 'abc' } });
    expect(anon.statusCode).toBe(400);
  });
});
