import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readMailbox } from '@church/common/testing';
import { webhookEvents } from '@church/common';
import { donations, eventLogs, fundDonations, subscriptions } from '../../src/db/schema';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, signedStripe, useGiving } from '../setup';

const t = useGiving();

const donationsOf = (churchId: string) => t.app.db.select().from(donations).where(eq(donations.churchId, churchId));

/** A church with a Stripe gateway (webhook secret set by hand) and two funds. */
async function church() {
  const c = makeChurch();
  await makeStripeGateway(t, c.token(['Settings.Edit']));
  const [general, missions] = await makeFunds(t, c.token(['Donations.Edit']), ['General', 'Missions']);
  return { ...c, general: general!, missions: missions! };
}

/** A monthly 40.00 subscription of `donor` (25 to General, 15 to Missions) through this service: its local and Stripe ids. */
async function subscribeMonthly(c: Awaited<ReturnType<typeof church>>, donor: { id: string }) {
  const sub = await call(t.app, 'POST', '/giving/donate/subscribe', {
    token: c.token([], { personId: donor.id }),
    body: { id: 'pm_card_visa', amount: 40, interval: { interval: 'month', interval_count: 1 }, funds: [{ id: c.general, amount: 25 }, { id: c.missions, amount: 15 }] },
  });
  expect(sub.statusCode).toBe(200);
  return { id: sub.json().id as string, providerId: sub.json().subscriptionId as string };
}

/** A PaymentIntent as Stripe sends it in events, made through this service (metadata names church and funds). */
const paymentIntent = (churchId: string, funds: string, extra: Record<string, unknown> = {}) => ({
  id: `pi_${randomUUID().slice(0, 12)}`,
  object: 'payment_intent',
  amount: 5000,
  amount_received: 5000,
  currency: 'usd',
  customer: 'cus_123',
  payment_method_types: ['card'],
  status: 'succeeded',
  metadata: { churchId, personId: '', funds, fee: '0.00', email: '' },
  ...extra,
});

describe('POST /giving/donate/webhook/:provider', () => {
  it('refuses an unsigned or wrongly signed event with 400 and records nothing', async () => {
    const c = await church();
    const event = t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`));
    const unsigned = await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe?churchId=${c.churchId}`, payload: JSON.stringify(event), headers: { 'content-type': 'application/json' } });
    expect(unsigned.statusCode).toBe(400);
    const forged = await deliver(t, c.churchId, event, 'whsec_wrong');
    expect(forged.statusCode).toBe(400);
    expect(forged.json().errors[0].msg).toMatch(/signature/i);
    // a signature older than the tolerance (5 minutes)
    const { body, headers } = signedStripe(event, 'whsec_test_secret', Math.floor(Date.now() / 1000) - 600);
    expect((await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe?churchId=${c.churchId}`, payload: body, headers })).statusCode).toBe(400);
    // a body changed after signing
    const signed = signedStripe(event);
    const tampered = await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe?churchId=${c.churchId}`, payload: signed.body.replace('5000', '9000'), headers: signed.headers });
    expect(tampered.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe`, payload: signed.body, headers: signed.headers })).statusCode).toBe(400);
    await t.drain();
    expect(await t.app.db.select().from(webhookEvents).where(eq(webhookEvents.churchId, c.churchId))).toHaveLength(0);
    expect(await donationsOf(c.churchId)).toHaveLength(0);
  });

  it('verifies with a new webhook secret as soon as it is saved, and checks a refused event against the gateway as it is now', async () => {
    const c = await church();
    const settings = c.token(['Settings.Edit']);
    const first = t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`));
    expect((await deliver(t, c.churchId, first)).statusCode).toBe(200);
    const [gateway] = (await call(t.app, 'GET', '/giving/gateways', { token: settings })).json() as Array<{ id: string }>;
    expect((await call(t.app, 'POST', '/giving/gateways', { token: settings, body: { id: gateway!.id, webhookKey: 'whsec_rotated' } })).statusCode).toBe(200);
    const second = t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`));
    expect((await deliver(t, c.churchId, second, 'whsec_rotated')).statusCode).toBe(200);
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`)), 'whsec_wrong')).statusCode).toBe(400);
    expect((await call(t.app, 'DELETE', `/giving/gateways/${gateway!.id}`, { token: settings })).statusCode).toBe(200);
    // a wrongly signed event is checked against the gateway as it is now: none
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`)), 'whsec_wrong')).statusCode).toBe(400);
    await t.drain();
    expect((await donationsOf(c.churchId)).map((d) => d.transactionId).sort()).toEqual([first, second].map((e) => (e.data as { object: { id: string } }).object.id).sort());
  });

  it('records a successful payment once, even when 100 copies arrive at once, and logs the event', async () => {
    const c = await church();
    const donor = makePerson('Wendy', 'Webhook');
    const pi = paymentIntent(c.churchId, `${c.general}:3000,${c.missions}:2000`, { metadata: { churchId: c.churchId, personId: donor.id, funds: `${c.general}:3000,${c.missions}:2000`, fee: '0.00', email: '' } });
    const event = t.stripe.event('payment_intent.succeeded', pi);
    const answers = await Promise.all(Array.from({ length: 100 }, () => deliver(t, c.churchId, event)));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(answers.filter((a) => a.json().duplicate === false)).toHaveLength(1);
    // a new payment is recorded within its delivery: the donation is there when the answers are, before any job
    const [recorded] = await t.app.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, event.id));
    expect(recorded).toMatchObject({ outcome: expect.stringContaining('recorded') });
    expect(recorded!.processedAt).toBeInstanceOf(Date);
    expect(await donationsOf(c.churchId)).toHaveLength(1);
    await t.drain();
    const rows = await donationsOf(c.churchId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: '50.00', status: 'complete', transactionId: pi.id, personId: donor.id, provider: 'stripe' });
    expect(await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, rows[0]!.id))).toHaveLength(2);
    const log = await call(t.app, 'GET', '/giving/eventLog/type/payment_intent.succeeded', { token: c.token(['Donations.ViewSummary']) });
    expect(log.json()).toEqual([expect.objectContaining({ providerId: event.id, status: 'processed', message: expect.stringContaining('recorded') })]);
    expect(readMailbox(t.config).filter((m) => m.to === donor.email)).toHaveLength(1);
  });

  it('flips a pending ACH donation to complete on the late success, never adding a second; a failure marks it failed', async () => {
    const c = await church();
    const funds = `${c.general}:5000`;
    const ach = paymentIntent(c.churchId, funds, { payment_method_types: ['us_bank_account'], status: 'processing', amount_received: 0 });
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.processing', ach))).statusCode).toBe(200);
    await t.drain();
    expect((await donationsOf(c.churchId)).map((d) => [d.status, d.method])).toEqual([['pending', 'ach']]);
    await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', { ...ach, status: 'succeeded', amount_received: 5000 }));
    await t.drain();
    // a "processing" delivered late does not downgrade it
    await deliver(t, c.churchId, t.stripe.event('payment_intent.processing', ach));
    await t.drain();
    const rows = await donationsOf(c.churchId);
    expect(rows.map((d) => [d.status, d.transactionId])).toEqual([['complete', ach.id]]);

    // processing and failure of another debit, their effects running at the same time: failed either way
    const other = paymentIntent(c.churchId, funds, { payment_method_types: ['us_bank_account'], status: 'processing' });
    await deliver(t, c.churchId, t.stripe.event('payment_intent.processing', other));
    await deliver(t, c.churchId, t.stripe.event('payment_intent.payment_failed', { ...other, status: 'requires_payment_method' }));
    await t.drain();
    // and a failure that arrives before the "processing" of the same debit
    const late = paymentIntent(c.churchId, funds, { payment_method_types: ['us_bank_account'], status: 'processing' });
    await deliver(t, c.churchId, t.stripe.event('payment_intent.payment_failed', { ...late, status: 'requires_payment_method' }));
    await t.drain();
    await deliver(t, c.churchId, t.stripe.event('payment_intent.processing', late));
    await t.drain();
    const lateRows = await t.app.db.select().from(donations).where(and(eq(donations.churchId, c.churchId), eq(donations.transactionId, late.id)));
    expect(lateRows.map((d) => d.status)).toEqual(['failed']);
    const failed = await t.app.db.select().from(donations).where(and(eq(donations.churchId, c.churchId), eq(donations.transactionId, other.id)));
    expect(failed.map((d) => d.status)).toEqual(['failed']);
  });

  it('turns a paid subscription invoice into a donation allocated like the subscription, and a cancelled subscription is removed', async () => {
    const c = await church();
    const donor = makePerson('Ivy', 'Invoice');
    const sub = await subscribeMonthly(c, donor);
    const providerSub = sub.providerId;
    const invoice = { id: `in_${randomUUID().slice(0, 10)}`, object: 'invoice', amount_paid: 4000, currency: 'usd', parent: { type: 'subscription_details', subscription_details: { subscription: providerSub } } };
    await deliver(t, c.churchId, t.stripe.event('invoice.paid', invoice));
    await deliver(t, c.churchId, t.stripe.event('invoice.payment_succeeded', invoice));
    await t.drain();
    const rows = await donationsOf(c.churchId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: '40.00', transactionId: invoice.id, subscriptionId: sub.id, personId: donor.id });
    const allocations = await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, rows[0]!.id));
    expect(allocations.map((a) => [a.fundId, a.amount]).sort()).toEqual([[c.general, '25.00'], [c.missions, '15.00']].sort());

    await deliver(t, c.churchId, t.stripe.event('customer.subscription.deleted', { id: providerSub, object: 'subscription', status: 'canceled' }));
    await t.drain();
    expect(await t.app.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id))).toHaveLength(0);
  });

  it('marks a refunded donation, fully or in part', async () => {
    const c = await church();
    const token = c.token([]);
    const charged = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { id: 'pm_card_visa', amount: 30, funds: [{ id: c.general, amount: 30 }] } });
    const pi = charged.json().id;
    await deliver(t, c.churchId, t.stripe.event('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: pi, amount: 3000, amount_refunded: 1000 }));
    await t.drain();
    expect((await donationsOf(c.churchId))[0]).toMatchObject({ status: 'complete', refundedAmount: '10.00' });
    await deliver(t, c.churchId, t.stripe.event('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: pi, amount: 3000, amount_refunded: 3000 }));
    await t.drain();
    expect((await donationsOf(c.churchId))[0]).toMatchObject({ status: 'refunded', refundedAmount: '30.00' });
    // the charge's own success event, arriving after, changes nothing
    await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:3000`, { id: pi, amount: 3000, amount_received: 3000 })));
    await t.drain();
    expect(await donationsOf(c.churchId)).toHaveLength(1);
  });

  it("applies a refund of a subscription period's payment to that period's donation, found through the payment's invoice", async () => {
    const c = await church();
    const donor = makePerson('Rhea', 'Refund');
    const sub = await subscribeMonthly(c, donor);
    // two periods paid; the second one's payment is refunded
    const first = t.stripe.payInvoice(sub.providerId, 4000);
    const second = t.stripe.payInvoice(sub.providerId, 4000);
    for (const period of [first, second]) expect((await deliver(t, c.churchId, t.stripe.event('invoice.paid', period.invoice))).statusCode).toBe(200);
    await t.drain();
    const byInvoice = async (invoiceId: string) => (await donationsOf(c.churchId)).find((d) => d.transactionId === invoiceId)!;
    expect(await byInvoice(second.invoice.id)).toMatchObject({ amount: '40.00', status: 'complete', refundedAmount: '0.00', subscriptionId: sub.id });
    const lookups = () => t.stripe.requests('GET', '/v1/invoice_payments').filter((r) => r.query.get('payment[payment_intent]') === second.paymentIntent.id);

    // a partial refund: the charge names only its PaymentIntent; the invoice is asked of Stripe
    const partial = t.stripe.event('charge.refunded', t.stripe.refundCharge(second.charge.id, 1500));
    expect((await deliver(t, c.churchId, partial)).statusCode).toBe(200);
    await t.drain();
    expect(await byInvoice(second.invoice.id)).toMatchObject({ status: 'complete', refundedAmount: '15.00' });
    expect(lookups()).toHaveLength(1);
    expect(lookups()[0]!.query.get('payment[type]')).toBe('payment_intent');

    // the rest: refunded in full
    const full = t.stripe.event('charge.refunded', t.stripe.refundCharge(second.charge.id, 2500));
    await deliver(t, c.churchId, full);
    await t.drain();
    expect(await byInvoice(second.invoice.id)).toMatchObject({ status: 'refunded', refundedAmount: '40.00' });
    // the other period is untouched
    expect(await byInvoice(first.invoice.id)).toMatchObject({ status: 'complete', refundedAmount: '0.00' });

    // replays of either event (de-duplicated by event id) change nothing and ask Stripe nothing
    for (const again of [full, partial]) {
      const res = await deliver(t, c.churchId, again);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ duplicate: true });
    }
    await t.drain();
    expect(await byInvoice(second.invoice.id)).toMatchObject({ status: 'refunded', refundedAmount: '40.00' });
    expect(lookups()).toHaveLength(2);
    expect(await donationsOf(c.churchId)).toHaveLength(2);
    const log = await call(t.app, 'GET', '/giving/eventLog/type/charge.refunded', { token: c.token(['Donations.ViewSummary']) });
    expect((log.json() as Array<{ providerId: string; status: string; message: string }>).map((l) => [l.providerId, l.status]).sort()).toEqual([[partial.id, 'processed'], [full.id, 'processed']].sort());
  });

  it('acknowledges an event type it does not act on, and logs it as ignored', async () => {
    const c = await church();
    const res = await deliver(t, c.churchId, t.stripe.event('customer.created', { id: 'cus_9', object: 'customer' }));
    expect(res.statusCode).toBe(200);
    await t.drain();
    const [log] = await t.app.db.select().from(eventLogs).where(eq(eventLogs.churchId, c.churchId));
    expect(log).toMatchObject({ eventType: 'customer.created', status: 'ignored' });
  });
});

describe('POST /giving/donate/replay-gatewayA-events', () => {
  it('lists the provider events of the range, reports the missing ones on a dry run and processes them otherwise', async () => {
    const c = await church();
    const seen = t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.general}:5000`));
    await deliver(t, c.churchId, seen);
    await t.drain();
    const missed = t.stripe.event('payment_intent.succeeded', paymentIntent(c.churchId, `${c.missions}:5000`));
    const today = new Date().toISOString().slice(0, 10);
    const edit = c.token(['Donations.Edit']);
    expect((await call(t.app, 'POST', '/giving/donate/replay-gatewayA-events', { token: c.token(['Donations.View']), body: { startDate: today, endDate: today } })).statusCode).toBe(401);

    const dry = await call(t.app, 'POST', '/giving/donate/replay-gatewayA-events', { token: edit, body: { startDate: today, endDate: today, dryRun: true } });
    expect(dry.statusCode).toBe(200);
    expect(dry.json().events).toEqual(expect.arrayContaining([expect.objectContaining({ id: missed.id, action: 'would process' }), expect.objectContaining({ id: seen.id, action: 'already recorded' })]));
    await t.drain();
    expect(await donationsOf(c.churchId)).toHaveLength(1);

    const run = await call(t.app, 'POST', '/giving/donate/replay-gatewayA-events', { token: edit, body: { startDate: today, endDate: today } });
    expect(run.json()).toMatchObject({ dryRun: false });
    expect(run.json().events).toEqual(expect.arrayContaining([expect.objectContaining({ id: missed.id, action: 'processed' }), expect.objectContaining({ id: seen.id, action: 'already recorded' })]));
    expect(run.json().processed).toBe(run.json().events.filter((e: { action: string }) => e.action === 'processed').length);
    await t.drain();
    const rows = await donationsOf(c.churchId);
    expect(rows.map((r) => r.transactionId).sort()).toEqual([(seen.data as { object: { id: string } }).object.id, (missed.data as { object: { id: string } }).object.id].sort());
    const again = await call(t.app, 'POST', '/giving/donate/replay-gatewayA-events', { token: edit, body: { startDate: today, endDate: today } });
    expect(again.json().processed).toBe(0);

    const bad = await call(t.app, 'POST', '/giving/donate/replay-gatewayA-events', { token: edit, body: { startDate: today, endDate: '2000-01-01' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('endDate');
  });
});
