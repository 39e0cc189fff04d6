import { fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';

/**
 * A loopback PayPal REST API (the shapes of PayPal's Orders v2, Subscriptions v1, Catalog Products and
 * Notifications references) for the real `@paypal/paypal-server-sdk`: OAuth client credentials, orders
 * created and captured (order `DECLINE` answers 422 INSTRUMENT_DECLINED), billing plans and subscriptions,
 * webhooks created and deleted, and webhook signature verification (`transmission_sig: good` verifies).
 */
export async function fakePaypal() {
  let n = 0;
  const next = (prefix: string) => `${prefix}${(Date.now() + n++).toString(36).toUpperCase()}`;
  const orders = new Map<string, Record<string, unknown>>();
  const server = await fakeServer((req: FakeRequest): FakeAnswer => {
    const body = (req.json ?? {}) as Record<string, unknown>;
    let m: RegExpExecArray | null;
    if (req.path === '/v1/oauth2/token') {
      if (!req.headers.authorization?.startsWith('Basic ')) return { status: 401, body: { error: 'invalid_client' } };
      return { body: { access_token: 'A21AA-test-token', token_type: 'Bearer', expires_in: 32400, scope: 'https://uri.paypal.com/services/payments/payment' } };
    }
    if (req.headers.authorization !== 'Bearer A21AA-test-token') return { status: 401, body: { name: 'AUTHENTICATION_FAILURE', message: 'Authentication failed' } };
    if (req.method === 'POST' && req.path === '/v2/checkout/orders') {
      const id = next('ORD');
      const unit = (body.purchase_units as Array<Record<string, unknown>>)[0]!;
      const order = { id, status: 'CREATED', intent: body.intent, purchase_units: [{ reference_id: 'default', amount: unit.amount, custom_id: unit.custom_id, description: unit.description }] };
      orders.set(id, order);
      return { status: 201, body: order };
    }
    if (req.method === 'POST' && (m = /^\/v2\/checkout\/orders\/([^/]+)\/capture$/.exec(req.path))) {
      if (m[1] === 'DECLINE') return { status: 422, body: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed.', details: [{ issue: 'INSTRUMENT_DECLINED', description: 'The instrument presented was declined.' }] } };
      if (m[1] === 'FAIL500') return { status: 500, body: { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred.' } };
      const order = orders.get(m[1]!);
      if (!order) return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', details: [{ issue: 'INVALID_RESOURCE_ID' }] } };
      const unit = (order.purchase_units as Array<Record<string, unknown>>)[0]!;
      order.status = 'COMPLETED';
      unit.payments = { captures: [{ id: next('CAP'), status: 'COMPLETED', amount: unit.amount, final_capture: true, custom_id: unit.custom_id }] };
      return { status: 201, body: order };
    }
    if (req.method === 'GET' && (m = /^\/v2\/checkout\/orders\/([^/]+)$/.exec(req.path))) {
      // DECLINE and FAIL500 stand for approved orders of 20.00 whose capture fails
      if (m[1] === 'DECLINE' || m[1] === 'FAIL500') return { body: { id: m[1], status: 'APPROVED', purchase_units: [{ amount: { currency_code: 'USD', value: '20.00' } }] } };
      const order = orders.get(m[1]!);
      return order ? { body: order } : { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' } };
    }
    if (req.method === 'POST' && req.path === '/v1/catalogs/products') return { status: 201, body: { id: next('PROD-'), name: body.name, type: body.type } };
    if (req.method === 'POST' && req.path === '/v1/billing/plans') return { status: 201, body: { id: next('P-'), product_id: body.product_id, name: body.name, status: 'ACTIVE', billing_cycles: body.billing_cycles } };
    if (req.method === 'POST' && req.path === '/v1/billing/subscriptions') return { status: 201, body: { id: next('I-'), plan_id: body.plan_id, status: 'APPROVAL_PENDING', custom_id: body.custom_id, links: [] } };
    if (req.method === 'POST' && (m = /^\/v1\/billing\/subscriptions\/([^/]+)\/cancel$/.exec(req.path))) return { status: 204 };
    if (req.method === 'POST' && req.path === '/v1/notifications/webhooks') return { status: 201, body: { id: next('WH-'), url: body.url, event_types: body.event_types } };
    if (req.method === 'DELETE' && /^\/v1\/notifications\/webhooks\/[^/]+$/.test(req.path)) return { status: 204 };
    if (req.method === 'POST' && req.path === '/v1/notifications/verify-webhook-signature') {
      return { body: { verification_status: body.transmission_sig === 'good' && body.webhook_id === 'WH-123' ? 'SUCCESS' : 'FAILURE' } };
    }
    return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: `no route ${req.method} ${req.path}` } };
  });
  return { ...server, orders };
}

/**
 * A loopback PayPal for one test file: listening before the file's tests (its `beforeAll` is registered before
 * `useGiving`'s, so the address is known when the app starts) and closed after them. `seen` is what it received;
 * `config(extra)` the `useGiving` config aiming the SDK at it.
 */
export function usePaypal() {
  let server: Awaited<ReturnType<typeof fakePaypal>> | undefined;
  beforeAll(async () => {
    server = await fakePaypal();
  });
  afterAll(() => server?.close());
  return {
    get seen() {
      return server!.seen;
    },
    config: (extra: Record<string, string> = {}) => () => ({ PAYPAL_API_BASE: server!.url, ...extra }),
  };
}

/** PayPal's signature headers on a webhook delivery; `sig: 'good'` verifies at the fake. */
export const paypalHeaders = (sig = 'good') => ({
  'content-type': 'application/json',
  'paypal-auth-algo': 'SHA256withRSA',
  'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1',
  'paypal-transmission-id': 'b2384410-f8d2-11ed-8f8c-0b1c9f4b6d6c',
  'paypal-transmission-sig': sig,
  'paypal-transmission-time': new Date().toISOString(),
});
