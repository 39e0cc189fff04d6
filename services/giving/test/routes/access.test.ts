import { expectRoutesGuarded } from '@church/common/testing';
import { useGiving } from '../setup';

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
    expect(report.internal).toBe(5); // /giving/internal/query; donors, registration charge, GDPR export and anonymize
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  });
});
