import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { customers, donations, fundDonations, paymentMethods, registrationPayments } from '../../src/db/schema';
import { STALE_CLAIM_MS } from '../../src/domain/registration-charge';
import { deliver, makeChurch, signedInternal, makeFunds, makePerson, makeStripeGateway, useGiving } from '../setup';

const t = useGiving();

const signed = (url: string, body: unknown, secret?: string) => signedInternal(t, url, body, secret);

const reported = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);

describe('POST /giving/internal/people/donors', () => {
  const url = '/giving/internal/people/donors';

  it('refuses unsigned, badly signed and token-bearing calls', async () => {
    const c = makeChurch();
    const body = { churchId: c.churchId };
    expect((await call(t.app, 'POST', url, { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', url, { body, token: c.token('all', { serverAdmin: true }) })).statusCode).toBe(401);
    expect((await signed(url, body, 'another-secret-another-secret-another')).statusCode).toBe(401);
    expect((await signed(url, body)).statusCode).toBe(200);
  });

  it('answers the people with complete gifts, to a fund, in UTC days both included', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const [p1, p2, p3, p4] = [makePerson().id, makePerson().id, makePerson().id, makePerson().id].sort();
    const give = async (personId: string | null, day: string, fundId: string, status = 'complete') => {
      const res = await call(t.app, 'POST', '/giving/donations', { token: edit, body: { personId, donationDate: day, amount: 10, status, funds: [{ fundId, amount: 10 }] } });
      expect(res.statusCode).toBe(200);
      return res.json()[0].id as string;
    };
    await give(p1, '2024-01-01T00:00:00Z', general);
    await give(p1, '2024-01-20T12:00:00Z', missions);
    await give(p2, '2024-01-31T23:59:00Z', general);
    await give(p3, '2024-02-01T00:00:00Z', missions);
    await give(p4, '2024-01-10T10:00:00Z', general, 'pending');
    await give(null, '2024-01-10T10:00:00Z', general);
    // another church's gift of a person is not a gift to this church
    const other = makeChurch();
    await call(t.app, 'POST', '/giving/donations', { token: other.token(['Donations.Edit']), body: { personId: p4, donationDate: '2024-01-10', amount: 5 } });

    const donors = async (filter: object) => {
      const res = await signed(url, { churchId: c.churchId, ...filter });
      expect(res.statusCode).toBe(200);
      return res.json().personIds;
    };
    expect(await donors({})).toEqual([p1, p2, p3]);
    expect(await donors({ startDate: '2024-01-01', endDate: '2024-01-31' })).toEqual([p1, p2]);
    // membership sends a day's start as an instant (`toISOString`)
    expect(await donors({ startDate: '2024-01-02T00:00:00.000Z', endDate: '2024-02-01T00:00:00.000Z' })).toEqual([p1, p2, p3]);
    expect(await donors({ fundId: general })).toEqual([p1, p2]);
    expect(await donors({ fundId: missions, endDate: '2024-01-31' })).toEqual([p1]);
    expect(await donors({ fundId: general, startDate: '2024-01-02' })).toEqual([p2]);
    expect(await donors({ fundId: randomUUID() })).toEqual([]);
    // a gift that becomes complete counts from then on
    const late = await give(p4, '2024-01-15T00:00:00Z', missions, 'pending');
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: late, status: 'complete' } });
    expect(await donors({ fundId: missions, endDate: '2024-01-31' })).toEqual([p1, p4].sort());

    const bad = await signed(url, { churchId: c.churchId, fundId: 'general', startDate: 'soon' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { param: string }) => e.param).sort()).toEqual(['fundId', 'startDate']);
  });
});

describe('POST /giving/internal/registrations/charge', () => {
  const url = '/giving/internal/registrations/charge';
  const charge = (c: { churchId: string }, extra: Record<string, unknown> = {}) =>
    signed(url, { churchId: c.churchId, registrationId: '6f1c1d3e-0000-4000-8000-000000000001', personId: null, email: 'reg@example.test', name: 'Reg Istrant', amount: '25.00', paymentMethodId: 'pm_card_visa', idempotencyKey: randomUUID(), ...extra });
  const intents = () => t.stripe.requests('POST', '/v1/payment_intents');

  it('refuses unsigned calls', async () => {
    expect((await call(t.app, 'POST', url, { body: { churchId: makeChurch().churchId } })).statusCode).toBe(401);
  });

  it('charges once per idempotency key, keeps a payment of the registration (no gift), and reports it', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const person = makePerson('Reg', 'Istrant');
    const registrationId = randomUUID();
    const body = { churchId: c.churchId, registrationId, personId: person.id, email: person.email, name: 'Reg Istrant', amount: '25.50', paymentMethodId: 'pm_card_visa', idempotencyKey: 'reg-1' };
    const before = intents().length;
    const first = await signed(url, body);
    expect(first.statusCode).toBe(200);
    const answer = first.json();
    expect(answer).toEqual({ status: 'succeeded', paymentId: expect.any(String), provider: 'stripe', transactionId: expect.stringMatching(/^pi_/), amount: '25.50', currency: 'usd', clientSecret: null });
    // the retry (content's pay sent twice, or retried after a timeout) answers the first payment, charged once
    const again = await signed(url, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(answer);
    expect(intents().length).toBe(before + 1);
    const sent = intents().at(-1)!;
    expect(sent.form.get('amount')).toBe('2550');
    expect(sent.form.get('currency')).toBe('usd');
    expect(sent.form.get('metadata[registrationId]')).toBe(registrationId);
    expect(sent.form.get('metadata[funds]')).toBeNull();
    expect(sent.headers['idempotency-key']).toContain('reg-1');

    // the same key with another body is a conflict, and charges nothing
    const changed = await signed(url, { ...body, amount: '30.00' });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().errors[0]).toMatch(/another payment/);
    expect(intents().length).toBe(before + 1);
    // the key is the church's: another church's same key is its own payment
    const other = makeChurch();
    await makeStripeGateway(t, other.token(['Settings.Edit']));
    const theirs = await signed(url, { ...body, churchId: other.churchId });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().paymentId).not.toBe(answer.paymentId);

    const [row] = await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.id, answer.paymentId));
    expect(row).toMatchObject({ churchId: c.churchId, registrationId, personId: person.id, amount: '25.50', currency: 'usd', status: 'succeeded', provider: 'stripe', method: 'card', transactionId: answer.transactionId });
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toEqual([]);
    await t.drain();
    const change = reported().find((r) => r.entityId === answer.paymentId)!;
    expect(change).toMatchObject({ churchId: c.churchId, entityType: 'registrationPayment', action: 'created' });
    expect(JSON.stringify(change)).not.toContain('request_hash');
  });

  it('charges once when the same pay arrives twice at once, and finishes a charge a stopped process left', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const before = intents().length;
    const body = { churchId: c.churchId, registrationId: randomUUID(), personId: null, email: null, name: null, amount: '10.00', paymentMethodId: 'pm_card_visa', idempotencyKey: 'twice' };
    // (a few milliseconds apart: the same signature twice would be refused as a replayed request)
    const both = await Promise.all([signed(url, body), new Promise((r) => setTimeout(r, 5)).then(() => signed(url, body))]);
    expect(both.map((r) => r.statusCode).sort()).toEqual(expect.arrayContaining([200]));
    for (const r of both) expect([200, 409]).toContain(r.statusCode);
    expect(intents().length).toBe(before + 1);
    const first = both.find((r) => r.statusCode === 200)!.json();

    // a claim still charging (its process is at the gateway) is a 409, never a second charge
    await t.app.db.update(registrationPayments).set({ status: 'charging', transactionId: null }).where(eq(registrationPayments.id, first.paymentId));
    expect((await signed(url, body)).statusCode).toBe(409);
    // one left for minutes (its process stopped) is taken over: the gateway answers its first payment again
    await t.app.db.update(registrationPayments).set({ updatedAt: new Date(Date.now() - STALE_CLAIM_MS - 1000) }).where(eq(registrationPayments.id, first.paymentId));
    const finished = await signed(url, body);
    expect(finished.statusCode).toBe(200);
    expect(finished.json()).toEqual(first);
    expect(new Set(intents().slice(before).map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.churchId, c.churchId))).toEqual([expect.objectContaining({ status: 'succeeded', transactionId: first.transactionId })]);
  });

  it('answers requires_action with the client secret, and a bank debit as processing', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const action = await charge(c, { paymentMethodId: 'pm_card_threeDSecure2Required' });
    expect(action.statusCode).toBe(200);
    expect(action.json()).toMatchObject({ status: 'requires_action', clientSecret: expect.stringContaining('_secret_') });
    const debitBody = { paymentMethodId: 'pm_usBankAccount', type: 'bank', idempotencyKey: 'debit-1' };
    const bank = await charge(c, debitBody);
    expect(bank.json()).toMatchObject({ status: 'processing', clientSecret: null });

    // the browser finishes 3-D Secure: the gateway's event moves the payment, and records no gift
    const pi = { ...t.stripe.objects.get(action.json().transactionId)!, status: 'succeeded', amount_received: 2500 };
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.succeeded', pi))).statusCode).toBe(200);
    await t.drain();
    const [row] = await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.id, action.json().paymentId));
    expect(row).toMatchObject({ status: 'succeeded', clientSecret: null });
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toEqual([]);
    expect(reported().find((r) => r.entityId === row!.id && r.action === 'updated')).toMatchObject({ changes: { status: { before: 'requires_action', after: 'succeeded' } } });
    // a failed bank debit: the key's retry says so, and charges nothing
    const debit = { ...t.stripe.objects.get(bank.json().transactionId)!, status: 'requires_payment_method' };
    await deliver(t, c.churchId, t.stripe.event('payment_intent.payment_failed', debit));
    await t.drain();
    const intentsBefore = intents().length;
    const retried = await charge(c, debitBody);
    expect(retried.statusCode).toBe(400);
    expect(retried.json().errors[0].msg).toMatch(/failed at the gateway/);
    expect(intents().length).toBe(intentsBefore);
  });

  it('refuses a declined card, an unknown gateway, a church without one, another currency and another person’s customer with a 400 sentence', async () => {
    const c = makeChurch();
    const none = await charge(c);
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].msg).toMatch(/not configured/);
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const before = intents().length;

    const declined = await charge(c, { paymentMethodId: 'pm_card_chargeDeclined', idempotencyKey: 'declined' });
    expect(declined.statusCode).toBe(400);
    expect(declined.json().errors[0]).toMatchObject({ param: 'paymentMethodId', msg: expect.stringMatching(/declined/) });
    // nothing kept: the key is free for another try
    expect(await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.churchId, c.churchId))).toEqual([]);

    const gateway = await charge(c, { gatewayId: randomUUID() });
    expect(gateway.statusCode).toBe(400);
    expect(gateway.json().errors[0].param).toBe('gatewayId');
    const other = makeChurch();
    const theirGateway = await makeStripeGateway(t, other.token(['Settings.Edit']));
    expect((await charge(c, { gatewayId: theirGateway })).statusCode).toBe(400);
    expect((await charge(c, { provider: 'paypal' })).statusCode).toBe(400);
    const [{ id: ours }] = (await call(t.app, 'GET', '/giving/gateways', { token: c.token(['Settings.Edit']) })).json();
    expect((await charge(c, { gatewayId: ours, provider: 'paypal' })).json().errors[0].param).toBe('provider');
    expect((await charge(c, { provider: 'square' })).json().errors[0].param).toBe('provider');
    expect((await charge(c, { currency: 'eur' })).json().errors[0].param).toBe('currency');
    expect((await charge(c, { amount: '0' })).json().errors[0].param).toBe('amount');
    expect((await charge(c, { amount: '12.5.0' })).json().errors[0].param).toBe('amount');
    expect((await charge(c, { paymentMethodId: undefined })).json().errors[0].param).toBe('paymentMethodId');

    // a saved method is charged with its customer, and only the registering person's own
    const owner = makePerson('Olive', 'Owner');
    await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: c.token([], { personId: owner.id }), body: { id: 'pm_card_visa', personId: owner.id, email: owner.email, provider: 'stripe' } });
    const [customer] = await t.app.db.select().from(customers).where(and(eq(customers.churchId, c.churchId), eq(customers.personId, owner.id)));
    const stolen = await charge(c, { personId: randomUUID(), customerId: customer!.providerCustomerId });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().errors[0].param).toBe('customerId');
    expect(intents().length - before).toBe(1); // only the declined attempt reached the gateway
    const own = await charge(c, { personId: owner.id, customerId: customer!.providerCustomerId });
    expect(own.statusCode).toBe(200);
    expect(intents().at(-1)!.form.get('customer')).toBe(customer!.providerCustomerId);
  });
});

describe('GDPR: POST /giving/internal/gdpr/export and /anonymize', () => {
  it('exports a person’s records as the API shows them, then anonymizes them keeping every amount, once', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, edit, ['General']);
    const person = makePerson('Gail', 'Giver');
    const bystander = makePerson('Bea', 'Bystander');
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { personId: person.id, amount: 40, method: 'check', methodDetails: '1042', notes: 'from Gail, for the roof', funds: [{ fundId: general, amount: 40 }] } })).json();
    const [theirs] = (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { personId: bystander.id, amount: 5, notes: 'Bea', funds: [{ fundId: general, amount: 5 }] } })).json();
    await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token: c.token([], { personId: person.id }), body: { id: 'pm_card_visa', personId: person.id, email: person.email, name: 'Gail Giver', provider: 'stripe' } });
    const paid = await signed('/giving/internal/registrations/charge', { churchId: c.churchId, registrationId: randomUUID(), personId: person.id, email: person.email, name: 'Gail Giver', amount: '15.00', paymentMethodId: 'pm_card_visa', idempotencyKey: 'gdpr' });
    expect(paid.statusCode).toBe(200);

    const exported = await signed('/giving/internal/gdpr/export', { churchId: c.churchId, personId: person.id });
    expect(exported.statusCode).toBe(200);
    const data = exported.json().data;
    expect(data.donations).toEqual([expect.objectContaining({ id: gift.id, amount: 40, notes: 'from Gail, for the roof', methodDetails: '1042', funds: [expect.objectContaining({ fundId: general, amount: 40 })] })]);
    expect(data.allocations).toEqual([expect.objectContaining({ donationId: gift.id, fundId: general, amount: 40 })]);
    expect(data.customers).toEqual([expect.objectContaining({ personId: person.id, email: person.email, name: 'Gail Giver', provider: 'stripe' })]);
    expect(data.paymentMethods).toEqual([expect.objectContaining({ id: 'pm_card_visa', brand: 'visa', last4: '4242' })]);
    expect(data.registrationPayments).toEqual([expect.objectContaining({ amount: 15, status: 'succeeded', email: person.email })]);
    expect(data.subscriptions).toEqual([]);
    expect(data.pledges).toEqual([]);
    // no secret leaves: no gateway key, idempotency key or client secret
    expect(exported.body).not.toMatch(/sk_test|whsec|requestHash|clientSecret|idempotencyKey/);
    // another church's export of the person is empty
    const elsewhere = (await signed('/giving/internal/gdpr/export', { churchId: makeChurch().churchId, personId: person.id })).json().data;
    expect(Object.values(elsewhere).every((rows) => (rows as unknown[]).length === 0)).toBe(true);

    const anonymized = await signed('/giving/internal/gdpr/anonymize', { churchId: c.churchId, personId: person.id });
    expect(anonymized.statusCode).toBe(200);
    expect(anonymized.json()).toEqual({ changed: { donations: 1, customers: 1, paymentMethods: 1, registrationPayments: 1 } });
    const [row] = await t.app.db.select().from(donations).where(eq(donations.id, gift.id));
    expect(row).toMatchObject({ personId: person.id, amount: '40.00', status: 'complete', email: null, notes: null, methodDetails: null, method: 'check' });
    expect((await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, gift.id)))[0]).toMatchObject({ amount: '40.00', fundId: general });
    expect(await t.app.db.select().from(paymentMethods).where(eq(paymentMethods.churchId, c.churchId))).toEqual([]);
    const [customer] = await t.app.db.select().from(customers).where(eq(customers.churchId, c.churchId));
    expect(customer).toMatchObject({ personId: null, email: null, name: null });
    const [payment] = await t.app.db.select().from(registrationPayments).where(eq(registrationPayments.churchId, c.churchId));
    expect(payment).toMatchObject({ personId: person.id, amount: '15.00', email: null, name: null });
    // the bystander is untouched, and the audit log has ids only
    expect((await t.app.db.select().from(donations).where(eq(donations.id, theirs.id)))[0]!.notes).toBe('Bea');
    await t.drain();
    const changes = reported().filter((r) => r.entityId === gift.id && r.action === 'anonymized');
    expect(changes).toHaveLength(1);
    expect(JSON.stringify(changes)).not.toContain('roof');
    // the donor's totals and lists still count the gift
    expect((await signed('/giving/internal/people/donors', { churchId: c.churchId })).json().personIds).toEqual([bystander.id, person.id].sort());

    const again = await signed('/giving/internal/gdpr/anonymize', { churchId: c.churchId, personId: person.id });
    expect(again.json()).toEqual({ changed: { donations: 0, customers: 0, paymentMethods: 0, registrationPayments: 0 } });
    expect((await call(t.app, 'POST', '/giving/internal/gdpr/anonymize', { body: { churchId: c.churchId, personId: person.id } })).statusCode).toBe(401);
  });
});
