import type { FastifyInstance } from 'fastify';
import { badRequest, recordWebhookEvent } from '@church/common';
import { givingDeps } from '../deps';
import { webhookEffect } from '../jobs/contracts';
import { handleWebhookEvent } from '../jobs/webhooks';
import { paymentsFor } from '../repos/gateways';
import { processedEventIds } from '../repos/webhook-events';

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
 * through the webhook's own path: each is recorded once per event id (`recordWebhookEvent`) and applied by the
 * webhook job's handler, so a replay never makes a second donation (a payment is recognised by its transaction
 * id, whichever event or call recorded it first). A dry run writes nothing. An event whose effect fails here is
 * left to the webhook job, which retries it.
 */
export async function replayEvents(app: FastifyInstance, churchId: string, opts: { startDate: Date; endDate: Date; dryRun: boolean; provider: string }): Promise<ReplayedEvent[]> {
  const { startDate, endDate } = opts;
  if (endDate < startDate) throw badRequest('endDate', 'must not be before startDate');
  if (endDate.getTime() - startDate.getTime() > REPLAY_MAX_DAYS * 86_400_000) throw badRequest('endDate', `the range may span at most ${REPLAY_MAX_DAYS} days`);
  const { gateway, provider } = await paymentsFor(app, churchId, { provider: opts.provider });
  const listed = await provider.listEvents(startDate, new Date(endDate.getTime() + 86_400_000 - 1));
  const seen = await processedEventIds(app.db, churchId, gateway.provider, listed.map((e) => e.id));
  const deps = givingDeps(app);
  const out: ReplayedEvent[] = [];
  for (const e of listed) {
    const effect = provider.interpret(e);
    const money = effect.kind === 'payment' || effect.kind === 'invoice' ? { amountCents: effect.amountCents, currency: effect.currency } : effect.kind === 'refund' ? { amountCents: effect.refundedCents, currency: null } : { amountCents: null, currency: null };
    const base = { id: e.id, type: e.type, created: new Date(e.created * 1000).toISOString(), ...money, customer: effect.kind === 'payment' ? (effect.customerId ?? null) : null };
    if (seen.has(e.id)) out.push({ ...base, action: 'already recorded' });
    else if (effect.kind === 'ignored') out.push({ ...base, action: 'skipped', note: effect.reason });
    else if (opts.dryRun) out.push({ ...base, action: 'would process' });
    else {
      const { id } = await recordWebhookEvent(app.db, gateway.provider, { churchId, eventId: e.id, type: e.type, payload: e.payload });
      if (!id) {
        out.push({ ...base, action: 'already recorded' });
        continue;
      }
      try {
        await handleWebhookEvent(deps, id);
        out.push({ ...base, action: 'processed' });
      } catch (err) {
        await deps.queue.enqueue(webhookEffect, { webhookEventId: id }, { jobId: `webhook-${id}` });
        out.push({ ...base, action: 'failed', note: `${err instanceof Error ? err.message : 'failed'}; it will be retried` });
      }
    }
  }
  return out;
}
