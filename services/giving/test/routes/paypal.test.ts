import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { donations, registrationPayments, subscriptions } from '../../src/db/schema';
import { makeChurch, makeFunds, makePerson, signedInternal, useGiving } from '../setup';
import { paypalHeaders, usePaypal } from '../fake-paypal';

const paypal = usePaypal();
const t = useGiving({ config: paypal.config() });

async function church() {
  const c = makeChurch();
  const res = await call(t.app, 'POST', '/giving/gateways', { token: c.token(['Settings.Edit']), body: { provider: 'paypal', publicKey: 'client-id-123', privateKey: 'client-secret-456', webhookId: 'WH-123' } });
  if (res.statusCode !== 200) throw new Error(res.body);
  const [fund] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
  return { ...c, fund: fund! };
}

describe('PayPal through @paypal/paypal-server-sdk', () => {
  it('creates an order, captures it on charge and records the donation by its capture id', async () => {
    const c = await church();
    const donor = makePerson('Paula', 'Pal');
    const token = c.token([], { personId: donor.id });
    const order = await call(t.app, 'POST', '/giving/donate/create-order', { token, body: { provider: 'paypal', amount: 20, currency: 'usd', funds: [{ id: c.fund, amount: 20 }] } });
    expect(order.statusCode).toBe(200);
    expect(order.json()).toMatchObject({ status: 'CREATED', provider: 'paypal' });
    const created = paypal.seen.find((r) => r.path === '/v2/checkout/orders')!;
    expect(created.json).toMatchObject({ intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '20.00' }, custom_id: `${c.churchId}:${donor.id}` }] });

    const mismatch = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { provider: 'paypal', orderId: order.json().id, amount: 15, funds: [{ id: c.fund, amount: 15 }] } });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().errors[0].param).toBe('amount');
    const charged = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { provider: 'paypal', orderId: order.json().id, amount: 20, funds: [{ id: c.fund, amount: 20 }] } });
    expect(charged.statusCode).toBe(200);
    expect(charged.json()).toMatchObject({ status: 'COMPLETED', provider: 'paypal' });
    const rows = await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId));
    expect(rows).toEqual([expect.objectContaining({ amount: '20.00', status: 'complete', method: 'paypal', transactionId: charged.json().id, personId: donor.id })]);

    const declined = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { provider: 'paypal', orderId: 'DECLINE', amount: 20, funds: [{ id: c.fund, amount: 20 }] } });
    expect(declined.statusCode).toBe(402);
    const outage = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { provider: 'paypal', orderId: 'FAIL500', amount: 20, funds: [{ id: c.fund, amount: 20 }] } });
    expect(outage.statusCode).toBe(502);
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toHaveLength(1);
  });

  it("captures a registration's approved order once (content's registration charge), only for the registration's price", async () => {
    const c = await church();
    const order = await call(t.app, 'POST', '/giving/donate/create-order', { token: c.token([]), body: { provider: 'paypal', amount: 20, funds: [{ id: c.fund, amount: 20 }] } });
    const body = { churchId: c.churchId, registrationId: c.personId, personId: null, email: null, name: 'Walk In', amount: '20.00', provider: 'paypal', token: order.json().id, idempotencyKey: 'pay-1' };
    const url = '/giving/internal/registrations/charge';
    const wrong = await signedInternal(t, url, { ...body, amount: '15.00', idempotencyKey: 'pay-0' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].param).toBe('amount');
    const paid = await signedInternal(t, url, body);
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'succeeded', provider: 'paypal', amount: '20.00', currency: 'usd', transactionId: expect.any(String) });
    expect((await signedInternal(t, url, body)).json()).toEqual(paid.json());
    expect(paypal.seen.filter((r) => r.path === `/v2/checkout/orders/${order.json().id}/capture`)).toHaveLength(1);
    expect(await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.churchId, c.churchId))).toEqual([expect.objectContaining({ status: 'succeeded', method: 'paypal', amount: '20.00' })]);
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toEqual([]);
    const declined = await signedInternal(t, url, { ...body, token: 'DECLINE', idempotencyKey: 'pay-2' });
    expect(declined.statusCode).toBe(400);
    expect(declined.json().errors[0].param).toBe('paymentMethodId');
  });

  it('verifies webhooks with PayPal and applies a refund to the captured donation', async () => {
    const c = await church();
    const token = c.token([]);
    const order = await call(t.app, 'POST', '/giving/donate/create-order', { token, body: { amount: 10, funds: [{ id: c.fund, amount: 10 }] } });
    const charged = await call(t.app, 'POST', '/giving/donate/charge', { token, body: { provider: 'paypal', orderId: order.json().id, amount: 10, funds: [{ id: c.fund, amount: 10 }] } });
    const capture = charged.json().id;
    const event = {
      id: 'WH-EVT-1',
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      create_time: new Date().toISOString(),
      resource: { id: 'REF-1', amount: { value: '10.00', currency_code: 'USD' }, links: [{ rel: 'up', href: `https://api.sandbox.paypal.com/v2/payments/captures/${capture}` }] },
    };
    const bad = await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/paypal?churchId=${c.churchId}`, payload: JSON.stringify(event), headers: paypalHeaders('forged') });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({ method: 'POST', url: `/giving/donate/webhook/paypal?churchId=${c.churchId}`, payload: JSON.stringify(event), headers: paypalHeaders() });
    expect(ok.statusCode).toBe(200);
    await t.drain();
    const [row] = await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId));
    expect(row).toMatchObject({ status: 'refunded', refundedAmount: '10.00' });
  });

  it('subscribes with a billing plan and cancels at PayPal', async () => {
    const c = await church();
    const donor = makePerson('Rex', 'Recurring');
    const token = c.token([], { personId: donor.id });
    const res = await call(t.app, 'POST', '/giving/donate/subscribe', { token, body: { provider: 'paypal', amount: 15, interval: { interval: 'week', interval_count: 2 }, funds: [{ id: c.fund, amount: 15 }] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'approval_pending', provider: 'paypal' });
    const plan = paypal.seen.filter((r) => r.path === '/v1/billing/plans').at(-1)!;
    expect(plan.json).toMatchObject({ billing_cycles: [{ frequency: { interval_unit: 'WEEK', interval_count: 2 }, pricing_scheme: { fixed_price: { value: '15.00', currency_code: 'USD' } } }] });
    const del = await call(t.app, 'DELETE', `/giving/subscriptions/${res.json().id}`, { token, body: { provider: 'paypal', reason: 'budget' } });
    expect(del.statusCode).toBe(200);
    expect(paypal.seen.filter((r) => r.path === `/v1/billing/subscriptions/${res.json().subscriptionId}/cancel`)).toHaveLength(1);
    expect(await t.app.db.select().from(subscriptions).where(eq(subscriptions.churchId, c.churchId))).toHaveLength(0);
  });

  it('logs a donation only as PayPal confirms it (POST /donate/log)', async () => {
    const c = await church();
    const order = await call(t.app, 'POST', '/giving/donate/create-order', { token: c.token([]), body: { amount: 12, funds: [{ id: c.fund, amount: 12 }] } });
    const unknown = await call(t.app, 'POST', '/giving/donate/log', { body: { donation: { churchId: c.churchId, provider: 'paypal', transactionId: 'NOPE' }, fundData: [{ fundId: c.fund, amount: 12 }] } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].param).toBe('donation.transactionId');
    const logged = await call(t.app, 'POST', '/giving/donate/log', { body: { donation: { churchId: c.churchId, provider: 'paypal', transactionId: order.json().id }, fundData: [{ fundId: c.fund, amount: 12 }] } });
    expect(logged.statusCode).toBe(200);
    // an approved but not yet captured order is recorded as pending, with PayPal's amount
    expect(logged.json()).toMatchObject({ created: true, status: 'pending' });
    const again = await call(t.app, 'POST', '/giving/donate/log', { body: { donation: { churchId: c.churchId, provider: 'paypal', transactionId: order.json().id }, fundData: [{ fundId: c.fund, amount: 12 }] } });
    expect(again.json()).toMatchObject({ created: false, donationId: logged.json().donationId });
  });

  it('takes the donor from the payment, never from the body of the public log (issue 31 item 8)', async () => {
    const c = await church();
    const donor = makePerson('Gina', 'Giver');
    const claimant = makePerson('Carl', 'Claimant');
    const order = await call(t.app, 'POST', '/giving/donate/create-order', { token: c.token([], { personId: donor.id }), body: { amount: 12, funds: [{ id: c.fund, amount: 12 }] } });
    // whoever learns the payment id first names themselves as the giver
    const logged = await call(t.app, 'POST', '/giving/donate/log', { body: { donation: { churchId: c.churchId, provider: 'paypal', transactionId: order.json().id, personId: claimant.id }, fundData: [{ fundId: c.fund, amount: 12 }] } });
    expect(logged.statusCode).toBe(200);
    const [row] = await t.app.db.select().from(donations).where(eq(donations.id, logged.json().donationId));
    expect(row!.personId).toBe(donor.id);
  });
});
