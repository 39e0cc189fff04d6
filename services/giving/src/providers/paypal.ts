import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { CheckoutPaymentIntent, Client, Environment, IntervalUnit, OrdersController, SubscriptionsController, TenureType } from '@paypal/paypal-server-sdk';
import { badRequest, HttpError, providerFailed, providerMessage } from '@church/common';
import type { EventEffect, PaymentProvider, PaymentResult, ProviderEvent } from './payments';
import { centsText, toCents } from '../lib/money';

/**
 * The PayPal adapter (the spec's checkout-style gateway) on `@paypal/paypal-server-sdk`, the maintained
 * successor of the deprecated `@paypal/checkout-server-sdk`: orders are created here, approved by the payer in
 * PayPal's checkout, then captured by `charge`; recurring gifts are billing plans and subscriptions. The
 * REST endpoints the SDK does not cover (catalog products, webhook signature verification, event listing) are
 * called on the same base address with the SDK's OAuth token.
 */
export interface PaypalOptions {
  clientId: string;
  clientSecret: string;
  /** the webhook id PayPal verifies signatures against */
  webhookId: string | null;
  /** `http://127.0.0.1:…` in tests; unset for PayPal's own hosts */
  apiBase?: string;
  environment: 'sandbox' | 'production';
  timeoutMs: number;
}

const HOSTS = new Map([
  ['sandbox', 'https://api-m.sandbox.paypal.com'],
  ['production', 'https://api-m.paypal.com'],
]);

/** `fetch` that sends the SDK's requests for PayPal's host to the overriding base address. */
function rewritingFetch(from: string, to: string): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(from)) return fetch(input, init);
    const target = to + url.slice(from.length);
    if (typeof input === 'string' || input instanceof URL) return fetch(target, init);
    return fetch(new Request(target, input), init);
  };
}

type PaypalErr = { statusCode?: number; result?: { name?: string; message?: string; details?: Array<{ issue?: string; description?: string }> }; body?: unknown; message?: string };

export function paypalError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = (err ?? {}) as PaypalErr;
  const detail = e.result?.details?.[0];
  const msg = detail?.description ?? e.result?.message ?? providerMessage(err);
  if (e.statusCode === 422 && /DECLINED|INSTRUMENT/.test(detail?.issue ?? '')) return new HttpError(402, [{ msg: `Payment declined: ${msg}`, param: 'orderId', location: 'body' }]);
  if (e.statusCode === 404) return new HttpError(404, [{ msg: `PayPal: ${msg}` }]);
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500 && e.statusCode !== 401 && e.statusCode !== 429) return badRequest('body', `PayPal refused the request: ${msg}`);
  return providerFailed('PayPal', msg);
}

const unsupported = (what: string) => badRequest('provider', `${what} is not available with the checkout-style gateway (paypal); use the card gateway (stripe)`);

const INTERVAL_UNITS = new Map([
  ['day', IntervalUnit.Day],
  ['week', IntervalUnit.Week],
  ['month', IntervalUnit.Month],
  ['year', IntervalUnit.Year],
]);
const intervalUnit = (i: string) => INTERVAL_UNITS.get(i) ?? IntervalUnit.Month;

/** What a PayPal event means for the books (pure; the webhook job applies it). */
export function interpretPaypal(event: ProviderEvent): EventEffect {
  const payload = event.payload as { resource?: Record<string, unknown> };
  const r = (payload.resource ?? {}) as Record<string, unknown>;
  const amount = r.amount as { value?: string; currency_code?: string; total?: string; currency?: string } | undefined;
  const cents = () => toCents(amount?.value ?? amount?.total ?? '0');
  const currency = (amount?.currency_code ?? amount?.currency ?? 'usd').toLowerCase();
  const at = new Date(event.created * 1000);
  switch (event.type) {
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.PENDING':
    case 'PAYMENT.CAPTURE.DENIED':
      return {
        kind: 'payment',
        status: event.type.endsWith('COMPLETED') ? 'complete' : event.type.endsWith('PENDING') ? 'pending' : 'failed',
        transactionId: String(r.id),
        amountCents: cents(),
        currency,
        method: 'paypal',
        metadata: {},
        at,
      };
    case 'PAYMENT.CAPTURE.REFUNDED': {
      // the resource is the refund; its "up" link names the capture
      const up = ((r.links as Array<{ rel?: string; href?: string }> | undefined) ?? []).find((l) => l.rel === 'up')?.href ?? '';
      const captureId = up.split('/').filter(Boolean).pop() ?? String(r.id);
      return { kind: 'refund', transactionId: captureId, refundedCents: cents(), amountCents: cents() };
    }
    case 'PAYMENT.SALE.COMPLETED': {
      const sub = r.billing_agreement_id as string | undefined;
      if (!sub) return { kind: 'ignored', reason: 'sale without a subscription' };
      return { kind: 'invoice', providerSubscriptionId: sub, transactionId: String(r.id), amountCents: cents(), currency, at };
    }
    case 'BILLING.SUBSCRIPTION.CANCELLED':
      return { kind: 'subscriptionCancelled', providerSubscriptionId: String(r.id) };
    default:
      return { kind: 'ignored', reason: `event type ${event.type} is not handled` };
  }
}

/**
 * An order's `customId`: the church, and the donor when known (`<church>:<person>`, 73 of PayPal's 127
 * characters). It is what the payment itself says of who gave, which `POST /donate/log` records.
 */
const orderCustomId = (meta: Record<string, string>) => (meta.personId ? `${meta.churchId}:${meta.personId}` : meta.churchId);
function payerOfOrder(customId: string | undefined): Record<string, string> {
  if (!customId) return {};
  const [churchId, personId] = customId.split(':');
  return { churchId: churchId ?? '', ...(personId ? { personId } : {}) };
}

export function paypalProvider(opts: PaypalOptions): PaymentProvider {
  const host = HOSTS.get(opts.environment)!;
  const base = (opts.apiBase ?? host).replace(/\/+$/, '');
  const client = new Client({
    clientCredentialsAuthCredentials: { oAuthClientId: opts.clientId, oAuthClientSecret: opts.clientSecret },
    environment: opts.environment === 'production' ? Environment.Production : Environment.Sandbox,
    timeout: opts.timeoutMs,
    httpClientOptions: { timeout: opts.timeoutMs, retryConfig: { maxNumberOfRetries: 0 } },
    ...(opts.apiBase ? { unstable_httpClientOptions: { adapter: 'fetch', env: { fetch: rewritingFetch(host, base) } } } : {}),
    // The SDK logs every request to the console by default; the service logs what matters itself.
    logging: { logger: { log: () => undefined } },
  });
  const orders = new OrdersController(client);
  const subs = new SubscriptionsController(client);
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw paypalError(err);
    }
  };
  /** A REST call the SDK has no method for, with the SDK's OAuth token. */
  const rest = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      const token = await client.clientCredentialsAuthManager.fetchToken();
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token.accessToken}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw paypalError(err);
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : {};
    if (!res.ok) throw paypalError({ statusCode: res.status, result: json as PaypalErr['result'] });
    return json as T;
  };

  const orderResult = (order: { id?: string; status?: string; purchaseUnits?: Array<{ payments?: { captures?: Array<{ id?: string; status?: string; amount?: { value: string; currencyCode: string } }> }; amount?: { value: string; currencyCode: string }; customId?: string }> }): PaymentResult => {
    const unit = order.purchaseUnits?.[0];
    const capture = unit?.payments?.captures?.[0];
    const status = capture?.status ?? order.status ?? 'UNKNOWN';
    const amount = capture?.amount ?? unit?.amount;
    return {
      id: capture?.id ?? order.id ?? '',
      status: status === 'COMPLETED' ? 'complete' : status === 'DECLINED' || status === 'FAILED' || status === 'VOIDED' ? 'failed' : 'pending',
      providerStatus: status,
      method: 'paypal',
      amountCents: amount ? toCents(amount.value) : undefined,
      currency: amount?.currencyCode?.toLowerCase(),
      metadata: payerOfOrder(unit?.customId),
    };
  };

  return {
    name: 'paypal',
    async clientToken() {
      return { provider: 'paypal', clientId: opts.clientId };
    },
    async createOrder(input) {
      const { result } = await call(() =>
        orders.createOrder({
          body: {
            intent: CheckoutPaymentIntent.Capture,
            purchaseUnits: [{ amount: { currencyCode: input.currency.toUpperCase(), value: centsText(input.amountCents) }, description: input.description, customId: orderCustomId(input.metadata) }],
          },
          paypalRequestId: input.idempotencyKey,
          prefer: 'return=minimal',
        }),
      );
      return { id: result.id ?? '', status: result.status ?? 'CREATED' };
    },
    async createCustomer() {
      // PayPal keeps no customer objects for orders: a stable local reference stands for the payer.
      return `paypal-${randomUUID()}`;
    },
    async charge(input) {
      if (!input.paymentMethodId) throw badRequest('orderId', 'is required');
      const { result } = await call(() => orders.captureOrder({ id: input.paymentMethodId!, paypalRequestId: input.idempotencyKey, prefer: 'return=representation' }));
      return orderResult(result);
    },
    async retrievePayment(id) {
      const { result } = await call(() => orders.getOrder({ id }));
      return orderResult(result);
    },
    async subscribe(input) {
      const product = input.productId ?? (await rest<{ id: string }>('POST', '/v1/catalogs/products', { name: input.description, type: 'SERVICE' })).id;
      const { result: plan } = await call(() =>
        subs.createBillingPlan({
          body: {
            productId: product,
            name: input.description,
            billingCycles: [
              {
                frequency: { intervalUnit: intervalUnit(input.interval), intervalCount: input.intervalCount },
                tenureType: TenureType.Regular,
                sequence: 1,
                totalCycles: 0,
                pricingScheme: { fixedPrice: { currencyCode: input.currency.toUpperCase(), value: centsText(input.amountCents) } },
              },
            ],
            paymentPreferences: { autoBillOutstanding: true, paymentFailureThreshold: 3 },
          },
          paypalRequestId: input.idempotencyKey ? `${input.idempotencyKey}:plan` : undefined,
        }),
      );
      const { result } = await call(() =>
        subs.createSubscription({
          body: { planId: plan.id ?? '', customId: input.metadata.churchId, ...(input.billingCycleAnchor && input.billingCycleAnchor * 1000 > Date.now() ? { startTime: new Date(input.billingCycleAnchor * 1000).toISOString() } : {}) },
          paypalRequestId: input.idempotencyKey,
        }),
      );
      return { id: result.id ?? '', status: (result.status ?? 'APPROVAL_PENDING').toLowerCase() };
    },
    async updateSubscription() {
      throw unsupported('Changing a PayPal subscription (the payer approves a new one in PayPal)');
    },
    async cancelSubscription(id, reason) {
      await call(() => subs.cancelSubscription({ id, body: { reason: (reason ?? 'Cancelled by the donor').slice(0, 128) } }));
    },
    async listSubscriptions() {
      return [];
    },
    async methodKind() {
      return 'card';
    },
    async attachCard() {
      throw unsupported('Stored cards');
    },
    async updateCard() {
      throw unsupported('Stored cards');
    },
    async setupIntent() {
      throw unsupported('Bank account setup');
    },
    async addBankAccount() {
      throw unsupported('Bank accounts');
    },
    async updateBank() {
      throw unsupported('Bank accounts');
    },
    async verifyBank() {
      throw unsupported('Bank accounts');
    },
    async detach() {
      throw unsupported('Stored payment methods');
    },
    async provisionWebhook(url) {
      const hook = await rest<{ id: string }>('POST', '/v1/notifications/webhooks', {
        url,
        event_types: ['PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.DENIED', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.SALE.COMPLETED', 'BILLING.SUBSCRIPTION.CANCELLED'].map((name) => ({ name })),
      });
      return { id: hook.id, secret: null };
    },
    async deleteWebhook(id) {
      await rest('DELETE', `/v1/notifications/webhooks/${encodeURIComponent(id)}`).catch((err: unknown) => {
        if (err instanceof HttpError && err.statusCode === 404) return;
        throw err;
      });
    },
    async createProduct(name) {
      return (await rest<{ id: string }>('POST', '/v1/catalogs/products', { name, type: 'SERVICE' })).id;
    },
    async verifyWebhook(received: IncomingHttpHeaders, raw: Buffer) {
      const h = (name: string) => {
        const v = received[name];
        return typeof v === 'string' ? v : undefined;
      };
      const headers = {
        auth_algo: h('paypal-auth-algo'),
        cert_url: h('paypal-cert-url'),
        transmission_id: h('paypal-transmission-id'),
        transmission_sig: h('paypal-transmission-sig'),
        transmission_time: h('paypal-transmission-time'),
      };
      const missing = Object.entries(headers).find(([, v]) => !v);
      if (missing) throw badRequest(`paypal-${missing[0].replace('_', '-')}`, 'Missing PayPal signature header', 'headers');
      if (!opts.webhookId) throw badRequest('webhookId', 'The gateway has no PayPal webhook id to verify against');
      let event: { id?: string; event_type?: string; create_time?: string };
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('body', 'Body is not valid JSON');
      }
      // PayPal's verification API checks the signature over the event exactly as received.
      const answer = await rest<{ verification_status?: string }>('POST', '/v1/notifications/verify-webhook-signature', { ...headers, webhook_id: opts.webhookId, webhook_event: event });
      if (answer.verification_status !== 'SUCCESS') throw badRequest('paypal-transmission-sig', 'Webhook signature verification failed', 'headers');
      if (!event.id || !event.event_type) throw badRequest('body', 'Not a PayPal event');
      return { id: event.id, type: event.event_type, created: Math.floor(new Date(event.create_time ?? Date.now()).getTime() / 1000), payload: event };
    },
    interpret: interpretPaypal,
    async listEvents(from, to) {
      const out: ProviderEvent[] = [];
      let path: string | null = `/v1/notifications/webhooks-events?page_size=300&start_time=${encodeURIComponent(from.toISOString())}&end_time=${encodeURIComponent(to.toISOString())}`;
      while (path && out.length < 10_000) {
        const page: { events?: Array<{ id: string; event_type: string; create_time: string }>; links?: Array<{ rel: string; href: string }> } = await rest('GET', path);
        for (const e of page.events ?? []) out.push({ id: e.id, type: e.event_type, created: Math.floor(new Date(e.create_time).getTime() / 1000), payload: e });
        const next = page.links?.find((l) => l.rel === 'next')?.href;
        path = next ? next.replace(/^https?:\/\/[^/]+/, '') : null;
      }
      return out;
    },
  };
}
