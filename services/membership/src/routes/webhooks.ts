import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { Empty, IdParams, actorOf, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { membershipDeps } from '../deps';
import { ALL_EVENTS, EVENT_GROUPS, auditedWebhook, newSecret, queueDelivery, saveWebhook, sendTestEvent } from '../domain/webhooks';
import { attemptsOf, deleteWebhook, deliveriesOf, findDelivery, findWebhook, listWebhooks, updateWebhook, type DeliveryRow, type WebhookRow } from '../repos/webhooks';
import { DeliveryOut, DeliveryParams, EventCatalog, SecretOut, TestBody, WebhookOut, WebhookSave } from '../schemas/webhooks';
import { z } from 'zod';

const editSettings = { access: requires('Settings.Edit') };
const BASE = '/membership/webhooks';

const toWebhook = (w: WebhookRow, secret?: string) => ({
  id: w.id,
  churchId: w.churchId,
  name: w.name,
  url: w.url,
  events: w.events,
  active: w.active,
  connectorType: w.connectorType,
  consecutiveFailures: w.consecutiveFailures,
  dateCreated: w.createdAt,
  dateModified: w.updatedAt,
  ...(secret ? { secret } : {}),
});

/**
 * Outbound webhooks (B1Admin's settings → developer → webhooks; Settings.Edit): a church subscribes a receiving URL
 * to change events of every module; each delivery is signed (Standard Webhooks), sent through the queue with
 * retries, logged attempt by attempt, and can be sent again.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);

  const deliveriesOut = async (churchId: string, rows: DeliveryRow[]) => {
    const attempts = await attemptsOf(app.db, churchId, rows.map((r) => r.id));
    return rows.map((d) => ({
      id: d.id,
      webhookId: d.webhookId,
      event: d.event,
      payload: d.payload,
      status: d.status,
      attemptCount: d.attemptCount,
      responseStatus: d.responseStatus,
      responseBody: d.responseBody,
      nextAttemptAt: d.nextAttemptAt,
      dateCreated: d.createdAt,
      dateCompleted: d.completedAt,
      attempts: attempts
        .filter((a) => a.deliveryId === d.id)
        .map((a) => ({ attempt: a.attempt, responseStatus: a.responseStatus, responseBody: a.responseBody, error: a.error, durationMs: a.durationMs, at: a.createdAt })),
    }));
  };

  app.get(`${BASE}/events`, { config: editSettings, schema: { summary: 'The events a webhook may subscribe to, by group', response: { 200: EventCatalog } } }, async () => ({
    groups: Object.fromEntries(Object.entries(EVENT_GROUPS).map(([k, v]) => [k, [...v]])),
    all: [...ALL_EVENTS],
  }));

  app.get(BASE, { config: editSettings, schema: { summary: 'List the church’s webhooks', response: { 200: z.array(WebhookOut) } } }, async (req) => (await listWebhooks(app.db, req.auth.churchId)).map((w) => toWebhook(w)));

  app.get(`${BASE}/:id`, { config: editSettings, schema: { summary: 'Read one webhook', params: IdParams, response: { 200: WebhookOut } } }, async (req) => {
    const hook = await findWebhook(app.db, req.auth.churchId, req.params.id);
    if (!hook) throw notFound('Webhook');
    return toWebhook(hook);
  });

  // Create (the secret is answered this once) or update (the secret never leaves again).
  app.post(BASE, { config: editSettings, schema: { summary: 'Create a webhook (its secret shown once) or update one', body: WebhookSave, response: { 200: WebhookOut } } }, async (req) => {
    const { hook, secret } = await saveWebhook(deps, actorOf(req), req.body);
    return toWebhook(hook, secret);
  });

  app.delete(`${BASE}/:id`, { config: editSettings, schema: { summary: 'Delete a webhook and its deliveries', params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      const gone = await deleteWebhook(tx, churchId, req.params.id);
      if (!gone) throw notFound('Webhook');
      await reportChanges(deps, [{ churchId, entityType: 'webhook', entityId: gone.id, action: 'destroyed', before: auditedWebhook(gone) }], { req, tx });
    });
    return {};
  });

  app.post(`${BASE}/:id/regenerate-secret`, { config: editSettings, schema: { summary: 'Replace a webhook’s signing secret (shown once)', params: IdParams, response: { 200: SecretOut } } }, async (req) => {
    const { churchId } = req.auth;
    const secret = newSecret();
    await app.db.transaction(async (tx) => {
      if (!(await updateWebhook(tx, churchId, req.params.id, { secret: deps.secrets.encrypt(secret) }))) throw notFound('Webhook');
      await reportChanges(deps, [{ churchId, entityType: 'webhook', entityId: req.params.id, action: 'secret_regenerated' }], { req, tx });
    });
    return { id: req.params.id, secret };
  });

  app.get(`${BASE}/:id/deliveries`, { config: editSettings, schema: { summary: 'A webhook’s latest deliveries with every attempt', params: IdParams, response: { 200: z.array(DeliveryOut) } } }, async (req) => {
    if (!(await findWebhook(app.db, req.auth.churchId, req.params.id))) throw notFound('Webhook');
    return deliveriesOut(req.auth.churchId, await deliveriesOf(app.db, req.auth.churchId, req.params.id));
  });

  app.get(`${BASE}/deliveries/:deliveryId`, { config: editSettings, schema: { summary: 'Read one delivery with its attempts', params: DeliveryParams, response: { 200: DeliveryOut } } }, async (req) => {
    const delivery = await findDelivery(app.db, req.auth.churchId, req.params.deliveryId);
    if (!delivery) throw notFound('Delivery');
    return (await deliveriesOut(req.auth.churchId, [delivery]))[0]!;
  });

  // The same message again (same `webhook-id`, so a receiver that saw it can tell), as a new delivery.
  app.post(`${BASE}/deliveries/:deliveryId/redeliver`, { config: editSettings, schema: { summary: 'Send a delivered message again', params: DeliveryParams, response: { 200: DeliveryOut } } }, async (req) => {
    const { churchId } = req.auth;
    const original = await findDelivery(app.db, churchId, req.params.deliveryId);
    if (!original) throw notFound('Delivery');
    const hook = await findWebhook(app.db, churchId, original.webhookId);
    if (!hook) throw notFound('Webhook');
    const id = await queueDelivery(deps, hook, original.event, original.payload, original.messageId);
    return (await deliveriesOut(churchId, [(await findDelivery(app.db, churchId, id))!]))[0]!;
  });

  // A sample of one of the webhook's events (the one asked for, else its first), through the same queue.
  app.post(`${BASE}/:id/test`, { config: editSettings, schema: { summary: 'Send a sample event to a webhook', params: IdParams, body: TestBody, response: { 200: DeliveryOut } } }, async (req) => {
    const id = await sendTestEvent(deps, req.auth.churchId, req.params.id, req.body?.event);
    return (await deliveriesOut(req.auth.churchId, [(await findDelivery(app.db, req.auth.churchId, id))!]))[0]!;
  });
}
