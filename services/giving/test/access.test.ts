import { randomUUID } from 'node:crypto';
import { call, expectForeignReferencesRefused, expectRoutesGuarded } from '@church/common/testing';
import { makeChurch, makeFunds, makeStripeGateway, useGiving } from './setup';

const t = useGiving();

describe('every giving route', () => {
  it('refuses callers without a valid token or the permission, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app, {
      // "own …" rules over a body field admit any signed-in person at the door; the handler decides (tested per route).
      openToAnyUser: [
        'POST /giving/subscriptions',
        'POST /giving/paymentmethods/updatecard',
        'POST /giving/paymentmethods/ach-setup-intent',
        'POST /giving/paymentmethods/addbankaccount',
        'POST /giving/paymentmethods/updatebank',
        'POST /giving/paymentmethods/verifybank',
        // a subscription already removed (the donor portal cancels with two calls at once) answers {deleted: 0}
        'DELETE /giving/subscriptionfunds/subscription/:id',
        // a member pledges as themselves; the campaign decides whether it takes members' pledges
        'POST /giving/pledges/my',
      ],
    });
    const giving = t.app.routeList.filter((r) => r.url.startsWith('/giving/') && !r.url.startsWith('/giving/internal/') && !r.url.endsWith('/docs/json'));
    // the spec's 65, the staff app's kpis and Stripe import, and campaigns with pledges (14)
    expect(giving).toHaveLength(81);
    expect(report.guarded).toBe(69); // 81 routes less 12 public ones
    expect(report.internal).toBe(6); // /giving/internal/query; donors, registration charge, GDPR export and anonymize, owned funds
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  });
});

describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const mine = makeChurch();
    const theirs = makeChurch();
    const staff = theirs.token('all');
    const [fundId] = await makeFunds(t, staff, ['Theirs']);
    const made = async (url: string, body: unknown) => {
      const res = await call(t.app, 'POST', url, { token: staff, body: [body] });
      expect([url, res.statusCode, res.body]).toEqual([url, 200, expect.any(String)]);
      return (res.json() as Array<{ id: string }>)[0]!.id;
    };
    const batchId = await made('/giving/donationbatches', { name: 'Theirs' });
    const donationId = await made('/giving/donations', { batchId, amount: 10, donationDate: '2026-01-04', method: 'Cash', funds: [{ fundId, amount: 10 }] });
    const campaignId = await made('/giving/campaigns', { name: 'Theirs', fundId, goalAmount: 100, startDate: '2026-01-01' });
    const gatewayId = await makeStripeGateway(t, staff);
    const report = await expectForeignReferencesRefused(t.app, {
      churchId: mine.churchId,
      token: mine.token('all'),
      foreign: { fundId, batchId, donationId, campaignId, gatewayId, personId: randomUUID(), eventId: randomUUID() },
      // PayPal's order id and the provider's id of a gateway's webhook endpoint
      notReferences: ['orderId', 'webhookId'],
    });
    expect(report.fields).toEqual(['batchId', 'campaignId', 'donationId', 'fundId', 'gatewayId', 'personId']);
    expect(report.refused).toBeGreaterThanOrEqual(5);
  });
});
