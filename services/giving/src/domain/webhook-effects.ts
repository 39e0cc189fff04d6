import { randomUUID } from 'node:crypto';
import { processWebhookEvent, reportChanges, type ChangeInput, type RecordedWebhookEvent, type Tx, type WebhookEventRow } from '@church/common';
import type { GivingDeps } from '../deps';
import { centsText, sumCents, toCents } from '../lib/money';
import type { EventEffect, ProviderEvent } from '../providers/payments';
import { interpretPaypal } from '../providers/paypal';
import { interpretStripe } from '../providers/stripe';
import { donationByTransaction, donationsByTransactions, recordDonation, recordPaymentOfEvent, rowOf, setDonationStatus, setRefund, type DonationRow, type EventLogEntry } from '../repos/donations';
import { logGatewayEvent } from '../repos/event-logs';
import { paymentByTransaction, setPaymentStatus } from '../repos/registration-payments';
import { deleteSubscriptions, subscriptionAllocations, subscriptionOfProvider } from '../repos/subscriptions';
import { webhookEventById } from '../repos/webhook-events';
import { receiptJob } from '../jobs/contracts';
import { donationChange } from './donation-save';
import { providerOfChurch } from './gateways';
import { fundsOfPayment, giftRecord, payerOf } from './gifts';
import { scheduleReceipts } from './receipts';

/** Each provider's reading of its events, by the provider's name (a `Map`: the name is data, never a property). */
const interpreters = new Map<string, (event: ProviderEvent) => EventEffect>([
  ['stripe', interpretStripe],
  ['paypal', interpretPaypal],
]);

/** What an event's effect did: the donations that became complete (receipted with the change) and the changes to report. */
interface Applied {
  outcome: string;
  receipts: string[];
  changes: ChangeInput[];
  /** the event-log entry was written with the donation the event recorded */
  logged?: boolean;
}

/** The event whose effect is applied, for its event-log entry (written with a donation it records). */
type LoggedEvent = Omit<EventLogEntry, 'message'>;

const logStatus = (effect: EventEffect): 'failed' | 'processed' => (effect.kind === 'payment' && effect.status === 'failed' ? 'failed' : 'processed');

/**
 * Applies one event's effect inside the event's transaction. A donation is found by its transaction id, so a
 * late success flips a pending gift (never adds a second), an out-of-order "processing" never downgrades a
 * completed one, and a replayed or redelivered event finds its work done.
 */
export async function applyEffect(tx: Tx, churchId: string, provider: string, effect: EventEffect, event?: LoggedEvent): Promise<Applied> {
  const none = (outcome: string): Applied => ({ outcome, receipts: [], changes: [] });
  switch (effect.kind) {
    case 'payment': {
      // A status change of a known gift: a late success flips pending, an out-of-order event never goes back.
      const transition = async (existing: DonationRow): Promise<Applied> => {
        if (existing.status === effect.status) return none(`donation ${existing.id} already ${effect.status}`);
        if (existing.status === 'complete' || existing.status === 'refunded') return none(`donation ${existing.id} is ${existing.status}; ${effect.status} ignored`);
        if (existing.status === 'failed' && effect.status === 'pending') return none(`donation ${existing.id} failed; pending ignored`);
        const { before, after } = await setDonationStatus(tx, existing, effect.status);
        return { outcome: `donation ${existing.id} ${existing.status} -> ${effect.status}`, receipts: effect.status === 'complete' ? [existing.id] : [], changes: [donationChange(churchId, before, after)] };
      };
      const meta = effect.metadata;
      const otherChurch = !!meta.churchId && meta.churchId.toLowerCase() !== churchId;
      const funds = otherChurch ? null : fundsOfPayment(meta.funds, effect.amountCents);
      if (!funds) {
        // Not a gift this service can record from the event alone; a known one still moves.
        const existing = await donationByTransaction(tx, churchId, effect.transactionId);
        if (existing) return transition(existing);
        if (meta.kind === 'registration' && !otherChurch) return registrationPaymentMoved(tx, churchId, effect);
        return none(otherChurch ? 'ignored: payment of another church' : meta.funds ? 'ignored: the payment names allocations above its amount' : 'ignored: payment not made through this service');
      }
      // Recorded by its transaction id: a new payment is one statement (with its event-log entry); a known one
      // (conflict) moves instead. A failure is recorded too, so a "processing" delivered after it finds the gift
      // failed and leaves it.
      const id = randomUUID();
      const outcome = `donation ${id} recorded (${effect.status})`;
      const { donation, created } = await recordDonation(tx, giftRecord(churchId, provider, effect, payerOf(meta), funds, { id, date: effect.at }), event && { ...event, message: outcome, status: logStatus(effect) });
      // Recorded before (an earlier event of the payment, the charge's answer, a concurrent delivery that
      // committed first): apply ours to it.
      if (!created) return transition(donation);
      return { outcome, receipts: effect.status === 'complete' ? [donation.id] : [], changes: [donationChange(churchId, undefined, donation)], logged: !!event };
    }
    case 'invoice': {
      const sub = await subscriptionOfProvider(tx, churchId, provider, effect.providerSubscriptionId);
      if (!sub) return none(`ignored: unknown subscription ${effect.providerSubscriptionId}`);
      const allocations = (await subscriptionAllocations(tx, churchId, sub.id)).map((a) => ({ fundId: a.fundId, cents: toCents(a.amount) }));
      // A period paid for less than the subscription's allocations (changed at the provider) is recorded unallocated.
      const fits = sumCents(allocations.map((a) => a.cents)) <= effect.amountCents;
      const payment = { transactionId: effect.transactionId, amountCents: effect.amountCents, currency: effect.currency, status: 'complete' as const, method: 'card' };
      const record = { ...giftRecord(churchId, provider, payment, { personId: sub.personId, email: null, feeCents: toCents(sub.fee) }, fits ? allocations : [], { date: effect.at }), subscriptionId: sub.id };
      const { donation, created } = await recordDonation(tx, record);
      if (!created) return none(`donation ${donation.id} exists`);
      return { outcome: `subscription donation ${donation.id} recorded${fits ? '' : ' (unallocated: the period paid less than its allocations)'}`, receipts: [donation.id], changes: [donationChange(churchId, undefined, donation)] };
    }
    case 'subscriptionCancelled': {
      const removed = await deleteSubscriptions(tx, churchId, { provider, providerSubscriptionId: effect.providerSubscriptionId });
      return {
        outcome: removed.length ? `subscription ${removed[0]} removed` : 'subscription already removed',
        receipts: [],
        changes: removed.map((id) => ({ churchId, entityType: 'subscription', entityId: id, action: 'destroyed' })),
      };
    }
    case 'refund': {
      let existing = await donationByTransaction(tx, churchId, effect.transactionId);
      if (!existing && effect.invoiceIds?.length) {
        // A subscription period's payment: its donation is kept under the invoice the payment paid. A payment
        // that paid several recorded invoices is not attributable (the refunded amount is the payment's).
        const ofInvoices = await donationsByTransactions(tx, churchId, effect.invoiceIds);
        if (ofInvoices.length > 1) return none(`ignored: payment ${effect.transactionId} paid ${ofInvoices.length} recorded invoices`);
        existing = ofInvoices[0];
      }
      if (!existing) return none(`ignored: no donation with transaction ${effect.transactionId}`);
      const { before, after, full } = await setRefund(tx, existing, effect.refundedCents);
      return { outcome: `donation ${existing.id} refunded ${centsText(effect.refundedCents)}${full ? ' (full)' : ''}`, receipts: [], changes: [donationChange(churchId, before, after)] };
    }
    default:
      return none(`ignored: ${effect.reason}`);
  }
}

/**
 * A later word on a registration's payment (content's, `registration_payments`, never a gift): a 3-D Secure
 * payment finished or failed, a bank debit cleared. A succeeded payment never goes back.
 */
async function registrationPaymentMoved(tx: Tx, churchId: string, effect: Extract<EventEffect, { kind: 'payment' }>): Promise<Applied> {
  const none = (outcome: string): Applied => ({ outcome, receipts: [], changes: [] });
  const payment = await paymentByTransaction(tx, churchId, effect.transactionId);
  if (!payment) return none(`ignored: no registration payment with transaction ${effect.transactionId}`);
  const status = effect.status === 'complete' ? 'succeeded' : effect.status === 'pending' ? 'processing' : 'failed';
  if (payment.status === status || payment.status === 'succeeded' || payment.status === 'charging') return none(`registration payment ${payment.id} is ${payment.status}; ${status} ignored`);
  const after = await setPaymentStatus(tx, payment, status);
  const shown = (r: typeof payment) => ({ id: r.id, registrationId: r.registrationId, status: r.status, transactionId: r.transactionId });
  return {
    outcome: `registration payment ${payment.id} ${payment.status} -> ${status}`,
    receipts: [],
    changes: [{ churchId, entityType: 'registrationPayment', entityId: payment.id, action: 'updated', before: shown(payment), after: shown(after) }],
  };
}

/** The fields of an event's row that applying it reads. */
type EventFacts = Pick<WebhookEventRow, 'id' | 'churchId' | 'provider' | 'eventId' | 'type' | 'receivedAt' | 'payload'>;

/** What a recorded event asks for, by its provider's rules. */
function effectOf(event: EventFacts): EventEffect {
  const interpret = interpreters.get(event.provider);
  const providerEvent: ProviderEvent = { id: event.eventId, type: event.type, created: Math.floor(event.receivedAt.getTime() / 1000), payload: event.payload };
  const created = (event.payload as { created?: number; create_time?: string }) ?? {};
  if (typeof created.created === 'number') providerEvent.created = created.created;
  else if (typeof created.create_time === 'string') providerEvent.created = Math.floor(new Date(created.create_time).getTime() / 1000);
  return interpret ? interpret(providerEvent) : { kind: 'ignored', reason: `unknown provider ${event.provider}` };
}

/**
 * The common event, a new payment made through this service, in one statement (`recordPaymentOfEvent`: the
 * event locked and still unprocessed, the donation, its allocations, the event-log entry, its pending receipt,
 * the event marked processed) and its report to the audit log, in one transaction, instead of the general path's
 * round trips: webhook bursts are hundreds a second. `false` when it is not that case (any other event, a known
 * payment): the general path applies it.
 */
async function recordNewPayment(deps: GivingDeps, event: EventFacts, effect: EventEffect): Promise<boolean> {
  if (effect.kind !== 'payment') return false;
  const meta = effect.metadata;
  if (meta.churchId && meta.churchId.toLowerCase() !== event.churchId) return false;
  const funds = fundsOfPayment(meta.funds, effect.amountCents);
  if (!funds) return false;
  const id = randomUUID();
  const record = { ...giftRecord(event.churchId, event.provider, effect, payerOf(meta), funds, { date: effect.at }), id };
  const log = { customerId: effect.customerId ?? null, provider: event.provider, providerId: event.eventId, eventType: event.type, message: `donation ${id} recorded (${effect.status})`, status: logStatus(effect) };
  const outcome = await deps.db.transaction(async (tx) => {
    const done = await recordPaymentOfEvent(tx, event.id, record, log);
    if (done === 'recorded') await reportChanges(deps, [donationChange(event.churchId, undefined, rowOf(record))], { tx });
    return done;
  });
  if (outcome === 'known') return false;
  // Its receipt is pending with it: a `giving.receipts` job sends the church's pending receipts in batches.
  if (outcome === 'recorded' && effect.status === 'complete') await scheduleReceipts(deps, event.churchId);
  return true;
}

/**
 * The intake's `settle`: a new payment is recorded within its delivery (`recordNewPayment`, one statement);
 * any other event, or a payment already known, is left to the job (false).
 */
export const settleWebhookEvent = (deps: GivingDeps, event: RecordedWebhookEvent): Promise<boolean> => recordNewPayment(deps, event, effectOf(event));

/**
 * The invoices a refunded payment paid, when no donation carries the payment's own id: a subscription period is
 * recorded under its invoice id (`invoice.paid`), and its refund (`charge.refunded`) names the PaymentIntent.
 * Asked of the provider before the event's transaction (no row is held during the call) and at refund time, so
 * periods recorded by any earlier version are found too. A provider failure throws: the job is retried.
 */
async function refundInvoices(deps: GivingDeps, event: EventFacts, effect: EventEffect): Promise<string[] | undefined> {
  if (effect.kind !== 'refund') return undefined;
  if (await donationByTransaction(deps.db, event.churchId, effect.transactionId)) return undefined;
  const provider = await providerOfChurch(deps, event.churchId, event.provider);
  if (!provider?.invoicesOfPayment) return undefined;
  return provider.invoicesOfPayment(effect.transactionId);
}

/**
 * A recorded event's effect, once per event, with its event-log entry, its changes and its receipts: the work of
 * the webhook job (`giving.webhookEvent`), and of a replay of the gateway's events, which applies each event it
 * records at once.
 */
export async function applyWebhookEvent(deps: GivingDeps, webhookEventId: string): Promise<void> {
  const recorded = await webhookEventById(deps.db, webhookEventId);
  if (!recorded || recorded.processedAt) return;
  const first = effectOf(recorded);
  if (await recordNewPayment(deps, recorded, first)) return;
  const invoiceIds = await refundInvoices(deps, recorded, first);
  await processWebhookEvent(deps.db, webhookEventId, async (event: WebhookEventRow, tx) => {
    const interpreted = effectOf(event);
    const effect: EventEffect = interpreted.kind === 'refund' && invoiceIds ? { ...interpreted, invoiceIds } : interpreted;
    const customerId = effect.kind === 'payment' ? (effect.customerId ?? null) : null;
    const applied = await applyEffect(tx, event.churchId, event.provider, effect, { customerId, provider: event.provider, providerId: event.eventId, eventType: event.type });
    if (!applied.logged) {
      const status = applied.outcome.startsWith('ignored') ? 'ignored' : logStatus(effect);
      await logGatewayEvent(tx, { churchId: event.churchId, customerId, provider: event.provider, providerId: event.eventId, eventType: event.type, status, message: applied.outcome });
    }
    await reportChanges(deps, applied.changes, { tx });
    for (const donationId of applied.receipts) await deps.queue.enqueue(receiptJob, { churchId: event.churchId, donationId }, { jobId: `receipt-${donationId}`, tx });
    return applied.outcome;
  });
}
