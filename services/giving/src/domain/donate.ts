import type { z } from 'zod';
import { badRequest, HttpError, reportChanges, type Actor } from '@church/common';
import type { GivingDeps } from '../deps';
import { receiptJob } from '../jobs/contracts';
import { centsText, sumCents, toCents } from '../lib/money';
import { checkFunds, recordDonation, type DonationRow, type NewDonation } from '../repos/donations';
import { insertSubscription } from '../repos/subscriptions';
import type { ChargeBody, CreateOrderBody, LogBody, SubscribeBody } from '../schemas';
import { ensureCustomer } from './customers';
import { donationChange } from './donation-save';
import { paymentsFor, type PaymentDeps } from './gateways';
import { billingAnchor, openGift } from './gift-opening';
import { fundsMeta, giftRecord, payerOf } from './gifts';
import type { IdempotentAnswer } from './idempotency';

// Payments through the church's gateway (`/giving/donate`): one-time, recurring, checkout orders, and the log of
// a payment made in the browser. The gateway is asked with no transaction open; what it did is then recorded in
// one transaction with its report (and its receipt, for a complete gift).

/** What the payment flows use: the gateway's adapter, the audit log's and the receipts' queue. */
export type DonateDeps = PaymentDeps & Pick<GivingDeps, 'queue' | 'module'>;

/**
 * Records a gateway payment with its allocations, the change and its receipt (when complete) in one transaction:
 * once per transaction id, whichever of the charge, the log or the webhook records it first.
 */
function recordGift(deps: DonateDeps, actor: Actor, gift: NewDonation): Promise<{ donation: DonationRow; created: boolean }> {
  return deps.db.transaction(async (tx) => {
    const out = await recordDonation(tx, gift);
    if (out.created) {
      await reportChanges(deps, [donationChange(gift.churchId, undefined, out.donation)], { req: actor, tx });
      if (out.donation.status === 'complete') await deps.queue.enqueue(receiptJob, { churchId: gift.churchId, donationId: out.donation.id }, { jobId: `receipt-${out.donation.id}`, tx });
    }
    return out;
  });
}

/** `POST /donate/create-order`: a checkout order (PayPal) for the gift, described by its funds' names. */
export async function createOrder(deps: DonateDeps, actor: Actor, body: z.output<typeof CreateOrderBody>) {
  const gift = await openGift(deps, actor, body, { requireMethod: false, checkout: true });
  const known = await checkFunds(deps.db, gift.churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
  const order = await gift.provider.createOrder({
    amountCents: gift.totalCents,
    currency: gift.currency,
    description: `Donation: ${body.funds.map((f) => known.get(f.id.toLowerCase())?.name ?? f.name ?? 'fund').join(', ')}`.slice(0, 127),
    metadata: { churchId: gift.churchId, personId: gift.personId ?? '' },
  });
  return { id: order.id, status: order.status, provider: gift.gateway.provider };
}

type ChargeAnswer = { id: string; status: string; provider: string; donationId: string | null; clientSecret: string | null };

/**
 * `POST /donate/charge`: a one-time gift charged (a PayPal order captured only for the gift's amount), and
 * recorded when the money moved or is under way; one that needs the payer's action (3-D Secure) is recorded by
 * the webhook when it succeeds. `idempotencyKey` goes on to the gateway.
 */
export async function chargeGift(deps: DonateDeps, actor: Actor, body: z.output<typeof ChargeBody>, idempotencyKey: string | undefined): Promise<IdempotentAnswer<ChargeAnswer>> {
  const gift = await openGift(deps, actor, body, { requireMethod: true });
  const { gateway, provider, churchId } = gift;
  if (gateway.provider === 'paypal') {
    // The payer approved an order for some amount: capture it only when that is the gift being recorded.
    const order = await provider.retrievePayment(gift.methodId!);
    if (order.amountCents !== gift.totalCents) throw badRequest('amount', 'does not match the amount of the approved order');
  }
  const customerId =
    gateway.provider === 'stripe' ? (await ensureCustomer(deps.db, actor, provider, { customerId: body.customerId, personId: gift.personId, email: gift.email, name: body.person?.name, idempotencyKey })).providerCustomerId : null;
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
    return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: null, clientSecret: result.clientSecret ?? null } };
  }
  const payment = { transactionId: result.id, amountCents: gift.totalCents, currency: gift.currency, status: result.status, method: result.method, methodDetails: result.methodDetails };
  const { donation } = await recordGift(deps, actor, giftRecord(churchId, gateway.provider, payment, { personId: gift.personId, email: gift.email, feeCents: gift.feeCents }, gift.allocations, { notes: body.notes }));
  return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: donation.id, clientSecret: null } };
}

/**
 * `POST /donate/subscribe`: a recurring gift made at the gateway (the person's customer made when they have none,
 * a card attached to it) and recorded with its allocations. `idempotencyKey` goes on to the gateway.
 */
export async function subscribeGift(
  deps: DonateDeps,
  actor: Actor,
  body: z.output<typeof SubscribeBody>,
  idempotencyKey: string | undefined,
): Promise<IdempotentAnswer<{ id: string; status: string; provider: string; subscriptionId: string }>> {
  const anchor = billingAnchor(body.billing_cycle_anchor);
  const gift = await openGift(deps, actor, body, { requireMethod: false });
  const { gateway, provider, churchId } = gift;
  const customer = await ensureCustomer(deps.db, actor, provider, { customerId: body.customerId, personId: gift.personId, email: gift.email, name: body.person?.name, idempotencyKey });
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
  const id = await deps.db.transaction(async (tx) => {
    const made = await insertSubscription(tx, row, gift.allocations);
    await reportChanges(deps, [{ churchId, entityType: 'subscription', entityId: made, action: 'created', after: { id: made, ...row } }], { req: actor, tx });
    return made;
  });
  return { body: { id, status: sub.status, provider: gateway.provider, subscriptionId: sub.id } };
}

/**
 * `POST /donate/log` (public): a payment made in the browser, recorded from what the church's gateway confirms:
 * the amount, currency, status and the donor are the payment's; a person named in the body is not taken (whoever
 * learns a payment id could claim the gift). `actor`: the caller, or the module for a guest.
 */
export async function logPayment(deps: DonateDeps, actor: Actor, body: z.output<typeof LogBody>) {
  const { donation, fundData } = body;
  const churchId = donation.churchId.toLowerCase();
  const { gateway, provider } = await paymentsFor(deps, churchId, { provider: donation.provider });
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
  await checkFunds(deps.db, churchId, allocations.map((a) => a.fundId), (i) => `fundData[${i}].fundId`);
  const allocated = sumCents(allocations.map((a) => a.cents));
  const amountCents = payment.amountCents ?? allocated;
  if (allocated > amountCents) throw badRequest('fundData', 'allocations exceed the amount paid');
  const payer = { ...payerOf(payment.metadata), feeCents: amountCents - allocated };
  const paid = { transactionId: payment.id, amountCents, currency: payment.currency ?? gateway.currency, status: payment.status, method: payment.method, methodDetails: payment.methodDetails };
  const { donation: row, created } = await recordGift(deps, actor, giftRecord(churchId, gateway.provider, paid, payer, allocations, { notes: donation.notes }));
  return { donationId: row.id, created, status: row.status };
}
