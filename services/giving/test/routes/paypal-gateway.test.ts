import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { gateways } from '../../src/db/schema';
import { makeChurch, useGiving } from '../setup';
import { usePaypal } from '../fake-paypal';

const paypal = usePaypal();
const t = useGiving({ config: paypal.config({ GIVING_PUBLIC_URL: 'https://api.example.org/' }) });
const seen = (method: string, path: string | RegExp) => paypal.seen.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));

describe('PayPal gateway provisioning (real SDK token, loopback PayPal)', () => {
  it('provisions the webhook at this church\'s URL and the product on save, and removes the webhook on delete', async () => {
    const c = makeChurch();
    const token = c.token(['Settings.Edit']);
    const before = seen('POST', '/v1/notifications/webhooks').length;
    const res = await call(t.app, 'POST', '/giving/gateways', { token, body: { provider: 'paypal', publicKey: 'client-id-123', privateKey: 'client-secret-456' } });
    expect(res.statusCode).toBe(200);
    const hooks = seen('POST', '/v1/notifications/webhooks').slice(before);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.json).toMatchObject({ url: `https://api.example.org/giving/donate/webhook/paypal?churchId=${c.churchId}`, event_types: expect.arrayContaining([{ name: 'PAYMENT.CAPTURE.COMPLETED' }]) });
    const [row] = await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId));
    expect(row!.webhookId).toMatch(/^WH-/);
    expect(row!.productId).toMatch(/^PROD-/);

    // Saving again (another setting) provisions nothing more.
    expect((await call(t.app, 'POST', '/giving/gateways', { token, body: { provider: 'paypal', payFees: true } })).statusCode).toBe(200);
    expect(seen('POST', '/v1/notifications/webhooks').slice(before)).toHaveLength(1);

    expect((await call(t.app, 'DELETE', `/giving/gateways/${row!.id}`, { token })).statusCode).toBe(200);
    expect(seen('DELETE', `/v1/notifications/webhooks/${row!.webhookId}`)).toHaveLength(1);
    expect(await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId))).toHaveLength(0);
  });

  it('saves a hand-made webhook (its id in the body) as given', async () => {
    const c = makeChurch();
    const before = seen('POST', '/v1/notifications/webhooks').length;
    const products = seen('POST', '/v1/catalogs/products').length;
    const res = await call(t.app, 'POST', '/giving/gateways', { token: c.token(['Settings.Edit']), body: { provider: 'paypal', publicKey: 'client-id-123', privateKey: 'client-secret-456', webhookId: 'WH-123' } });
    expect(res.statusCode).toBe(200);
    expect(seen('POST', '/v1/notifications/webhooks').slice(before)).toHaveLength(0);
    const [row] = await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId));
    expect(row).toMatchObject({ webhookId: 'WH-123', productId: null });
    expect(seen('POST', '/v1/catalogs/products')).toHaveLength(products);
  });

  it('saves a Stripe gateway whose webhook secret was set up by hand as given, also with a public base URL', async () => {
    const c = makeChurch();
    const before = t.stripe.seen.length;
    const res = await call(t.app, 'POST', '/giving/gateways', { token: c.token(['Settings.Edit']), body: { provider: 'stripe', publicKey: 'pk_test_1', privateKey: 'sk_test_51handmade0000000001', webhookKey: 'whsec_by_hand' } });
    expect(res.statusCode).toBe(200);
    expect(t.stripe.seen.slice(before)).toEqual([]);
    const [row] = await t.app.db.select().from(gateways).where(eq(gateways.churchId, c.churchId));
    expect(row).toMatchObject({ webhookId: null, productId: null });
  });
});
