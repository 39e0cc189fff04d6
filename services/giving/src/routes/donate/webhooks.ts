import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { webhookIntake, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../../deps';
import { replayEvents } from '../../domain/replay';
import { amountOf } from '../../domain/money';
import { webhookEffect } from '../../jobs/contracts';
import { settleWebhookEvent } from '../../jobs/webhooks';
import { verifyWebhook } from '../../repos/gateways';
import { ReplayAnswer, ReplayBody, StripeImport, StripeReplayBody, WebhookParams, WebhookQuery, WebhookReceived } from '../../schemas';

const base = '/giving/donate';

const IMPORT_STATUS = new Map([
  ['already recorded', 'already_imported'],
  ['would process', 'new'],
  ['processed', 'imported'],
  ['skipped', 'skipped'],
  ['failed', 'error'],
] as const);

/** `/giving/donate/webhook/:provider` and the replays of a gateway's events. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  webhookIntake(app, {
    path: `${base}/webhook/:provider`,
    schema: { params: WebhookParams, querystring: WebhookQuery, response: { 200: WebhookReceived } },
    provider: (req) => (req.params as { provider: string }).provider,
    async verify(req, raw) {
      const { churchId } = req.query as { churchId: string };
      const event = await verifyWebhook(app, churchId.toLowerCase(), (req.params as { provider: string }).provider, req, raw);
      return { churchId: churchId.toLowerCase(), eventId: event.id, type: event.type, payload: event.payload };
    },
    job: webhookEffect,
    settle: (event) => settleWebhookEvent(givingDeps(app), event),
  });

  app.post(`${base}/replay-gatewayA-events`, { config: { access: requires('Donations.Edit') }, schema: { body: ReplayBody, response: { 200: ReplayAnswer } } }, async (req) => {
    const events = await replayEvents(app, req.auth.churchId, req.body);
    const count = (action: string) => events.filter((e) => e.action === action).length;
    return {
      dryRun: req.body.dryRun,
      total: events.length,
      alreadyRecorded: count('already recorded'),
      missing: events.length - count('already recorded'),
      processed: count('processed'),
      events: events.map((e) => ({ id: e.id, type: e.type, created: e.created, action: e.action })),
    };
  });

  // B1Admin's Stripe import page: the same replay, of the church's Stripe gateway, in the page's own shape.
  app.post(`${base}/replay-stripe-events`, { config: { access: requires('Donations.Edit') }, schema: { body: StripeReplayBody, response: { 200: StripeImport } } }, async (req) => {
    const events = await replayEvents(app, req.auth.churchId, { ...req.body, provider: 'stripe' });
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
      dryRun: req.body.dryRun,
      summary: { total: results.length, new: count('new'), alreadyImported: count('already_imported'), imported: count('imported'), skipped: count('skipped'), errors: count('error') },
      results,
    };
  });
}
