import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readMailbox } from '@church/common/testing';
import { customers, donations, gateways, paymentMethods } from '../../src/db/schema';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, useGiving } from '../setup';

const t = useGiving();

/** A church with a Stripe gateway and two members, Ann and Bob (their last names given), with their tokens. */
async function annAndBob(annLast: string, bobLast: string) {
  const c = makeChurch();
  await makeStripeGateway(t, c.token(['Settings.Edit']));
  const ann = makePerson('Ann', annLast);
  const bob = makePerson('Bob', bobLast);
  return { c, ann, bob, annToken: c.token([], { personId: ann.id }), bobToken: c.token([], { personId: bob.id }) };
}

describe('"own customer" on payment methods', () => {
  it('detaches only a method of the customer in the path: someone else\'s is 401, an unindexed one 404 for a member', async () => {
    const { c, ann, bob, annToken, bobToken } = await annAndBob('Owner', 'Other');
    const added = await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: annToken, body: { id: 'pm_card_visa', personId: ann.id, email: ann.email, provider: 'stripe' } });
    expect(added.statusCode).toBe(200);
    const bobIntent = await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent', { token: bobToken, body: { personId: bob.id, email: bob.email } });
    expect(bobIntent.statusCode).toBe(200);
    const bobCustomer = bobIntent.json().customerId as string;

    // Bob names his own customer and Ann's card: the door admits him (own customer), the method is not his.
    const stolen = await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_visa/${bobCustomer}`, { token: bobToken });
    expect(stolen.statusCode).toBe(401);
    // A method this service has never indexed: nothing shows it is Bob's.
    const unknown = await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_unindexed/${bobCustomer}`, { token: bobToken });
    expect(unknown.statusCode).toBe(404);
    expect(t.stripe.requests('POST', /^\/v1\/payment_methods\/pm_card_(visa|unindexed)\/detach$/)).toHaveLength(0);
    expect(await t.app.db.select().from(paymentMethods).where(and(eq(paymentMethods.churchId, c.churchId), eq(paymentMethods.providerMethodId, 'pm_card_visa')))).toHaveLength(1);

    // Donations.Edit with the wrong customer: 404; with the right one (or an unindexed method) it detaches.
    const editor = c.token(['Donations.Edit']);
    expect((await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_visa/${bobCustomer}`, { token: editor })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_unindexed/${bobCustomer}`, { token: editor })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/giving/paymentmethods/pm_card_visa/${added.json().customerId}`, { token: annToken })).statusCode).toBe(200);
    expect(t.stripe.requests('POST', '/v1/payment_methods/pm_card_visa/detach')).toHaveLength(1);
  });

  it('links a provider customer unknown here only for Donations.Edit, never to a member who names it', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const mel = makePerson('Mel', 'Member');
    const melToken = c.token([], { personId: mel.id });
    const customersOf = () => t.app.db.select().from(customers).where(and(eq(customers.churchId, c.churchId), eq(customers.providerCustomerId, 'cus_madeInDashboard')));

    const claimed = await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: melToken, body: { id: 'pm_card_mastercard', personId: mel.id, customerId: 'cus_madeInDashboard', provider: 'stripe' } });
    expect(claimed.statusCode).toBe(401);
    expect(await customersOf()).toHaveLength(0);
    expect(t.stripe.requests('POST', '/v1/payment_methods/pm_card_mastercard/attach')).toHaveLength(0);

    const linked = await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: c.token(['Donations.Edit']), body: { id: 'pm_card_mastercard', personId: mel.id, customerId: 'cus_madeInDashboard', provider: 'stripe' } });
    expect(linked.statusCode).toBe(200);
    const [row] = await customersOf();
    expect(row).toMatchObject({ personId: mel.id });
    // Once linked to her, it is her own.
    expect((await call(t.app, 'GET', `/giving/customers/${row!.id}`, { token: melToken })).statusCode).toBe(200);
  });
});

describe('receipts of manual donations', () => {
  it('emails the receipt when a donation entered as pending is confirmed, once', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const donor = makePerson('Penny', 'Pending');
    const [fund] = await makeFunds(t, edit, ['General']);
    const [d] = (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { personId: donor.id, amount: 12, status: 'pending', method: 'check', funds: [{ fundId: fund, amount: 12 }] } })).json();
    await t.drain();
    expect(readMailbox(t.config).filter((m) => m.to === donor.email)).toHaveLength(0);

    expect((await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d.id, status: 'complete' } })).statusCode).toBe(200);
    await t.drain();
    // A later edit of the confirmed gift sends nothing more.
    expect((await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d.id, notes: 'deposited' } })).statusCode).toBe(200);
    await t.drain();
    const mail = readMailbox(t.config).filter((m) => m.to === donor.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain('General: USD 12.00');
  });
});

describe('"own customer" on bank verification', () => {
  it('verifies micro-deposits only for a setup intent of the named customer', async () => {
    const { ann, bob, annToken, bobToken } = await annAndBob('Bank', 'Bank');
    const annIntent = (await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent', { token: annToken, body: { personId: ann.id, email: ann.email } })).json();
    const bobIntent = (await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent', { token: bobToken, body: { personId: bob.id, email: bob.email } })).json();

    // Bob names his own customer and Ann's setup intent: refused before anything is verified or indexed.
    const crossed = await call(t.app, 'POST', '/giving/paymentmethods/verifybank', { token: bobToken, body: { paymentMethodId: annIntent.id, customerId: bobIntent.customerId, amountData: { amounts: [32, 45] } } });
    expect(crossed.statusCode).toBe(400);
    expect(crossed.json().errors[0].param).toBe('paymentMethodId');
    expect(t.stripe.requests('POST', `/v1/setup_intents/${annIntent.id}/verify_microdeposits`)).toHaveLength(0);
    expect(await t.app.db.select().from(paymentMethods).where(eq(paymentMethods.providerMethodId, `pm_usBankAccount_${annIntent.id}`))).toHaveLength(0);

    const own = await call(t.app, 'POST', '/giving/paymentmethods/verifybank', { token: annToken, body: { paymentMethodId: annIntent.id, customerId: annIntent.customerId, amountData: { amounts: [32, 45] } } });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ personId: ann.id, status: 'verified' });
  });
});

describe('currencies without a minor unit', () => {
  it('refuses a JPY charge, subscription or client token (400 naming currency) instead of sending a hundred times the gift', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    const donor = makePerson('Yuki', 'Yen');
    const token = c.token([], { personId: donor.id, email: donor.email! });
    const before = t.stripe.requests('POST', '/v1/payment_intents').length;
    const gift = { provider: 'stripe', id: 'pm_card_visa', amount: 1000, currency: 'jpy', person: { id: donor.id, email: donor.email }, funds: [{ id: general, amount: 1000 }] };

    const charged = await call(t.app, 'POST', '/giving/donate/charge', { token, body: gift });
    expect(charged.statusCode).toBe(400);
    expect(charged.json().errors[0].param).toBe('currency');
    const subscribed = await call(t.app, 'POST', '/giving/donate/subscribe', { token, body: { ...gift, interval: { interval: 'month', interval_count: 1 } } });
    expect(subscribed.statusCode).toBe(400);
    expect(subscribed.json().errors[0].param).toBe('currency');
    const client = await call(t.app, 'POST', '/giving/donate/client-token', { token, body: { provider: 'stripe', amount: 1000, currency: 'JPY' } });
    expect(client.statusCode).toBe(400);
    expect(t.stripe.requests('POST', '/v1/payment_intents')).toHaveLength(before);
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toHaveLength(0);

    // Two-decimal currencies are unaffected (the gateway's own, or none: the gateway's).
    expect((await call(t.app, 'POST', '/giving/donate/charge', { token, body: { ...gift, amount: 10, currency: 'usd', funds: [{ id: general, amount: 10 }] } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/donate/charge', { token, body: { ...gift, amount: 10, currency: undefined, funds: [{ id: general, amount: 10 }] } })).statusCode).toBe(200);
  });
});

describe('gateways without a public base URL', () => {
  it('saves a Stripe gateway as given: no webhook, no product, no call to Stripe', async () => {
    const c = makeChurch();
    const before = t.stripe.seen.length;
    await makeStripeGateway(t, c.token(['Settings.Edit']), {});
    await makeStripeGateway(t, makeChurch().token(['Settings.Edit']), { webhookKey: 'whsec_by_hand' });
    expect(t.stripe.seen.slice(before)).toEqual([]);
    const [row] = await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId));
    expect(row).toMatchObject({ webhookId: null, productId: null });
  });
});

describe('changes reported to the audit log and webhooks', () => {
  const reported = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);

  it('reports donations entered by hand and recorded from the gateway as donation.created / donation.updated, in their transactions', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const edit = c.token(['Donations.Edit']);
    const [fund] = await makeFunds(t, edit, ['General']);
    await t.drain();
    const start = reported().length;
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { amount: 12, funds: [{ fundId: fund, amount: 12 }] } })).json();
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: gift.id, notes: 'envelope 12' } });
    // a save refused inside its transaction reports nothing
    expect((await call(t.app, 'POST', '/giving/donations', { token: edit, body: [{ amount: 1 }, { amount: 1, funds: [{ fundId: fund, amount: 2 }] }] })).statusCode).toBe(400);
    const pi = { id: `pi_${randomUUID().slice(0, 10)}`, object: 'payment_intent', amount: 700, amount_received: 700, currency: 'usd', payment_method_types: ['card'], status: 'succeeded', metadata: { churchId: c.churchId, funds: `${fund}:700` } };
    await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', pi));
    await t.drain();
    // each record once, whatever order the relay hands them over in
    const mine = reported().slice(start).filter((r) => r.churchId === c.churchId && r.entityType === 'donation');
    expect(mine.map((r) => [r.event, r.action, r.entityId === gift.id]).sort()).toEqual([
      ['donation.created', 'created', false],
      ['donation.created', 'created', true],
      ['donation.updated', 'updated', true],
    ]);
    expect(mine.find((r) => r.action === 'updated')!.changes).toEqual({ notes: { before: null, after: 'envelope 12' } });
    expect(mine.find((r) => r.entityId !== gift.id)!.data).toMatchObject({ amount: 7, transactionId: pi.id, status: 'complete' });
  });
});
