import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { webhookIntake, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../../deps';
import { verifyWebhook } from '../../domain/gateways';
import { replayEvents, replayReport, stripeImportReport } from '../../domain/replay';
import { settleWebhookEvent } from '../../domain/webhook-effects';
import { webhookEffect } from '../../jobs/contracts';
import { ReplayAnswer, ReplayBody, StripeImport, StripeReplayBody, WebhookParams, WebhookQuery, WebhookReceived } from '../../schemas';

const base = '/giving/donate';

/** `/giving/donate/webhook/:provider` and the replays of a gateway's events. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);

  webhookIntake(app, {
    path: `${base}/webhook/:provider`,
    schema: { params: WebhookParams, querystring: WebhookQuery, response: { 200: WebhookReceived } },
    provider: (req) => (req.params as { provider: string }).provider,
    async verify(req, raw) {
      const { churchId } = req.query as { churchId: string };
      const event = await verifyWebhook(deps, churchId.toLowerCase(), (req.params as { provider: string }).provider, req.headers, raw);
      return { churchId: churchId.toLowerCase(), eventId: event.id, type: event.type, payload: event.payload };
    },
    job: webhookEffect,
    settle: (event) => settleWebhookEvent(deps, event),
  });

  app.post(`${base}/replay-gatewayA-events`, { config: { access: requires('Donations.Edit') }, schema: { body: ReplayBody, response: { 200: ReplayAnswer } } }, async (req) =>
    replayReport(await replayEvents(deps, req.auth.churchId, req.body), req.body.dryRun),
  );

  // B1Admin's Stripe import page: the same replay, of the church's Stripe gateway, in the page's own shape.
  app.post(`${base}/replay-stripe-events`, { config: { access: requires('Donations.Edit') }, schema: { body: StripeReplayBody, response: { 200: StripeImport } } }, async (req) =>
    stripeImportReport(await replayEvents(deps, req.auth.churchId, { ...req.body, provider: 'stripe' }), req.body.dryRun),
  );
}
