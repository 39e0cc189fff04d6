import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { customers, donations, fundDonations, subscriptionFunds, subscriptions } from '../../src/db/schema';
import { makeChurch, makeFunds, makePerson, makeStripeGateway, useGiving } from '../setup';

const t = useGiving();

describe('donations and fund donations by id', () => {
  it('reads, edits and deletes single records, 404 for another church', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
    const other = makeChurch().token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
    const [fund, fund2] = await makeFunds(t, edit, ['General', 'Youth']);
    const [d] = (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { amount: 50, method: 'cash' } })).json();
    const fds = await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: [{ donationId: d.id, fundId: fund, amount: 30 }, { donationId: d.id, fundId: fund2, amount: 20 }] });
    expect(fds.statusCode).toBe(200);
    const [fd1, fd2] = fds.json();
    expect(fd1).toMatchObject({ donationId: d.id, fundId: fund, amount: 30, fundName: 'General' });
    expect((await call(t.app, 'GET', `/giving/donations/${d.id}`, { token: edit })).json()).toMatchObject({ id: d.id, amount: 50, funds: expect.arrayContaining([expect.objectContaining({ amount: 20 })]) });
    expect((await call(t.app, 'GET', `/giving/donations/${d.id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/giving/funddonations/${fd1.id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: other, body: { donationId: d.id, fundId: fund, amount: 1 } })).statusCode).toBe(400);
    const moved = await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { id: fd2.id, amount: 15 } });
    expect(moved.json()[0]).toMatchObject({ id: fd2.id, amount: 15 });
    const missing = await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { fundId: fund, amount: 1 } });
    expect(missing.json().errors[0].param).toBe('donationId');
    expect((await call(t.app, 'DELETE', `/giving/funddonations/${fd2.id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/funddonations/${fd2.id}`, { token: edit })).statusCode).toBe(200);
    const edited = await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d.id, notes: 'envelope', status: 'failed' } });
    expect(edited.json()[0]).toMatchObject({ notes: 'envelope', status: 'failed', amount: 50 });
    expect((await call(t.app, 'POST', '/giving/donations', { token: other, body: { id: d.id, notes: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/donations/${d.id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/donations/${d.id}`, { token: edit })).statusCode).toBe(200);
    expect(await t.app.db.select().from(donations).where(eq(donations.id, d.id))).toHaveLength(0);
    expect(await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, d.id))).toHaveLength(0);
    const batch = (await call(t.app, 'POST', '/giving/donationbatches', { token: edit, body: { name: 'Deposit' } })).json()[0];
    expect((await call(t.app, 'GET', `/giving/donationbatches/${batch.id}`, { token: edit })).json()).toMatchObject({ name: 'Deposit', donationCount: 0, totalAmount: 0 });
    expect((await call(t.app, 'GET', `/giving/donationbatches/${batch.id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/donationbatches/${batch.id}`, { token: other })).statusCode).toBe(404);
  });
});

describe('customers, subscriptions and subscription funds (records)', () => {
  it('lists and deletes per church; deletes a subscription fund or all of a subscription\'s', async () => {
    const c = makeChurch();
    const donor = makePerson('Cass', 'Customer');
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general, missions] = await makeFunds(t, c.token(['Donations.Edit']), ['General', 'Missions']);
    const own = c.token([], { personId: donor.id });
    const sub = await call(t.app, 'POST', '/giving/donate/subscribe', { token: own, body: { id: 'pm_card_visa', amount: 10, interval: { interval: 'month' }, funds: [{ id: general, amount: 6 }, { id: missions, amount: 4 }] } });
    expect(sub.statusCode).toBe(200);
    const summary = c.token(['Donations.ViewSummary', 'Donations.Edit', 'Donations.View']);
    const other = makeChurch().token(['Donations.ViewSummary', 'Donations.Edit', 'Donations.View']);
    const list = await call(t.app, 'GET', '/giving/customers', { token: summary });
    expect(list.json()).toEqual([expect.objectContaining({ personId: donor.id, provider: 'stripe', providerCustomerId: expect.stringMatching(/^cus_/) })]);
    expect((await call(t.app, 'GET', '/giving/customers', { token: other })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/giving/customers/${list.json()[0].id}`, { token: own })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/giving/subscriptions/${sub.json().id}`, { token: summary })).json()).toMatchObject({ amount: 10, status: 'active' });
    expect((await call(t.app, 'GET', `/giving/subscriptions/${sub.json().id}`, { token: other })).statusCode).toBe(404);

    const funds = (await call(t.app, 'GET', `/giving/subscriptionfunds?subscriptionId=${sub.json().id}`, { token: summary })).json();
    expect(funds.map((f: { amount: number }) => f.amount).sort()).toEqual([4, 6]);
    expect((await call(t.app, 'GET', `/giving/subscriptionfunds/${funds[0].id}`, { token: summary })).json()).toMatchObject({ id: funds[0].id });
    expect((await call(t.app, 'DELETE', `/giving/subscriptionfunds/${funds[0].id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/subscriptionfunds/${funds[0].id}`, { token: summary })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/giving/subscriptionfunds/subscription/${sub.json().id}`, { token: c.token([], { personId: randomUUID() }) })).statusCode).toBe(401);
    const all = await call(t.app, 'DELETE', `/giving/subscriptionfunds/subscription/${sub.json().id}`, { token: own });
    expect(all.json()).toEqual({ deleted: 1 });
    expect(await t.app.db.select().from(subscriptionFunds).where(eq(subscriptionFunds.subscriptionId, sub.json().id))).toHaveLength(0);
    expect(await t.app.db.select().from(subscriptions).where(eq(subscriptions.id, sub.json().id))).toHaveLength(1);

    expect((await call(t.app, 'DELETE', `/giving/customers/${list.json()[0].id}`, { token: other })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/customers/${list.json()[0].id}`, { token: summary })).statusCode).toBe(200);
    expect(await t.app.db.select().from(customers).where(eq(customers.churchId, c.churchId))).toHaveLength(0);
  });
});

describe('client token', () => {
  it('creates a PaymentIntent client secret for an amount, or answers the provider alone', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const bare = await call(t.app, 'POST', '/giving/donate/client-token', { token: c.token(), body: {} });
    expect(bare.json()).toEqual({ provider: 'stripe' });
    const res = await call(t.app, 'POST', '/giving/donate/client-token', { token: c.token(), body: { amount: 12.5 } });
    expect(res.json()).toMatchObject({ provider: 'stripe', clientSecret: expect.stringMatching(/_secret_/) });
    const stripeOrder = await call(t.app, 'POST', '/giving/donate/create-order', { token: c.token(), body: { provider: 'stripe', amount: 5, funds: [{ id: randomUUID(), amount: 5 }] } });
    expect(stripeOrder.statusCode).toBe(400);
  });
});
