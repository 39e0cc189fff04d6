import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { eq } from 'drizzle-orm';
import { donations, fundDonations } from '../../src/db/schema';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, useGiving } from '../setup';

// What ChurchApps' own apps send and read, call by call (contract tests: each names the client file it serves).
const t = useGiving();

const staff = (c: ReturnType<typeof makeChurch>) => c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
const allocationsOf = (donationId: string) => t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, donationId));

describe('funds, batches and donations as the staff app enters them', () => {
  it('B1Admin:src/donations/components/FundEdit.tsx creates a fund sent as {id: ""} and saves it back whole', async () => {
    const c = makeChurch();
    const created = await call(t.app, 'POST', '/giving/funds', { token: staff(c), body: [{ id: '', name: 'Building', taxDeductible: true, visible: true }] });
    expect(created.statusCode).toBe(200);
    const [fund] = created.json();
    expect(fund).toEqual({ id: expect.any(String), name: 'Building', taxDeductible: true, visible: true });
    const saved = await call(t.app, 'POST', '/giving/funds', { token: staff(c), body: [{ ...fund, name: 'Building fund', taxDeductible: false }] });
    expect(saved.json()).toEqual([{ id: fund.id, name: 'Building fund', taxDeductible: false, visible: true }]);
    expect((await call(t.app, 'GET', '/giving/funds', { token: c.token() })).json()).toHaveLength(1);
  });

  it('B1Admin:src/donations/components/BatchEdit.tsx creates a batch from {name, batchDate} and renames it by id', async () => {
    const c = makeChurch();
    const [batch] = (await call(t.app, 'POST', '/giving/donationbatches', { token: staff(c), body: [{ name: 'Sunday', batchDate: '2025-03-02' }] })).json();
    expect(batch).toEqual({ id: expect.any(String), name: 'Sunday', batchDate: '2025-03-02T00:00:00.000Z', donationCount: 0, totalAmount: 0 });
    const renamed = await call(t.app, 'POST', '/giving/donationbatches', { token: staff(c), body: [{ name: 'Sunday AM', batchDate: '2025-03-02', id: batch.id }] });
    expect(renamed.json()).toEqual([{ ...batch, name: 'Sunday AM' }]);
  });

  it('B1Admin:src/donations/components/BulkDonationEntry.tsx saves an anonymous gift (personId "") and then its allocation', async () => {
    const c = makeChurch();
    const [general] = await makeFunds(t, staff(c), ['General']);
    const [batch] = (await call(t.app, 'POST', '/giving/donationbatches', { token: staff(c), body: [{ name: 'Sunday', batchDate: '2025-03-02' }] })).json();
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: staff(c),
      body: [{ batchId: batch.id, personId: '', amount: 25.5, donationDate: '2025-03-02', method: 'Check', methodDetails: '1042', notes: undefined }],
    });
    expect(saved.statusCode).toBe(200);
    const [gift] = saved.json();
    expect(gift).toMatchObject({ batchId: batch.id, personId: null, amount: 25.5, method: 'Check', methodDetails: '1042', status: 'complete', donationDate: '2025-03-02T00:00:00.000Z' });
    const allocation = await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: [{ donationId: gift.id, fundId: general, amount: 25.5 }] });
    expect(allocation.statusCode).toBe(200);
    expect(allocation.json()).toEqual([
      {
        id: expect.any(String),
        donationId: gift.id,
        fundId: general,
        amount: 25.5,
        fundName: 'General',
        personId: null,
        donationDate: '2025-03-02T00:00:00.000Z',
        donation: { id: gift.id, batchId: batch.id, personId: null, donationDate: '2025-03-02T00:00:00.000Z', currency: 'usd' },
      },
    ]);
    // B1Admin:src/donations/DonationBatchesPage.tsx reads each batch's donationCount and totalAmount
    expect((await call(t.app, 'GET', '/giving/donationbatches', { token: staff(c) })).json()).toEqual([{ ...batch, donationCount: 1, totalAmount: 25.5 }]);
  });

  it('B1Admin:src/donations/components/DonationEdit.tsx posts the donation back as it read it (person and allocations included), then its allocations by id', async () => {
    const c = makeChurch();
    const [general, missions] = await makeFunds(t, staff(c), ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace', null, c.churchId);
    const [made] = (await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ personId: ada.id, amount: 50, donationDate: '2025-03-02', funds: [{ fundId: general, amount: 50 }] }] })).json();
    const read = (await call(t.app, 'GET', `/giving/donations/${made.id}`, { token: staff(c) })).json();
    const [kept] = await allocationsOf(made.id);
    // the app adds the person it loaded from membership and reformats the date, then posts it all back
    const donationToSave = { ...read, person: { id: ada.id, name: { display: 'Ada Lovelace' } }, donationDate: '2025-03-09', method: 'Check', methodDetails: '77', notes: 'moved' };
    const saved = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [donationToSave] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()[0]).toMatchObject({ id: made.id, personId: ada.id, amount: 50, methodDetails: '77', notes: 'moved', funds: [{ id: kept!.id, fundId: general, amount: 50 }] });
    // the allocation keeps its id, so the app's save of it by that id lands
    const fds = (await call(t.app, 'GET', `/giving/funddonations?donationId=${made.id}`, { token: staff(c) })).json();
    const raised = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ ...donationToSave, amount: 80 }] });
    expect(raised.statusCode).toBe(200);
    const allocations = await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: [{ ...fds[0], amount: 60 }, { donationId: made.id, fundId: missions, amount: 20 }] });
    expect(allocations.statusCode).toBe(200);
    expect((await allocationsOf(made.id)).map((a) => [a.id === kept!.id, a.amount]).sort()).toEqual([
      [false, '20.00'],
      [true, '60.00'],
    ]);
  });

  it('B1Admin:src/donations/FundPage.tsx reads each allocation of a fund in a range with its donation (person, date, batch)', async () => {
    const c = makeChurch();
    const [general] = await makeFunds(t, staff(c), ['General']);
    const ada = makePerson('Ada', 'Lovelace', null, c.churchId);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ personId: ada.id, amount: 10, donationDate: '2025-03-02', funds: [{ fundId: general, amount: 10 }] }] });
    const list = await call(t.app, 'GET', `/giving/funddonations?fundId=${general}&startDate=2025-03-01&endDate=2025-03-08`, { token: staff(c) });
    expect(list.json()).toEqual([expect.objectContaining({ fundId: general, amount: 10, donation: expect.objectContaining({ personId: ada.id, donationDate: '2025-03-02T00:00:00.000Z', batchId: null }) })]);
  });
});

describe('errors the apps show', () => {
  it('B1Admin ApiHelper shows errors[0]: a sentence for 401 and 404, the spec items for 400', async () => {
    const c = makeChurch();
    const missing = await call(t.app, 'DELETE', `/giving/funds/${randomUUID()}`, { token: staff(c) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0]).toEqual(expect.any(String));
    const refused = await call(t.app, 'POST', '/giving/funds', { token: c.token(), body: [{ id: '', name: 'X' }] });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0]).toEqual(expect.any(String));
    const bad = await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: [{ id: '', amount: 'ten' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].amount', location: 'body' });
  });
});

describe('the donation screens around the staff app', () => {
  it('B1Admin:src/components/Header.tsx and src/donations/components/DonationEvents.tsx list failed payments with the person and the date', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const payer = makePerson('Pat', 'Payer', 'pat@example.test', c.churchId);
    // a member's customer at Stripe, made by a charge
    const charged = await call(t.app, 'POST', '/giving/donate/charge', { token: c.token([], { personId: payer.id }), body: { id: 'pm_card_visa', amount: 5, funds: [{ id: general, amount: 5 }] } });
    expect(charged.statusCode).toBe(200);
    const customer = t.stripe.requests('POST', '/v1/payment_intents').at(-1)!.form.get('customer');
    const failed = { id: `pi_${randomUUID().slice(0, 8)}`, object: 'payment_intent', amount: 500, amount_received: 0, currency: 'usd', customer, payment_method_types: ['card'], status: 'requires_payment_method', metadata: { churchId: c.churchId, personId: payer.id, funds: `${general}:500` } };
    expect((await deliver(t, c.churchId, t.stripe.event('payment_intent.payment_failed', failed))).statusCode).toBe(200);
    await t.drain();
    const logs = await call(t.app, 'GET', '/giving/eventLog/type/failed/', { token: c.token(['Donations.ViewSummary']) });
    expect(logs.statusCode).toBe(200);
    expect(logs.json()).toEqual([expect.objectContaining({ eventType: 'payment_intent.payment_failed', status: 'failed', personId: payer.id, resolved: true, created: expect.any(String) })]);
    const resolved = await call(t.app, 'POST', '/giving/eventLog', { token: staff(c), body: [{ id: logs.json()[0].id, resolved: false }] });
    expect(resolved.json()[0]).toMatchObject({ resolved: false });
  });

  it('B1Admin:src/components/reporting/ReportOutput.tsx reads the giving figures of a dashboard range', async () => {
    const c = makeChurch();
    const [general, missions] = await makeFunds(t, staff(c), ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace', null, c.churchId);
    await call(t.app, 'POST', '/giving/donations', {
      token: staff(c),
      body: [
        { personId: ada.id, amount: 10, donationDate: '2025-03-02', funds: [{ fundId: general, amount: 10 }] },
        { personId: ada.id, amount: 30, donationDate: '2025-03-03', funds: [{ fundId: general, amount: 20 }, { fundId: missions, amount: 10 }] },
        { amount: 5, donationDate: '2025-03-04', funds: [{ fundId: missions, amount: 5 }] },
        { amount: 7, donationDate: '2025-04-04', funds: [{ fundId: missions, amount: 7 }] },
      ],
    });
    const kpis = await call(t.app, 'GET', '/giving/donations/kpis?startDate=2025-03-01&endDate=2025-03-31', { token: c.token(['Donations.ViewSummary']) });
    expect(kpis.statusCode).toBe(200);
    expect(kpis.json()).toEqual({ totalGiving: 45, avgGift: 15, donorCount: 1, donationCount: 3 });
    const ofFund = await call(t.app, 'GET', `/giving/donations/kpis?startDate=2025-03-01&endDate=2025-03-31&fundId=${missions}`, { token: c.token(['Donations.ViewSummary']) });
    expect(ofFund.json()).toMatchObject({ totalGiving: 15, donorCount: 1, donationCount: 2 });
    expect((await call(t.app, 'GET', '/giving/donations/kpis', { token: c.token(['Donations.View']) })).statusCode).toBe(401);
  });

  it('B1App:src/components/donate/BaseDonationPage.tsx shows each gift of the giving history by `fund.name` and `fund.amount`', async () => {
    const c = makeChurch();
    const [general, missions] = await makeFunds(t, staff(c), ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace', null, c.churchId);
    await call(t.app, 'POST', '/giving/donations', {
      token: staff(c),
      body: [
        { personId: ada.id, amount: 12, donationDate: '2025-03-02', funds: [{ fundId: general, amount: 12 }] },
        { personId: ada.id, amount: 31, donationDate: '2025-03-09', funds: [{ fundId: missions, amount: 10 }, { fundId: general, amount: 20 }] },
        { personId: ada.id, amount: 4, donationDate: '2025-03-16' },
      ],
    });
    const mine = (await call(t.app, 'GET', '/giving/donations/my', { token: c.token([], { personId: ada.id }) })).json();
    expect(mine.map((d: { fund: unknown }) => d.fund)).toEqual([
      { id: null, name: null, amount: 4 },
      { id: null, name: 'General, Missions', amount: 30 },
      { id: general, name: 'General', amount: 12 },
    ]);
    // the staff app's list of the person (PostgreSQL writes it) answers the same
    const listed = (await call(t.app, 'GET', `/giving/donations?personId=${ada.id}`, { token: staff(c) })).json();
    expect(listed.map((d: { fund: unknown }) => d.fund)).toEqual(mine.map((d: { fund: unknown }) => d.fund));
    const all = (await call(t.app, 'GET', '/giving/donations', { token: staff(c) })).json();
    expect(all.map((d: { fund: unknown }) => d.fund)).toEqual(mine.map((d: { fund: unknown }) => d.fund));
  });
});

describe('the donor portal', () => {
  it('AppHelper:packages/donations/src/components/DonationForm.tsx charges a saved card by the id /paymentmethods/personid answers', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const donor = makePerson('Dee', 'Donor', 'dee@example.test', c.churchId);
    const token = c.token([], { personId: donor.id, email: donor.email! });
    expect((await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token, body: { id: 'pm_card_visa', personId: donor.id, email: donor.email, provider: 'stripe', name: 'visa', last4: '4242' } })).statusCode).toBe(200);
    const methods = (await call(t.app, 'GET', `/giving/paymentmethods/personid/${donor.id}`, { token })).json();
    expect(methods).toEqual([expect.objectContaining({ id: 'pm_card_visa', providerMethodId: 'pm_card_visa', type: 'card', name: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, customerId: expect.any(String) })]);
    const pm = methods[0];
    // the form's donation: the saved method's id and type, the customer, the person, the funds; no currency
    const payload = { id: pm.id, type: pm.type, customerId: pm.customerId, person: { id: donor.id, email: donor.email, name: 'Dee Donor' }, amount: 20, billing_cycle_anchor: Date.now(), interval: { interval_count: 1, interval: 'month' }, funds: [{ id: general, amount: 20, name: 'General' }], provider: 'stripe', church: { name: 'Grace', subDomain: 'grace', churchURL: 'https://grace.example', logo: '' } };
    const once = await call(t.app, 'POST', '/giving/donate/charge', { token, body: payload });
    expect(once.statusCode).toBe(200);
    expect(once.json()).toMatchObject({ status: 'succeeded', provider: 'stripe' });
    // the same form's recurring gift: billing_cycle_anchor is the moment the form opened, in milliseconds
    const recurring = await call(t.app, 'POST', '/giving/donate/subscribe', { token, body: { ...payload, billing_cycle_anchor: Date.now() - 60_000 } });
    expect(recurring.statusCode).toBe(200);
    expect(recurring.json()).toMatchObject({ status: 'active' });
    expect(t.stripe.requests('POST', '/v1/subscriptions').at(-1)!.form.get('billing_cycle_anchor')).toBeNull();
  });

  it('AppHelper:packages/donations/src/components/RecurringDonationsEdit.tsx changes and cancels a recurring gift by the gateway\'s subscription id', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, staff(c), ['General']);
    const donor = makePerson('Rae', 'Recurring', 'rae@example.test', c.churchId);
    const token = c.token([], { personId: donor.id, email: donor.email! });
    await call(t.app, 'POST', '/giving/paymentmethods/addcard', { token, body: { id: 'pm_card_visa', personId: donor.id, email: donor.email, provider: 'stripe' } });
    const made = (await call(t.app, 'POST', '/giving/donate/subscribe', { token, body: { id: 'pm_card_visa', amount: 40, interval: { interval: 'month', interval_count: 1 }, person: { id: donor.id }, funds: [{ id: general, amount: 40 }] } })).json();
    const customerId = (await call(t.app, 'GET', `/giving/paymentmethods/personid/${donor.id}`, { token })).json()[0]?.customerId;
    const listed = (await call(t.app, 'GET', `/giving/customers/${customerId}/subscriptions`, { token })).json().data;
    expect(listed).toEqual([expect.objectContaining({ id: made.subscriptionId, plan: expect.objectContaining({ amount: 4000, interval: 'month', interval_count: 1 }) })]);
    // AppHelper RecurringDonations.tsx reads each subscription's funds by the gateway's id, with `name`
    const funds = await call(t.app, 'GET', `/giving/subscriptionfunds?subscriptionId=${made.subscriptionId}`, { token });
    expect(funds.json()).toEqual([expect.objectContaining({ fundId: general, name: 'General', amount: 40 })]);
    // the edit form posts the gateway's subscription back with a new plan
    const sub = { ...listed[0], plan: { ...listed[0].plan, interval: 'week', interval_count: 2 }, default_payment_method: 'pm_card_visa', default_source: '' };
    const updated = await call(t.app, 'POST', '/giving/subscriptions', { token, body: [sub] });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()[0]).toMatchObject({ interval: 'week', intervalCount: 2, amount: 40 });
    // and cancels with two calls at once
    const [cancel, unfund] = await Promise.all([
      call(t.app, 'DELETE', `/giving/subscriptions/${made.subscriptionId}`, { token }),
      call(t.app, 'DELETE', `/giving/subscriptionfunds/subscription/${made.subscriptionId}`, { token }),
    ]);
    expect([cancel.statusCode, unfund.statusCode]).toEqual([200, 200]);
    expect(t.stripe.requests('DELETE', `/v1/subscriptions/${made.subscriptionId}`)).toHaveLength(1);
  });
});

describe('POST /giving/donate/replay-stripe-events', () => {
  const intent = (churchId: string, fundId: string) => ({
    id: `pi_${randomUUID().slice(0, 12)}`,
    object: 'payment_intent',
    amount: 4200,
    amount_received: 4200,
    currency: 'usd',
    customer: 'cus_replay',
    payment_method_types: ['card'],
    status: 'succeeded',
    metadata: { churchId, personId: '', funds: `${fundId}:4200`, fee: '0.00', email: 'guest@example.test' },
  });

  it('B1Admin:src/donations/StripeImportPage.tsx previews by default, imports the missing events once through the webhook path, and never makes a second donation', async () => {
    const c = makeChurch();
    const edit = staff(c);
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, edit, ['General']);
    const seen = t.stripe.event('payment_intent.succeeded', intent(c.churchId, general!));
    await deliver(t, c.churchId, seen);
    await t.drain();
    const missed = t.stripe.event('payment_intent.succeeded', intent(c.churchId, general!));
    const range = { startDate: new Date(Date.now() - 86_400_000 * 300).toISOString().slice(0, 10), endDate: new Date().toISOString().slice(0, 10) };

    const preview = await call(t.app, 'POST', '/giving/donate/replay-stripe-events', { token: edit, body: range });
    expect(preview.statusCode).toBe(200);
    const mine = (r: { results: Array<{ eventId: string }> }) => r.results.filter((x) => x.eventId === seen.id || x.eventId === missed.id);
    expect(preview.json().dryRun).toBe(true);
    expect(mine(preview.json())).toEqual(
      expect.arrayContaining([
        { eventId: missed.id, type: 'payment_intent.succeeded', amount: 42, currency: 'usd', created: expect.any(String), customer: 'cus_replay', status: 'new' },
        { eventId: seen.id, type: 'payment_intent.succeeded', amount: 42, currency: 'usd', created: expect.any(String), customer: 'cus_replay', status: 'already_imported' },
      ]),
    );
    expect(preview.json().summary).toMatchObject({ total: preview.json().results.length });
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toHaveLength(1);

    const imported = await call(t.app, 'POST', '/giving/donate/replay-stripe-events', { token: edit, body: { ...range, dryRun: false } });
    expect(imported.statusCode).toBe(200);
    expect(mine(imported.json()).find((r) => r.eventId === missed.id)).toMatchObject({ status: 'imported' });
    expect(imported.json().summary.imported).toBeGreaterThanOrEqual(1);
    const again = await call(t.app, 'POST', '/giving/donate/replay-stripe-events', { token: edit, body: { ...range, dryRun: false } });
    expect(mine(again.json()).map((r) => (r as unknown as { status: string }).status)).toEqual(['already_imported', 'already_imported']);
    await t.drain();
    const rows = await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId));
    expect(rows.map((r) => r.transactionId).sort()).toEqual([(seen.data as { object: { id: string } }).object.id, (missed.data as { object: { id: string } }).object.id].sort());

    expect((await call(t.app, 'POST', '/giving/donate/replay-stripe-events', { token: c.token(['Donations.View']), body: range })).statusCode).toBe(401);
  });

  it('names the missing gateway setting when the church has no Stripe gateway', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/giving/donate/replay-stripe-events', { token: staff(c), body: { startDate: '2025-01-01', endDate: '2025-01-31' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'gateway (POST /giving/gateways)', msg: expect.stringContaining('stripe gateway for this church is not configured') });
  });
});
