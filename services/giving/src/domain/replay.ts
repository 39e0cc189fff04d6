import { badRequest, DAY_MS, recordWebhookEvent } from '@church/common';
import type { GivingDeps } from '../deps';
import { amountOf } from '../lib/money';
import { webhookEffect } from '../jobs/contracts';
import { processedEventIds } from '../repos/webhook-events';
import { paymentsFor } from './gateways';
import { applyWebhookEvent } from './webhook-effects';

/** The longest range a replay lists: a year (Stripe keeps its events for 30 days, so older days list nothing). */
export const REPLAY_MAX_DAYS = 366;

/** What a replay did with one of the provider's events. */
export interface ReplayedEvent {
  id: string;
  type: string;
  /** ISO date-time */
  created: string;
  /** `already recorded`, `would process` (dry run), `processed`, `skipped` (not a change to the books) or `failed` */
  action: 'already recorded' | 'would process' | 'processed' | 'skipped' | 'failed';
  amountCents: number | null;
  currency: string | null;
  customer: string | null;
  /** why it was skipped, or what failed */
  note?: string;
}

/**
 * Lists the church's gateway events of a range of days (end day included) and replays those not recorded yet
 * through the webhook's own path: each is recorded once per event id (`recordWebhookEvent`) and applied as the
 * webhook job applies it (`applyWebhookEvent`), so a replay never makes a second donation (a payment is
 * recognised by its transaction id, whichever event or call recorded it first). A dry run writes nothing. An event whose effect fails here is
 * left to the webhook job, which retries it.
 */
export async function replayEvents(deps: GivingDeps, churchId: string, opts: { startDate: Date; endDate: Date; dryRun: boolean; provider: string }): Promise<ReplayedEvent[]> {
  const { startDate, endDate } = opts;
  if (endDate < startDate) throw badRequest('endDate', 'must not be before startDate');
  if (endDate.getTime() - startDate.getTime() > REPLAY_MAX_DAYS * DAY_MS) throw badRequest('endDate', `the range may span at most ${REPLAY_MAX_DAYS} days`);
  const { gateway, provider } = await paymentsFor(deps, churchId, { provider: opts.provider });
  const listed = await provider.listEvents(startDate, new Date(endDate.getTime() + DAY_MS - 1));
  const seen = await processedEventIds(deps.db, churchId, gateway.provider, listed.map((e) => e.id));
  const out: ReplayedEvent[] = [];
  for (const e of listed) {
    const effect = provider.interpret(e);
    const money = effect.kind === 'payment' || effect.kind === 'invoice' ? { amountCents: effect.amountCents, currency: effect.currency } : effect.kind === 'refund' ? { amountCents: effect.refundedCents, currency: null } : { amountCents: null, currency: null };
    const base = { id: e.id, type: e.type, created: new Date(e.created * 1000).toISOString(), ...money, customer: effect.kind === 'payment' ? (effect.customerId ?? null) : null };
    if (seen.has(e.id)) out.push({ ...base, action: 'already recorded' });
    else if (effect.kind === 'ignored') out.push({ ...base, action: 'skipped', note: effect.reason });
    else if (opts.dryRun) out.push({ ...base, action: 'would process' });
    else {
      const { id } = await recordWebhookEvent(deps.db, gateway.provider, { churchId, eventId: e.id, type: e.type, payload: e.payload });
      if (!id) {
        out.push({ ...base, action: 'already recorded' });
        continue;
      }
      try {
        await applyWebhookEvent(deps, id);
        out.push({ ...base, action: 'processed' });
      } catch (err) {
        await deps.queue.enqueue(webhookEffect, { webhookEventId: id }, { jobId: `webhook-${id}` });
        out.push({ ...base, action: 'failed', note: `${err instanceof Error ? err.message : 'failed'}; it will be retried` });
      }
    }
  }
  return out;
}

/** `POST /donate/replay-gatewayA-events`' answer: the counts and each event's action. */
export function replayReport(events: ReplayedEvent[], dryRun: boolean) {
  const count = (action: string) => events.filter((e) => e.action === action).length;
  return {
    dryRun,
    total: events.length,
    alreadyRecorded: count('already recorded'),
    missing: events.length - count('already recorded'),
    processed: count('processed'),
    events: events.map((e) => ({ id: e.id, type: e.type, created: e.created, action: e.action })),
  };
}

const IMPORT_STATUS = new Map([
  ['already recorded', 'already_imported'],
  ['would process', 'new'],
  ['processed', 'imported'],
  ['skipped', 'skipped'],
  ['failed', 'error'],
] as const);

/** `POST /donate/replay-stripe-events`' answer: B1Admin's Stripe import page's shape (its statuses and summary). */
export function stripeImportReport(events: ReplayedEvent[], dryRun: boolean) {
  const results = events.map((e) => ({
    eventId: e.id,
    type: e.type,
    amount: e.amountCents === null ? 0 : amountOf(e.amountCents),
    currency: e.currency,
    created: e.created,
    customer: e.customer,
    status: IMPORT_STATUS.get(e.action)!,
    ...(e.note ? { error: e.note } : {}),
  }));
  const count = (status: string) => results.filter((r) => r.status === status).length;
  return {
    dryRun,
    summary: { total: results.length, new: count('new'), alreadyImported: count('already_imported'), imported: count('imported'), skipped: count('skipped'), errors: count('error') },
    results,
  };
}
