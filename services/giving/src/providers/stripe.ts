import Stripe from 'stripe';
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest, HttpError, providerFailed, providerMessage } from '@church/common';
import type { ChargeInput, EventEffect, MethodInfo, PaymentProvider, PaymentResult, ProviderEvent, ProviderSubscription, SubscribeInput } from './payments';

/** Events the provisioned webhook endpoint subscribes to (what `webhookEffects.ts` acts on). */
export const STRIPE_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.processing',
  'payment_intent.payment_failed',
  'invoice.paid',
  'customer.subscription.deleted',
  'charge.refunded',
] as const;

/** How far from now a webhook's signed timestamp may be, either way (Stripe's own default tolerance). */
const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface StripeOptions {
  /** `http://127.0.0.1:4242` in tests; unset for api.stripe.com */
  apiBase?: string;
  timeoutMs: number;
  maxNetworkRetries: number;
}

/** Client options of the SDK from an overridable base address (host, port and protocol). */
export function stripeClientOptions(opts: StripeOptions): ConstructorParameters<typeof Stripe>[1] {
  const base = opts.apiBase ? new URL(opts.apiBase) : undefined;
  return {
    timeout: opts.timeoutMs,
    maxNetworkRetries: opts.maxNetworkRetries,
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol.replace(':', '') as 'http' | 'https' } : {}),
  };
}

type StripeErr = { type?: string; message?: string; statusCode?: number; code?: string; decline_code?: string; param?: string };

/** The SDK's errors in the spec's shape: declines 402, caller mistakes 400, everything else 502. */
export function stripeError(err: unknown, what = 'Stripe'): HttpError {
  if (err instanceof HttpError) return err;
  const e = (err ?? {}) as StripeErr;
  switch (e.type) {
    case 'StripeCardError':
      return new HttpError(402, [{ msg: `Payment declined: ${e.message ?? e.decline_code ?? 'card declined'}`, param: 'paymentMethod', location: 'body' }]);
    case 'StripeInvalidRequestError':
      if (e.statusCode === 404) return new HttpError(404, [{ msg: `${what}: ${e.message ?? 'not found'}` }]);
      return badRequest(e.param ?? 'body', `${what} refused the request: ${e.message ?? 'invalid request'}`);
    case 'StripeIdempotencyError':
      return new HttpError(409, [{ msg: `${what}: ${e.message ?? 'idempotency key reused with another request'}` }]);
    default:
      return providerFailed(what, providerMessage(err));
  }
}

/** Stripe's bank debit method types (the bank fee); every other type pays the card fee. */
const BANK_DEBITS: ReadonlySet<string> = new Set(['us_bank_account', 'sepa_debit', 'bacs_debit', 'acss_debit', 'au_becs_debit']);

const methodOf = (types: string[] | undefined) => (types?.[0] === 'us_bank_account' || types?.[0] === 'sepa_debit' || types?.[0] === 'bacs_debit' ? 'ach' : types?.[0] ?? 'card');

function paymentOf(pi: Stripe.PaymentIntent): PaymentResult {
  const status = pi.status === 'succeeded' ? 'complete' : pi.status === 'processing' ? 'pending' : pi.status === 'canceled' || pi.status === 'requires_payment_method' ? 'failed' : 'pending';
  return {
    id: pi.id,
    status,
    providerStatus: pi.status,
    method: methodOf(pi.payment_method_types),
    amountCents: pi.amount_received || pi.amount,
    currency: pi.currency,
    metadata: (pi.metadata ?? {}) as Record<string, string>,
    customerId: typeof pi.customer === 'string' ? pi.customer : (pi.customer?.id ?? null),
    clientSecret: pi.status === 'requires_action' ? pi.client_secret : null,
  };
}

function methodInfo(pm: Stripe.PaymentMethod): MethodInfo {
  if (pm.type === 'card' && pm.card) return { id: pm.id, type: 'card', brand: pm.card.brand, last4: pm.card.last4, expMonth: pm.card.exp_month, expYear: pm.card.exp_year, status: 'verified' };
  const bank = pm.us_bank_account;
  return { id: pm.id, type: 'bank', bankName: bank?.bank_name ?? null, last4: bank?.last4 ?? null, status: 'verified' };
}

function bankInfo(ba: { id: string; bank_name?: string | null; last4?: string | null; status?: string | null }): MethodInfo {
  return { id: ba.id, type: 'bank', bankName: ba.bank_name ?? null, last4: ba.last4 ?? null, status: ba.status === 'verified' ? 'verified' : 'pending' };
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : (v?.id ?? null));

/** What a Stripe event means for the books (pure; the webhook job applies it). */
export function interpretStripe(event: ProviderEvent): EventEffect {
    const payload = event.payload as { data?: { object?: Record<string, unknown> } };
    const obj = (payload.data?.object ?? {}) as Record<string, unknown>;
    const at = new Date(event.created * 1000);
    switch (event.type) {
      case 'payment_intent.succeeded':
      case 'payment_intent.processing':
      case 'payment_intent.payment_failed': {
        const pi = obj as unknown as Stripe.PaymentIntent;
        const status = event.type === 'payment_intent.succeeded' ? 'complete' : event.type === 'payment_intent.processing' ? 'pending' : 'failed';
        return {
          kind: 'payment',
          status,
          transactionId: pi.id,
          amountCents: pi.amount_received || pi.amount,
          currency: pi.currency,
          method: methodOf(pi.payment_method_types),
          metadata: (pi.metadata ?? {}) as Record<string, string>,
          customerId: idOf(pi.customer as string),
          at,
        };
      }
      case 'invoice.paid':
      case 'invoice.payment_succeeded': {
        const inv = obj as { id: string; amount_paid: number; currency: string; subscription?: string | { id: string }; parent?: { subscription_details?: { subscription?: string | { id: string } } } };
        const sub = idOf(inv.parent?.subscription_details?.subscription ?? inv.subscription);
        if (!sub) return { kind: 'ignored', reason: 'invoice without a subscription' };
        if (!inv.amount_paid) return { kind: 'ignored', reason: 'invoice of zero' };
        return { kind: 'invoice', providerSubscriptionId: sub, transactionId: inv.id, amountCents: inv.amount_paid, currency: inv.currency, at };
      }
      case 'customer.subscription.deleted':
        return { kind: 'subscriptionCancelled', providerSubscriptionId: String(obj.id) };
      case 'charge.refunded': {
        const ch = obj as { id: string; payment_intent?: string | { id: string } | null; amount: number; amount_refunded: number };
        return { kind: 'refund', transactionId: idOf(ch.payment_intent) ?? ch.id, refundedCents: ch.amount_refunded, amountCents: ch.amount };
      }
      default:
        return { kind: 'ignored', reason: `event type ${event.type} is not handled` };
    }
  }

/** The Stripe adapter for one church's secret key (the card-oriented gateway of the spec). */
export function stripeProvider(secretKey: string, webhookKey: string | null, opts: StripeOptions): PaymentProvider {
  const stripe = new Stripe(secretKey, stripeClientOptions(opts));
  const call = async <T>(fn: () => Promise<T>, what?: string): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw stripeError(err, what);
    }
  };
  const idem = (key?: string) => (key ? { idempotencyKey: key } : undefined);

  const priceFor = (input: { amountCents: number; currency: string; interval: string; intervalCount: number; productId?: string | null; description: string }) =>
    stripe.prices.create({
      unit_amount: input.amountCents,
      currency: input.currency,
      recurring: { interval: input.interval as Stripe.PriceCreateParams.Recurring.Interval, interval_count: input.intervalCount },
      ...(input.productId ? { product: input.productId } : { product_data: { name: input.description } }),
    });

  return {
    name: 'stripe',

    async clientToken(input) {
      if (!input.amountCents) return { provider: 'stripe' };
      const pi = await call(() => stripe.paymentIntents.create({ amount: input.amountCents!, currency: input.currency, ...(input.customerId ? { customer: input.customerId } : {}), automatic_payment_methods: { enabled: true } }));
      return { provider: 'stripe', clientSecret: pi.client_secret, paymentIntentId: pi.id };
    },

    async createOrder() {
      throw badRequest('provider', 'Stripe takes payments through charge; create-order is for the checkout-style gateway (paypal)');
    },

    async createCustomer(input) {
      const customer = await call(() =>
        stripe.customers.create({ email: input.email ?? undefined, name: input.name ?? undefined, metadata: input.personId ? { personId: input.personId } : {} }, idem(input.idempotencyKey)),
      );
      return customer.id;
    },

    async charge(input: ChargeInput) {
      const pi = await call(() =>
        stripe.paymentIntents.create(
          {
            amount: input.amountCents,
            currency: input.currency,
            ...(input.customerId ? { customer: input.customerId } : {}),
            ...(input.paymentMethodId ? { payment_method: input.paymentMethodId, confirm: true } : {}),
            allowed_payment_method_types: input.type === 'bank' ? ['us_bank_account'] : ['card'],
            description: input.description,
            ...(input.email ? { receipt_email: input.email } : {}),
            metadata: input.metadata,
          },
          idem(input.idempotencyKey),
        ),
      );
      return paymentOf(pi);
    },

    async retrievePayment(id) {
      return paymentOf(await call(() => stripe.paymentIntents.retrieve(id)));
    },

    async subscribe(input: SubscribeInput) {
      const price = await call(() => priceFor(input));
      const sub = await call(() =>
        stripe.subscriptions.create(
          {
            customer: input.customerId,
            items: [{ price: price.id }],
            ...(input.paymentMethodId ? { default_payment_method: input.paymentMethodId } : {}),
            ...(input.billingCycleAnchor && input.billingCycleAnchor * 1000 > Date.now() ? { billing_cycle_anchor: input.billingCycleAnchor, proration_behavior: 'none' as const } : {}),
            metadata: input.metadata,
          },
          idem(input.idempotencyKey),
        ),
      );
      return { id: sub.id, status: sub.status };
    },

    async updateSubscription(id, input) {
      const current = await call(() => stripe.subscriptions.retrieve(id));
      const item = current.items.data[0];
      const params: Stripe.SubscriptionUpdateParams = {};
      if (input.paymentMethodId) params.default_payment_method = input.paymentMethodId;
      if (input.amountCents !== undefined && item) {
        const price = await call(() =>
          priceFor({
            amountCents: input.amountCents!,
            currency: input.currency ?? item.price.currency,
            interval: input.interval ?? item.price.recurring?.interval ?? 'month',
            intervalCount: input.intervalCount ?? item.price.recurring?.interval_count ?? 1,
            productId: input.productId ?? idOf(item.price.product as string),
            description: 'Recurring donation',
          }),
        );
        params.items = [{ id: item.id, price: price.id }];
        params.proration_behavior = 'none';
      }
      const sub = await call(() => stripe.subscriptions.update(id, params));
      return { id: sub.id, status: sub.status };
    },

    async cancelSubscription(id, reason) {
      await call(() => stripe.subscriptions.cancel(id, reason ? { cancellation_details: { comment: reason.slice(0, 5000) } } : {}));
    },

    async listSubscriptions(customerId) {
      // Live ones (Stripe's default list leaves cancelled subscriptions out): the donor manages these.
      const list = await call(() => stripe.subscriptions.list({ customer: customerId, limit: 100 }));
      return list.data.map(
        (s): ProviderSubscription => ({
          id: s.id,
          status: s.status,
          amountCents: s.items.data[0]?.price.unit_amount ?? null,
          currency: s.items.data[0]?.price.currency ?? s.currency ?? null,
          interval: s.items.data[0]?.price.recurring?.interval ?? null,
          intervalCount: s.items.data[0]?.price.recurring?.interval_count ?? null,
          customerId: idOf(s.customer as string),
          currentPeriodEnd: s.items.data[0]?.current_period_end ?? null,
          billingCycleAnchor: s.billing_cycle_anchor ?? null,
          defaultPaymentMethod: idOf(s.default_payment_method as string | null),
          defaultSource: idOf(s.default_source as string | null),
        }),
      );
    },

    async methodKind(paymentMethodId) {
      // Legacy sources name their kind by prefix; a PaymentMethod is asked (a card's id says nothing of its type).
      if (/^(ba|src|btok)_/.test(paymentMethodId)) return 'bank';
      if (/^(card|tok)_/.test(paymentMethodId)) return 'card';
      const pm = await call(() => stripe.paymentMethods.retrieve(paymentMethodId));
      return BANK_DEBITS.has(pm.type) ? 'bank' : 'card';
    },

    async attachCard(paymentMethodId, customerId) {
      return methodInfo(await call(() => stripe.paymentMethods.attach(paymentMethodId, { customer: customerId })));
    },

    async updateCard(paymentMethodId, card) {
      const pm = await call(() =>
        stripe.paymentMethods.update(paymentMethodId, {
          ...(card.expMonth || card.expYear ? { card: { exp_month: card.expMonth, exp_year: card.expYear } } : {}),
          ...(card.name ? { billing_details: { name: card.name } } : {}),
        }),
      );
      return methodInfo(pm);
    },

    async setupIntent(input) {
      const customerId =
        input.customerId ?? (await call(() => stripe.customers.create({ email: input.email ?? undefined, name: input.name ?? undefined }))).id;
      const si = await call(() =>
        stripe.setupIntents.create({
          customer: customerId,
          allowed_payment_method_types: ['us_bank_account'],
          payment_method_options: { us_bank_account: { verification_method: 'automatic' } },
        }),
      );
      return { id: si.id, clientSecret: si.client_secret, customerId };
    },

    async addBankAccount(token, customerId) {
      const source = await call(() => stripe.customers.createSource(customerId, { source: token }));
      return bankInfo(source as unknown as { id: string; bank_name?: string; last4?: string; status?: string });
    },

    async updateBank(id, customerId, bank) {
      const source = await call(() =>
        stripe.customers.updateSource(customerId, id, {
          ...(bank.accountHolderName ? { account_holder_name: bank.accountHolderName } : {}),
          ...(bank.accountHolderType ? { account_holder_type: bank.accountHolderType as 'individual' | 'company' } : {}),
        }),
      );
      return bankInfo(source as unknown as { id: string; bank_name?: string; last4?: string; status?: string });
    },

    async verifyBank(id, customerId, amounts, descriptorCode) {
      if (id.startsWith('seti_')) {
        // Stripe verifies a setup intent by its id alone: it must be the named customer's, or a caller could
        // verify (and index as their own) someone else's bank account.
        const current = await call(() => stripe.setupIntents.retrieve(id));
        if (idOf(current.customer as string | { id: string } | null) !== customerId) throw badRequest('paymentMethodId', 'is not a bank account setup of this customer');
        const si = await call(() => stripe.setupIntents.verifyMicrodeposits(id, descriptorCode ? { descriptor_code: descriptorCode } : { amounts: amounts ?? [] }));
        const pmId = idOf(si.payment_method as string);
        if (!pmId) return { id, type: 'bank', status: si.status === 'succeeded' ? 'verified' : 'pending' };
        const pm = await call(() => stripe.paymentMethods.retrieve(pmId));
        return { ...methodInfo(pm), status: si.status === 'succeeded' ? 'verified' : 'pending' };
      }
      const source = await call(() => stripe.customers.verifySource(customerId, id, { amounts: amounts ?? [] }));
      return bankInfo(source as unknown as { id: string; bank_name?: string; last4?: string; status?: string });
    },

    async detach(paymentMethodId, customerId) {
      if (paymentMethodId.startsWith('ba_') || paymentMethodId.startsWith('src_')) {
        await call(() => stripe.customers.deleteSource(customerId, paymentMethodId));
        return;
      }
      await call(() => stripe.paymentMethods.detach(paymentMethodId));
    },

    async provisionWebhook(url) {
      const endpoint = await call(() => stripe.webhookEndpoints.create({ url, enabled_events: [...STRIPE_EVENTS], description: 'Church giving' }));
      return { id: endpoint.id, secret: endpoint.secret ?? null };
    },

    async deleteWebhook(id) {
      try {
        await stripe.webhookEndpoints.del(id);
      } catch (err) {
        if ((err as StripeErr).statusCode === 404) return; // already gone
        throw stripeError(err);
      }
    },

    async createProduct(name) {
      return (await call(() => stripe.products.create({ name }))).id;
    },

    async verifyWebhook(headers: IncomingHttpHeaders, raw: Buffer) {
      const signature = headers['stripe-signature'];
      if (typeof signature !== 'string' || !signature) throw badRequest('stripe-signature', 'Missing Stripe-Signature header', 'headers');
      if (!webhookKey) throw badRequest('webhookKey', 'The gateway has no webhook signing secret');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(raw, signature, webhookKey, WEBHOOK_TOLERANCE_SECONDS);
      } catch (err) {
        throw badRequest('stripe-signature', `Webhook signature verification failed: ${providerMessage(err)}`, 'headers');
      }
      // The SDK bounds the signed timestamp in the past only: one in the future is as stale a replay.
      const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
      if (!(signedAt <= Math.floor(Date.now() / 1000) + WEBHOOK_TOLERANCE_SECONDS)) {
        throw badRequest('stripe-signature', 'Webhook signature verification failed: Timestamp outside the tolerance zone', 'headers');
      }
      return { id: event.id, type: event.type, created: event.created, payload: event };
    },

    interpret: interpretStripe,

    async invoicesOfPayment(paymentId) {
      // Since API version 2025-03-31.basil neither the Charge nor the PaymentIntent names its invoice (and an
      // invoice's `payments` are includable only, never in an event's payload): the link is the InvoicePayment,
      // listed by its payment. The list filters by PaymentIntent (or payment record) only: a charge without an
      // intent (legacy) is not looked up.
      if (!paymentId.startsWith('pi_')) return [];
      return call(async () => {
        const ids: string[] = [];
        for await (const payment of stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentId }, limit: 10 })) {
          const invoice = idOf(payment.invoice as string | { id: string });
          if (invoice && !ids.includes(invoice)) ids.push(invoice);
          if (ids.length >= 100) break;
        }
        return ids;
      });
    },

    async listEvents(from, to) {
      const out: ProviderEvent[] = [];
      const created = { gte: Math.floor(from.getTime() / 1000), lte: Math.floor(to.getTime() / 1000) };
      await call(async () => {
        for await (const e of stripe.events.list({ created, limit: 100, types: [...STRIPE_EVENTS] })) {
          out.push({ id: e.id, type: e.type, created: e.created, payload: e });
          if (out.length >= 10_000) break;
        }
      });
      return out;
    },
  };
}
