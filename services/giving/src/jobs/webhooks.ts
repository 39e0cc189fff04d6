import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { processWebhookEvent, type Tx, type WebhookEventRow } from '@church/common';
import type { GivingDeps } from '../app';
import { donations, eventLogs, subscriptionFunds, subscriptions } from '../db/schema';
import { donationByTransaction, recordDonation, type DonationRow } from '../repos/donations';
import { centsText, toCents } from '../domain/money';
import { parseFundsMeta } from '../domain/gifts';
import type { EventEffect, ProviderEvent } from '../providers/payments';
import { interpretStripe } from '../providers/stripe';
import { interpretPaypal } from '../providers/paypal';
import { receiptJob } from './contracts';

const interpreters: Record<string, (event: ProviderEvent) => EventEffect> = { stripe: interpretStripe, paypal: interpretPaypal };

/** What an event's effect did, and the donations that became complete (their receipts go out after commit). */
interface Applied {
  outcome: string;
  receipts: string[];
}

/**
 * Applies one event's effect inside the event's transaction. A donation is found by its transaction id, so a
 * late success flips a pending gift (never adds a second), an out-of-order "processing" never downgrades a
 * completed one, and a replayed or redelivered event finds its work done.
 */
export async function applyEffect(tx: Tx, churchId: string, provider: string, effect: EventEffect): Promise<Applied> {
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
      const existing = await donationByTransaction(tx, churchId, effect.transactionId);
      if (existing) return transition(existing);
      const meta = effect.metadata;
      if (meta.churchId && meta.churchId !== churchId) return { outcome: 'ignored: payment of another church', receipts: [] };
      const funds = parseFundsMeta(meta.funds);
      if (!funds) return { outcome: 'ignored: payment not made through this service', receipts: [] };
      // A failure is recorded too, so a "processing" delivered after it finds the gift failed and leaves it.
      const { donation, created } = await recordDonation(tx, {
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
      });
      // Another event of the same payment recorded it meanwhile (its transaction committed first): apply ours to it.
      if (!created) return transition(donation);
      return { outcome: `donation ${donation.id} recorded (${effect.status})`, receipts: effect.status === 'complete' ? [donation.id] : [] };
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
      const existing = await donationByTransaction(tx, churchId, effect.transactionId);
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

/** The webhook job's handler: the effect once per event, the event-log entry, then the receipts. */
export async function handleWebhookEvent(deps: GivingDeps, webhookEventId: string): Promise<void> {
  let receipts: string[] = [];
  let churchId = '';
  await processWebhookEvent(deps.db, webhookEventId, async (event: WebhookEventRow, tx) => {
    churchId = event.churchId;
    const interpret = interpreters[event.provider];
    const providerEvent: ProviderEvent = { id: event.eventId, type: event.type, created: Math.floor(event.receivedAt.getTime() / 1000), payload: event.payload };
    const created = (event.payload as { created?: number; create_time?: string }) ?? {};
    if (typeof created.created === 'number') providerEvent.created = created.created;
    else if (typeof created.create_time === 'string') providerEvent.created = Math.floor(new Date(created.create_time).getTime() / 1000);
    const effect = interpret ? interpret(providerEvent) : ({ kind: 'ignored', reason: `unknown provider ${event.provider}` } as const);
    const applied = await applyEffect(tx, event.churchId, event.provider, effect);
    receipts = applied.receipts;
    const customerId = effect.kind === 'payment' ? (effect.customerId ?? null) : null;
    await tx.insert(eventLogs).values({
      id: randomUUID(),
      churchId: event.churchId,
      customerId,
      provider: event.provider,
      providerId: event.eventId,
      eventType: event.type,
      status: applied.outcome.startsWith('ignored') ? 'ignored' : 'processed',
      message: applied.outcome,
      resolved: true,
    });
    return applied.outcome;
  });
  for (const donationId of receipts) await deps.queue.enqueue(receiptJob, { churchId, donationId }, { jobId: `receipt-${donationId}` });
}
