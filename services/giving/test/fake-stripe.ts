import { fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';

/**
 * A loopback Stripe that speaks the parts of Stripe's HTTP API the giving module uses (form-encoded requests,
 * JSON objects and `{error:{type,...}}` answers as the API reference shows them), so the real `stripe` SDK
 * runs against it. Test payment methods follow Stripe's test-card names:
 * `pm_card_visa` succeeds, `pm_card_chargeDeclined` is declined (402 card_error), `pm_usBankAccount` goes
 * `processing` (ACH), `pm_card_threeDSecure2Required` needs action, `pm_fail500` answers a 500 api_error,
 * `pm_slow` answers after `slowMs` (a timeout).
 */
export interface StripeObject {
  id: string;
  [key: string]: unknown;
}

/** Reads Stripe's bracketed form encoding (`metadata[funds]=…`, `items[0][price]=…`) into an object. */
export function parseForm(form: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of form) {
    const parts = rawKey.split(/\[|\]/).filter((p) => p !== '');
    let node: Record<string, unknown> = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

const error = (status: number, type: string, message: string, extra: Record<string, unknown> = {}): FakeAnswer => ({ status, body: { error: { type, message, ...extra } } });

export async function fakeStripe(opts: { slowMs?: number } = {}) {
  let n = 0;
  const next = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(n++).toString(36)}`;
  const objects = new Map<string, StripeObject>();
  const events: StripeObject[] = [];
  const idempotent = new Map<string, FakeAnswer>();
  /**
   * `failNext`: answer the next calls with a 500; `meanwhile`: what happens elsewhere while a request is in flight
   * (run before it is answered: a webhook delivered, a row changed).
   */
  const state: { failNext: number; meanwhile?: (req: FakeRequest) => Promise<void> } = { failNext: 0 };

  const methodCard = (id: string, customer: string | null = null): StripeObject =>
    id.startsWith('pm_usBank')
      ? { id, object: 'payment_method', type: 'us_bank_account', customer, us_bank_account: { bank_name: 'STRIPE TEST BANK', last4: '6789' } }
      : { id, object: 'payment_method', type: 'card', customer, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 }, billing_details: { name: null } };

  const handle = (req: FakeRequest): FakeAnswer => {
    const body = parseForm(req.form);
    const path = req.path;
    const post = req.method === 'POST';
    if (state.failNext > 0) {
      state.failNext--;
      return error(500, 'api_error', 'Something went wrong on Stripe’s end.');
    }
    let m: RegExpExecArray | null;
    if (post && path === '/v1/customers') {
      const c = { id: next('cus'), object: 'customer', email: body.email ?? null, name: body.name ?? null, metadata: body.metadata ?? {} };
      objects.set(c.id, c);
      return { body: c };
    }
    if (post && path === '/v1/payment_intents') {
      const pm = String(body.payment_method ?? '');
      if (pm === 'pm_fail500') return error(500, 'api_error', 'Something went wrong on Stripe’s end.');
      if (pm === 'pm_slow') return { delayMs: opts.slowMs ?? 3000, body: { id: next('pi'), object: 'payment_intent', status: 'succeeded' } };
      if (pm === 'pm_card_chargeDeclined') return error(402, 'card_error', 'Your card was declined.', { code: 'card_declined', decline_code: 'generic_decline', param: 'payment_method' });
      const amount = Number(body.amount);
      const status = !pm ? 'requires_payment_method' : pm.startsWith('pm_usBank') ? 'processing' : pm.startsWith('pm_card_threeDSecure') ? 'requires_action' : 'succeeded';
      const types = (body.allowed_payment_method_types as Record<string, string> | undefined) ?? { 0: 'card' };
      const pmType = pm.startsWith('pm_usBank') ? 'us_bank_account' : 'card';
      if (pm && !Object.values(types).includes(pmType)) return error(400, 'invalid_request_error', `The PaymentMethod provided (${pmType}) is not allowed for this PaymentIntent.`, { param: 'payment_method' });
      const id = next('pi');
      const pi = {
        id,
        object: 'payment_intent',
        amount,
        amount_received: status === 'succeeded' ? amount : 0,
        currency: body.currency,
        customer: body.customer ?? null,
        payment_method: pm || null,
        payment_method_types: Object.values(types),
        status,
        client_secret: `${id}_secret_x`,
        metadata: body.metadata ?? {},
        created: Math.floor(Date.now() / 1000),
      };
      objects.set(pi.id, pi);
      return { body: pi };
    }
    if (!post && (m = /^\/v1\/payment_methods\/(pm_[^/]+)$/.exec(path))) {
      // Stripe's test payment methods (`pm_card_visa`, `pm_usBankAccount`) are there to be read too.
      return { body: objects.get(m[1]!) ?? methodCard(m[1]!) };
    }
    if (!post && (m = /^\/v1\/(payment_intents|subscriptions|customers|payment_methods|setup_intents)\/([^/]+)$/.exec(path))) {
      const o = objects.get(m[2]!);
      return o ? { body: o } : error(404, 'invalid_request_error', `No such ${m[1]}: '${m[2]}'`, { code: 'resource_missing' });
    }
    if (post && path === '/v1/prices') {
      const p = { id: next('price'), object: 'price', unit_amount: Number(body.unit_amount), currency: body.currency, product: body.product ?? next('prod'), recurring: { interval: (body.recurring as Record<string, string>).interval, interval_count: Number((body.recurring as Record<string, string>).interval_count) } };
      objects.set(p.id, p);
      return { body: p };
    }
    if (post && path === '/v1/subscriptions') {
      const price = objects.get(String((body.items as Record<string, Record<string, string>>)['0']!.price))!;
      const s = { id: next('sub'), object: 'subscription', status: 'active', customer: body.customer, currency: price.currency, metadata: body.metadata ?? {}, default_payment_method: body.default_payment_method ?? null, items: { object: 'list', data: [{ id: next('si'), object: 'subscription_item', price, current_period_end: Math.floor(Date.now() / 1000) + 30 * 86400 }] } };
      objects.set(s.id, s);
      return { body: s };
    }
    if (!post && path === '/v1/subscriptions') {
      const customer = req.query.get('customer');
      return { body: { object: 'list', has_more: false, url: '/v1/subscriptions', data: [...objects.values()].filter((o) => o.object === 'subscription' && o.customer === customer) } };
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const s = objects.get(m[1]!);
      if (!s) return error(404, 'invalid_request_error', `No such subscription: '${m[1]}'`, { code: 'resource_missing' });
      if (req.method === 'DELETE') {
        s.status = 'canceled';
        return { body: s };
      }
      const items = body.items as Record<string, Record<string, string>> | undefined;
      if (items?.['0']?.price) (s.items as { data: Array<Record<string, unknown>> }).data[0]!.price = objects.get(items['0'].price);
      if (body.default_payment_method) s.default_payment_method = body.default_payment_method;
      return { body: s };
    }
    if (post && (m = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path))) {
      if (m[1] === 'pm_card_chargeDeclined') return error(402, 'card_error', 'Your card was declined.', { code: 'card_declined' });
      const pm = methodCard(m[1]!, String(body.customer));
      objects.set(pm.id, pm);
      return { body: pm };
    }
    if (post && (m = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path))) {
      const pm = objects.get(m[1]!) ?? methodCard(m[1]!);
      pm.customer = null;
      return { body: pm };
    }
    if (post && (m = /^\/v1\/payment_methods\/([^/]+)$/.exec(path))) {
      const pm = objects.get(m[1]!) ?? methodCard(m[1]!);
      const card = body.card as Record<string, string> | undefined;
      if (card?.exp_month) (pm.card as Record<string, unknown>).exp_month = Number(card.exp_month);
      if (card?.exp_year) (pm.card as Record<string, unknown>).exp_year = Number(card.exp_year);
      objects.set(pm.id, pm);
      return { body: pm };
    }
    if (post && path === '/v1/setup_intents') {
      const id = next('seti');
      const si = { id, object: 'setup_intent', customer: body.customer, status: 'requires_payment_method', client_secret: `${id}_secret_y`, payment_method: null };
      objects.set(id, si);
      return { body: si };
    }
    if (post && (m = /^\/v1\/setup_intents\/([^/]+)\/verify_microdeposits$/.exec(path))) {
      const si = objects.get(m[1]!);
      if (!si) return error(404, 'invalid_request_error', `No such setupintent: '${m[1]}'`, { code: 'resource_missing' });
      const amounts = Object.values((body.amounts as Record<string, string>) ?? {}).map(Number);
      if (amounts.join(',') !== '32,45' && body.descriptor_code !== 'SM11AA') return error(400, 'invalid_request_error', 'The amounts provided do not match the amounts that were sent to the bank account.', { code: 'payment_method_microdeposit_verification_amounts_mismatch', param: 'amounts' });
      const pm = methodCard('pm_usBankAccount_' + si.id, String(si.customer));
      objects.set(pm.id, pm);
      si.status = 'succeeded';
      si.payment_method = pm.id;
      return { body: si };
    }
    if (post && (m = /^\/v1\/customers\/([^/]+)\/sources$/.exec(path))) {
      const ba = { id: next('ba'), object: 'bank_account', bank_name: 'STRIPE TEST BANK', last4: '6789', status: 'new', customer: m[1] };
      objects.set(ba.id, ba);
      return { body: ba };
    }
    if (post && (m = /^\/v1\/customers\/([^/]+)\/sources\/([^/]+)\/verify$/.exec(path))) {
      const ba = objects.get(m[2]!);
      if (!ba) return error(404, 'invalid_request_error', 'No such source', { code: 'resource_missing' });
      ba.status = 'verified';
      return { body: ba };
    }
    if ((m = /^\/v1\/customers\/([^/]+)\/sources\/([^/]+)$/.exec(path))) {
      const ba = objects.get(m[2]!);
      if (!ba) return error(404, 'invalid_request_error', 'No such source', { code: 'resource_missing' });
      if (req.method === 'DELETE') return { body: { id: ba.id, object: 'bank_account', deleted: true } };
      if (body.account_holder_name) ba.account_holder_name = body.account_holder_name;
      return { body: ba };
    }
    if (post && path === '/v1/webhook_endpoints') {
      const we = { id: next('we'), object: 'webhook_endpoint', url: body.url, enabled_events: Object.values(body.enabled_events as Record<string, string>), secret: `whsec_${next('s')}` };
      objects.set(we.id, we);
      return { body: we };
    }
    if (req.method === 'DELETE' && (m = /^\/v1\/webhook_endpoints\/([^/]+)$/.exec(path))) {
      if (!objects.delete(m[1]!)) return error(404, 'invalid_request_error', `No such webhook endpoint: '${m[1]}'`, { code: 'resource_missing' });
      return { body: { id: m[1], object: 'webhook_endpoint', deleted: true } };
    }
    if (post && path === '/v1/products') {
      const p = { id: next('prod'), object: 'product', name: body.name };
      objects.set(p.id, p);
      return { body: p };
    }
    if (!post && path === '/v1/invoice_payments') {
      // List all payments for an invoice: by `invoice`, or by `payment[type]` with `payment[payment_intent]`.
      const q = parseForm(req.query) as { invoice?: string; status?: string; limit?: string; payment?: { type?: string; payment_intent?: string; payment_record?: string } };
      if (q.payment && !q.payment.type) return error(400, 'invalid_request_error', 'Missing required param: payment[type].', { param: 'payment[type]' });
      if (q.payment?.type === 'payment_intent' && !q.payment.payment_intent) return error(400, 'invalid_request_error', 'Missing required param: payment[payment_intent].', { param: 'payment[payment_intent]' });
      const data = [...objects.values()]
        .filter((o) => o.object === 'invoice_payment')
        .filter((o) => !q.invoice || o.invoice === q.invoice)
        .filter((o) => !q.status || o.status === q.status)
        .filter((o) => {
          if (!q.payment) return true;
          const pay = o.payment as { type: string; payment_intent?: string; payment_record?: string };
          return pay.type === q.payment.type && (q.payment.type !== 'payment_intent' || pay.payment_intent === q.payment.payment_intent);
        })
        .reverse()
        .slice(0, Number(q.limit ?? 10));
      return { body: { object: 'list', has_more: false, url: '/v1/invoice_payments', data } };
    }
    if (!post && (m = /^\/v1\/(invoice_payments|invoices|charges)\/([^/]+)$/.exec(path))) {
      const o = objects.get(m[2]!);
      return o ? { body: o } : error(404, 'invalid_request_error', `No such ${m[1]}: '${m[2]}'`, { code: 'resource_missing' });
    }
    if (!post && path === '/v1/events') {
      const gte = Number(req.query.get('created[gte]') ?? 0);
      const lte = Number(req.query.get('created[lte]') ?? Infinity);
      const data = events.filter((e) => (e.created as number) >= gte && (e.created as number) <= lte);
      return { body: { object: 'list', has_more: false, url: '/v1/events', data } };
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path}).`);
  };

  const server = await fakeServer(async (req) => {
    await state.meanwhile?.(req);
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && req.method === 'POST') {
      const kept = idempotent.get(`${req.path}\n${key}`);
      if (kept) return kept;
      const answer = handle(req);
      if (!answer.status || answer.status < 500) idempotent.set(`${req.path}\n${key}`, answer);
      return answer;
    }
    return handle(req);
  });

  /** An event as Stripe sends it (`created` in seconds), kept for `GET /v1/events`. */
  const event = (type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)): StripeObject => {
    const e = { id: next('evt'), object: 'event', api_version: '2026-10-28.endive', created, type, livemode: false, pending_webhooks: 1, data: { object } };
    events.push(e);
    return e;
  };

  /**
   * A subscription period paid as Stripe pays it since API version 2025-03-31.basil: the invoice, its default
   * PaymentIntent and that intent's charge, linked only through an InvoicePayment (`payment.type`
   * `payment_intent`); neither the charge nor the intent names the invoice. Answers the objects as kept.
   */
  const payInvoice = (subscription: string, amount: number, currency = 'usd') => {
    const now = Math.floor(Date.now() / 1000);
    const sub = objects.get(subscription);
    const customer = (sub?.customer as string | undefined) ?? null;
    const invoice: StripeObject = {
      id: next('in'),
      object: 'invoice',
      status: 'paid',
      amount_due: amount,
      amount_paid: amount,
      amount_remaining: 0,
      currency,
      customer,
      created: now,
      parent: { type: 'subscription_details', subscription_details: { subscription, metadata: sub?.metadata ?? {} }, quote_details: null },
    };
    const piId = next('pi');
    const charge: StripeObject = { id: next('ch'), object: 'charge', amount, amount_captured: amount, amount_refunded: 0, refunded: false, captured: true, paid: true, status: 'succeeded', currency, customer, payment_intent: piId, created: now };
    const paymentIntent: StripeObject = { id: piId, object: 'payment_intent', amount, amount_received: amount, currency, customer, payment_method_types: ['card'], status: 'succeeded', latest_charge: charge.id, metadata: {}, created: now };
    const invoicePayment: StripeObject = {
      id: next('inpay'),
      object: 'invoice_payment',
      amount_paid: amount,
      amount_requested: amount,
      created: now,
      currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { type: 'payment_intent', payment_intent: piId },
      status: 'paid',
      status_transitions: { canceled_at: null, paid_at: now },
    };
    for (const o of [invoice, charge, paymentIntent, invoicePayment]) objects.set(o.id, o);
    return { invoice, paymentIntent, charge, invoicePayment };
  };

  /** Refunds `amount` more of a kept charge (`amount_refunded` is cumulative, `refunded` once it is all) and answers a copy. */
  const refundCharge = (chargeId: string, amount: number): StripeObject => {
    const charge = objects.get(chargeId)!;
    charge.amount_refunded = Math.min(Number(charge.amount), Number(charge.amount_refunded ?? 0) + amount);
    charge.refunded = charge.amount_refunded === charge.amount;
    return { ...charge };
  };

  return {
    ...server,
    objects,
    payInvoice,
    refundCharge,
    events,
    event,
    state,
    requests: (method: string, path: string | RegExp) => server.seen.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))),
  };
}
export type FakeStripe = Awaited<ReturnType<typeof fakeStripe>>;
