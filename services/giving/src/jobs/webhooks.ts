import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { prepared, preparedReader, processWebhookEvent, type RecordedWebhookEvent, type Tx, type WebhookEventRow } from '@church/common';
import type { GivingDeps } from '../app';
import { donations, eventLogs, subscriptionFunds, subscriptions, webhookEvents } from '../db/schema';
import { donationByTransaction, recordDonation, recordPaymentOfEvent, type DonationRow, type EventLogEntry } from '../repos/donations';
import { centsText, toCents } from '../domain/money';
import { parseFundsMeta } from '../domain/gifts';
import type { EventEffect, ProviderEvent } from '../providers/payments';
import { interpretStripe } from '../providers/stripe';
import { interpretPaypal } from '../providers/paypal';
import { providerOfChurch } from '../repos/gateway-keys';
import { receiptJob } from './contracts';
import { scheduleReceipts } from './receipt';

const interpreters: Record<string, (event: ProviderEvent) => EventEffect> = { stripe: interpretStripe, paypal: interpretPaypal };

/** What an event's effect did, and the donations that became complete (their receipts go out after commit). */
interface Applied {
  outcome: string;
  receipts: string[];
  /** the event-log entry was written with the donation the event recorded */
  logged?: boolean;
}

/** The event whose effect is applied, for its event-log entry (written with a donation it records). */
type LoggedEvent = Omit<EventLogEntry, 'message'>;

/**
 * Applies one event's effect inside the event's transaction. A donation is found by its transaction id, so a
 * late success flips a pending gift (never adds a second), an out-of-order "processing" never downgrades a
 * completed one, and a replayed or redelivered event finds its work done.
 */
export async function applyEffect(tx: Tx, churchId: string, provider: string, effect: EventEffect, event?: LoggedEvent): Promise<Applied> {
  switch (effect.kind) {
    case 'payment': {
      // A status change of a known gift: a late success flips pending, an out-of-order event never goes back.
      const transition = async (existing: DonationRow): Promise<Applied> => {
        if (existing.status === effect.status) return { outcome: `donation ${existing.id} already ${effect.status}`, receipts: [] };
        if (existing.status === 'complete' || existing.status === 'refunded') return { outcome: `donation ${existing.id} is ${existing.status}; ${effect.status} ignored`, receipts: [] };
        if (existing.status === 'failed' && effect.status === 'pending') return { outcome: `donation ${existing.id} failed; pending ignored`, receipts: [] };
        await tx.update(donations).set({ status: effect.status, updatedAt: new Date() }).where(eq(donations.id, existing.id));
        return { outcome: `donation ${existing.id} ${existing.status} -> ${effect.status}`, receipts: effect.status === 'complete' ? [existing.id] : [] };
      };
      const meta = effect.metadata;
      const otherChurch = !!meta.churchId && meta.churchId !== churchId;
      const funds = otherChurch ? null : parseFundsMeta(meta.funds);
      if (!funds) {
        // Not a gift this service can record from the event alone; a known one still moves.
        const existing = await donationByTransaction(tx, churchId, effect.transactionId);
        if (existing) return transition(existing);
        return { outcome: otherChurch ? 'ignored: payment of another church' : 'ignored: payment not made through this service', receipts: [] };
      }
      // Recorded by its transaction id: a new payment is one statement (with its event-log entry); a known one
      // (conflict) moves instead. A failure is recorded too, so a "processing" delivered after it finds the gift
      // failed and leaves it.
      const id = randomUUID();
      const outcome = `donation ${id} recorded (${effect.status})`;
      const { donation, created } = await recordDonation(
        tx,
        {
          id,
          churchId,
          amountCents: effect.amountCents,
          currency: effect.currency,
          personId: meta.personId || null,
          method: effect.method,
          methodDetails: effect.methodDetails ?? null,
          status: effect.status,
          transactionId: effect.transactionId,
          provider,
          feeCents: meta.fee ? toCents(meta.fee) : 0,
          email: meta.email || null,
          date: effect.at,
          funds,
        },
        event && { ...event, message: outcome },
      );
      // Recorded before (an earlier event of the payment, the charge's answer, a concurrent delivery that
      // committed first): apply ours to it.
      if (!created) return transition(donation);
      return { outcome, receipts: effect.status === 'complete' ? [donation.id] : [], logged: !!event };
    }
    case 'invoice': {
      const [sub] = await tx
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.provider, provider), eq(subscriptions.providerSubscriptionId, effect.providerSubscriptionId)))
        .limit(1);
      if (!sub) return { outcome: `ignored: unknown subscription ${effect.providerSubscriptionId}`, receipts: [] };
      const allocations = await tx.select().from(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, sub.id)));
      const { donation, created } = await recordDonation(tx, {
        churchId,
        amountCents: effect.amountCents,
        currency: effect.currency,
        personId: sub.personId,
        method: 'card',
        status: 'complete',
        transactionId: effect.transactionId,
        provider,
        feeCents: toCents(sub.fee),
        subscriptionId: sub.id,
        date: effect.at,
        funds: allocations.map((a) => ({ fundId: a.fundId, cents: toCents(a.amount) })),
      });
      return { outcome: created ? `subscription donation ${donation.id} recorded` : `donation ${donation.id} exists`, receipts: created ? [donation.id] : [] };
    }
    case 'subscriptionCancelled': {
      const removed = await tx
        .delete(subscriptions)
        .where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.provider, provider), eq(subscriptions.providerSubscriptionId, effect.providerSubscriptionId)))
        .returning({ id: subscriptions.id });
      for (const r of removed) await tx.delete(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, r.id)));
      return { outcome: removed.length ? `subscription ${removed[0]!.id} removed` : 'subscription already removed', receipts: [] };
    }
    case 'refund': {
      let existing = await donationByTransaction(tx, churchId, effect.transactionId);
      if (!existing && effect.invoiceIds?.length) {
        // A subscription period's payment: its donation is kept under the invoice the payment paid. A payment
        // that paid several recorded invoices is not attributable (the refunded amount is the payment's).
        const ofInvoices = await tx
          .select()
          .from(donations)
          .where(and(eq(donations.churchId, churchId), inArray(donations.transactionId, effect.invoiceIds)));
        if (ofInvoices.length > 1) return { outcome: `ignored: payment ${effect.transactionId} paid ${ofInvoices.length} recorded invoices`, receipts: [] };
        existing = ofInvoices[0];
      }
      if (!existing) return { outcome: `ignored: no donation with transaction ${effect.transactionId}`, receipts: [] };
      const full = effect.refundedCents >= toCents(existing.amount);
      await tx
        .update(donations)
        .set({ refundedAmount: centsText(Math.min(effect.refundedCents, toCents(existing.amount))), ...(full ? { status: 'refunded' } : {}), updatedAt: new Date() })
        .where(eq(donations.id, existing.id));
      return { outcome: `donation ${existing.id} refunded ${centsText(effect.refundedCents)}${full ? ' (full)' : ''}`, receipts: [] };
    }
    default:
      return { outcome: `ignored: ${effect.reason}`, receipts: [] };
  }
}

const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
/** The event-log entry of a processed event (rendered once: one per webhook event). */
const insertEventLog = prepared(
  sql`insert into ${eventLogs} (id, church_id, customer_id, provider, provider_id, event_type, status, message, resolved) values (${p('id', 'uuid')}, ${p('churchId', 'uuid')}, ${p('customerId', 'text')}, ${p('provider', 'text')}, ${p('providerId', 'text')}, ${p('eventType', 'text')}, ${p('status', 'text')}, ${p('message', 'text')}, true)`,
);

const eventColumns = getTableColumns(webhookEvents);
const readEvent = preparedReader(eventColumns, (qb) => qb.select(eventColumns).from(webhookEvents).where(eq(webhookEvents.id, p('id', 'uuid'))));

/** The fields of an event's row that applying it reads. */
type EventFacts = Pick<WebhookEventRow, 'id' | 'churchId' | 'provider' | 'eventId' | 'type' | 'receivedAt' | 'payload'>;

/** What a recorded event asks for, by its provider's rules. */
function effectOf(event: EventFacts): EventEffect {
  const interpret = interpreters[event.provider];
  const providerEvent: ProviderEvent = { id: event.eventId, type: event.type, created: Math.floor(event.receivedAt.getTime() / 1000), payload: event.payload };
  const created = (event.payload as { created?: number; create_time?: string }) ?? {};
  if (typeof created.created === 'number') providerEvent.created = created.created;
  else if (typeof created.create_time === 'string') providerEvent.created = Math.floor(new Date(created.create_time).getTime() / 1000);
  return interpret ? interpret(providerEvent) : { kind: 'ignored', reason: `unknown provider ${event.provider}` };
}

/**
 * The common event, a new payment made through this service, in one statement (`recordPaymentOfEvent`: the
 * event locked and still unprocessed, the donation, its allocations, the event-log entry, its pending receipt,
 * the event marked processed) instead of a transaction of five round trips: webhook bursts are hundreds a second. `false` when
 * it is not that case (any other event, a known payment): the general path applies it.
 */
async function recordNewPayment(deps: GivingDeps, event: EventFacts, effect: EventEffect): Promise<boolean> {
  if (effect.kind !== 'payment') return false;
  const meta = effect.metadata;
  if (meta.churchId && meta.churchId !== event.churchId) return false;
  const funds = parseFundsMeta(meta.funds);
  if (!funds) return false;
  const id = randomUUID();
  const outcome = await recordPaymentOfEvent(
    deps.db,
    event.id,
    {
      id,
      churchId: event.churchId,
      amountCents: effect.amountCents,
      currency: effect.currency,
      personId: meta.personId || null,
      method: effect.method,
      methodDetails: effect.methodDetails ?? null,
      status: effect.status,
      transactionId: effect.transactionId,
      provider: event.provider,
      feeCents: meta.fee ? toCents(meta.fee) : 0,
      email: meta.email || null,
      date: effect.at,
      funds,
    },
    { customerId: effect.customerId ?? null, provider: event.provider, providerId: event.eventId, eventType: event.type, message: `donation ${id} recorded (${effect.status})` },
  );
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

/** The webhook job's handler: the effect once per event, the event-log entry, then the receipts. */
export async function handleWebhookEvent(deps: GivingDeps, webhookEventId: string): Promise<void> {
  const [recorded] = await readEvent(deps.db, { id: webhookEventId });
  if (!recorded || recorded.processedAt) return;
  const first = effectOf(recorded);
  if (await recordNewPayment(deps, recorded, first)) return;
  const invoiceIds = await refundInvoices(deps, recorded, first);
  let receipts: string[] = [];
  let churchId = '';
  await processWebhookEvent(deps.db, webhookEventId, async (event: WebhookEventRow, tx) => {
    churchId = event.churchId;
    const interpreted = effectOf(event);
    const effect: EventEffect = interpreted.kind === 'refund' && invoiceIds ? { ...interpreted, invoiceIds } : interpreted;
    const customerId = effect.kind === 'payment' ? (effect.customerId ?? null) : null;
    const applied = await applyEffect(tx, event.churchId, event.provider, effect, { customerId, provider: event.provider, providerId: event.eventId, eventType: event.type });
    receipts = applied.receipts;
    if (applied.logged) return applied.outcome;
    await insertEventLog(tx, {
      id: randomUUID(),
      churchId: event.churchId,
      customerId,
      provider: event.provider,
      providerId: event.eventId,
      eventType: event.type,
      status: applied.outcome.startsWith('ignored') ? 'ignored' : 'processed',
      message: applied.outcome,
    });
    return applied.outcome;
  });
  for (const donationId of receipts) await deps.queue.enqueue(receiptJob, { churchId, donationId }, { jobId: `receipt-${donationId}` });
}
