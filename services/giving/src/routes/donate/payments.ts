import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { badRequest, HttpError, Id, reportChanges, type ZodTypeProvider } from '@church/common';
import { donationChange } from '../../domain/donation-save';
import { billingAnchor, openGift } from '../../domain/gift-opening';
import { fundsMeta, giftRecord, payerOf, paymentCurrency } from '../../domain/gifts';
import { withIdempotency } from '../../domain/idempotency';
import { centsText, sumCents, toCents } from '../../domain/money';
import { receiptJob } from '../../jobs/contracts';
import { ensureCustomer } from '../../repos/customers';
import { checkFunds, recordDonation, type NewDonation } from '../../repos/donations';
import { paymentsFor } from '../../repos/gateways';
import { insertSubscription } from '../../repos/subscriptions';
import { ChargeAnswer, ChargeBody, Currency, PositiveMoney, ProviderName, SubscribeAnswer, SubscribeBody } from '../../schemas';

const base = '/giving/donate';
const ClientTokenBody = z.object({ provider: ProviderName.optional(), gatewayId: Id.optional(), amount: PositiveMoney.optional(), currency: Currency.optional(), customerId: z.string().max(255).optional() });
const CreateOrderBody = z.object({
  provider: ProviderName.default('paypal'),
  gatewayId: Id.optional(),
  amount: PositiveMoney,
  currency: Currency.optional(),
  funds: z.array(z.object({ id: Id, name: z.string().max(255).optional(), amount: PositiveMoney })).min(1).max(10),
  person: z.object({ id: Id.nullish(), email: z.string().max(255).nullish() }).optional(),
  church: z.object({ name: z.string().max(255).nullish(), subDomain: z.string().max(255).nullish() }).optional(),
});
const LogBody = z.object({
  donation: z.object({
    churchId: Id,
    transactionId: z.string().trim().min(1, 'is required').max(255),
    provider: ProviderName.optional(),
    /** ignored: the payment decides who gave */
    personId: Id.nullish(),
    notes: z.string().max(2000).nullish(),
  }),
  fundData: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: PositiveMoney })).min(1).max(10),
});
const Order = z.object({ id: z.string(), status: z.string(), provider: z.string() });
const Logged = z.object({ donationId: z.string(), created: z.boolean(), status: z.string() });

/** `/giving/donate`: payments through the church's gateway (one-time, recurring, checkout orders) and their log. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  /**
   * Records a gateway payment with its allocations, the change and its receipt (when complete) in one transaction:
   * once per transaction id, whichever of the charge, the log or the webhook records it first.
   */
  const record = (gift: NewDonation, req: FastifyRequest) =>
    app.db.transaction(async (tx) => {
      const out = await recordDonation(tx, gift);
      if (out.created) {
        await reportChanges(app.deps, [donationChange(gift.churchId, undefined, out.donation)], { req, tx });
        if (out.donation.status === 'complete') await app.deps.queue.enqueue(receiptJob, { churchId: gift.churchId, donationId: out.donation.id }, { jobId: `receipt-${out.donation.id}`, tx });
      }
      return out;
    });

  app.post(`${base}/client-token`, { config: { access: anyUser }, schema: { body: ClientTokenBody, response: { 200: z.record(z.string(), z.unknown()) } } }, async (req) => {
    const { gateway, provider } = await paymentsFor(app, req.auth.churchId, { gatewayId: req.body.gatewayId, provider: req.body.provider });
    const currency = req.body.amount === undefined ? (req.body.currency ?? gateway.currency) : paymentCurrency(req.body.currency, gateway.currency);
    return provider.clientToken({ amountCents: req.body.amount === undefined ? undefined : toCents(req.body.amount), currency, customerId: req.body.customerId });
  });

  app.post(`${base}/create-order`, { config: { access: anyUser }, schema: { body: CreateOrderBody, response: { 200: Order } } }, async (req) => {
    const body = req.body;
    const gift = await openGift(app, req, body, { requireMethod: false, checkout: true });
    const known = await checkFunds(app.db, gift.churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
    const order = await gift.provider.createOrder({
      amountCents: gift.totalCents,
      currency: gift.currency,
      description: `Donation: ${body.funds.map((f) => known.get(f.id.toLowerCase())?.name ?? f.name ?? 'fund').join(', ')}`.slice(0, 127),
      metadata: { churchId: gift.churchId, personId: gift.personId ?? '' },
    });
    return { id: order.id, status: order.status, provider: gift.gateway.provider };
  });

  app.post(`${base}/charge`, { config: { access: anyUser }, schema: { body: ChargeBody, response: { 200: ChargeAnswer } } }, async (req, reply) =>
    withIdempotency(req, reply, 'charge', async (idempotencyKey) => {
      const body = req.body;
      const gift = await openGift(app, req, body, { requireMethod: true });
      const { gateway, provider, churchId } = gift;
      if (gateway.provider === 'paypal') {
        // The payer approved an order for some amount: capture it only when that is the gift being recorded.
        const order = await provider.retrievePayment(gift.methodId!);
        if (order.amountCents !== gift.totalCents) throw badRequest('amount', 'does not match the amount of the approved order');
      }
      const customerId =
        gateway.provider === 'stripe' ? (await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId: gift.personId, email: gift.email, name: body.person?.name, idempotencyKey })).providerCustomerId : null;
      const result = await provider.charge({
        amountCents: gift.totalCents,
        currency: gift.currency,
        customerId,
        paymentMethodId: gift.methodId,
        type: gift.kind === 'bank' ? 'bank' : 'card',
        description: `Donation${body.church?.name ? ` to ${body.church.name}` : ''}`,
        email: gift.email,
        metadata: { churchId, personId: gift.personId ?? '', funds: fundsMeta(gift.allocations), fee: centsText(gift.feeCents), email: gift.email ?? '' },
        idempotencyKey,
      });
      if (result.status === 'failed') throw new HttpError(402, [{ msg: `Payment failed (${result.providerStatus})`, param: 'id', location: 'body' }]);
      if (result.providerStatus === 'requires_action') {
        // The payer must confirm (3-D Secure); the webhook records the gift when it succeeds.
        return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: null as string | null, clientSecret: result.clientSecret ?? null } };
      }
      const payment = { transactionId: result.id, amountCents: gift.totalCents, currency: gift.currency, status: result.status, method: result.method, methodDetails: result.methodDetails };
      const { donation } = await record(giftRecord(churchId, gateway.provider, payment, { personId: gift.personId, email: gift.email, feeCents: gift.feeCents }, gift.allocations, { notes: body.notes }), req);
      return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: donation.id as string | null, clientSecret: null as string | null } };
    }),
  );

  app.post(`${base}/subscribe`, { config: { access: anyUser }, schema: { body: SubscribeBody, response: { 200: SubscribeAnswer } } }, async (req, reply) =>
    withIdempotency(req, reply, 'subscribe', async (idempotencyKey) => {
      const body = req.body;
      const anchor = billingAnchor(body.billing_cycle_anchor);
      const gift = await openGift(app, req, body, { requireMethod: false });
      const { gateway, provider, churchId } = gift;
      const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId: gift.personId, email: gift.email, name: body.person?.name, idempotencyKey });
      if (gift.methodId && gateway.provider === 'stripe' && gift.kind === 'card') await provider.attachCard(gift.methodId, customer.providerCustomerId);
      const sub = await provider.subscribe({
        customerId: customer.providerCustomerId,
        paymentMethodId: gift.methodId,
        amountCents: gift.totalCents,
        currency: gift.currency,
        interval: body.interval.interval,
        intervalCount: body.interval.interval_count,
        billingCycleAnchor: anchor,
        productId: gateway.productId,
        description: 'Recurring donation',
        metadata: { churchId, personId: gift.personId ?? '', funds: fundsMeta(gift.allocations) },
        idempotencyKey,
      });
      const row = {
        churchId,
        personId: gift.personId,
        customerId: customer.id,
        provider: gateway.provider,
        providerSubscriptionId: sub.id,
        amount: centsText(gift.totalCents),
        currency: gift.currency,
        interval: body.interval.interval,
        intervalCount: body.interval.interval_count,
        billingCycleAnchor: anchor ? new Date(anchor * 1000) : null,
        status: sub.status,
        fee: centsText(gift.feeCents),
        paymentMethodId: gift.methodId,
      };
      const id = await app.db.transaction(async (tx) => {
        const made = await insertSubscription(tx, row, gift.allocations);
        await reportChanges(app.deps, [{ churchId, entityType: 'subscription', entityId: made, action: 'created', after: { id: made, ...row } }], { req, tx });
        return made;
      });
      return { body: { id, status: sub.status, provider: gateway.provider, subscriptionId: sub.id } };
    }),
  );

  app.post(`${base}/log`, { config: { access: 'public' }, schema: { body: LogBody, response: { 200: Logged } } }, async (req) => {
    const { donation, fundData } = req.body;
    const churchId = donation.churchId.toLowerCase();
    // A public route records only what the church's gateway confirms: the amount, currency, status and the donor
    // are the payment's; a person named in the body is not taken (whoever learns a payment id could claim the gift).
    const { gateway, provider } = await paymentsFor(app, churchId, { provider: donation.provider });
    const payment = await provider.retrievePayment(donation.transactionId).catch((err: unknown) => {
      if (err instanceof HttpError && err.statusCode === 404) throw badRequest('donation.transactionId', 'is not a payment at the gateway');
      throw err;
    });
    if (payment.status === 'failed') throw badRequest('donation.transactionId', `the payment did not succeed (${payment.providerStatus})`);
    if (payment.metadata?.churchId && payment.metadata.churchId.toLowerCase() !== churchId) throw badRequest('donation.churchId', 'does not match the payment');
    const allocations = fundData.map((f, i) => {
      const fundId = f.fundId ?? f.id;
      if (!fundId) throw badRequest(`fundData[${i}].fundId`, 'is required');
      return { fundId: fundId.toLowerCase(), cents: toCents(f.amount) };
    });
    await checkFunds(app.db, churchId, allocations.map((a) => a.fundId), (i) => `fundData[${i}].fundId`);
    const allocated = sumCents(allocations.map((a) => a.cents));
    const amountCents = payment.amountCents ?? allocated;
    if (allocated > amountCents) throw badRequest('fundData', 'allocations exceed the amount paid');
    const payer = { ...payerOf(payment.metadata), feeCents: amountCents - allocated };
    const paid = { transactionId: payment.id, amountCents, currency: payment.currency ?? gateway.currency, status: payment.status, method: payment.method, methodDetails: payment.methodDetails };
    const { donation: row, created } = await record(giftRecord(churchId, gateway.provider, paid, payer, allocations, { notes: donation.notes }), req);
    return { donationId: row.id, created, status: row.status };
  });
}
