import { z } from 'zod';
import { Id } from '@church/common';
import { ALL_EVENTS } from '../domain/webhooks';

/** A webhook as B1Admin's webhook screens read it; `secret` only in the answers of create and regenerate. */
export const WebhookOut = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  connectorType: z.string(),
  consecutiveFailures: z.number(),
  dateCreated: z.date(),
  dateModified: z.date(),
  secret: z.string().optional(),
});

/** A webhook as B1Admin's editor posts it (`id` absent or "" for a new one). */
export const WebhookSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(100),
  url: z.string().trim().min(1, 'url is required').max(2000),
  events: z
    .array(z.string().max(60))
    .min(1, 'choose at least one event')
    .max(100)
    .refine((list) => list.every((e) => ALL_EVENTS.has(e)), { message: 'unknown event; see GET /membership/webhooks/events' }),
  active: z.boolean().optional(),
  connectorType: z.string().max(30).optional(),
  /** settings of a connector that calls a provider's API (B1Admin's Mailchimp form): not supported, refused */
  connectorConfig: z.string().max(4000).nullish(),
});

export const DeliveryOut = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.string(),
  payload: z.string(),
  status: z.string(),
  attemptCount: z.number(),
  responseStatus: z.number().nullable(),
  responseBody: z.string().nullable(),
  nextAttemptAt: z.date().nullable(),
  dateCreated: z.date(),
  dateCompleted: z.date().nullable(),
  /** every attempt, oldest first: the receiver's status (null: not reached), an excerpt of its answer or the error */
  attempts: z.array(
    z.object({ attempt: z.number(), responseStatus: z.number().nullable(), responseBody: z.string().nullable(), error: z.string().nullable(), durationMs: z.number(), at: z.date() }),
  ),
});

export const EventCatalog = z.object({ groups: z.record(z.string(), z.array(z.string())), all: z.array(z.string()) });
export const TestBody = z.object({ event: z.string().max(60).optional() }).optional();
export const SecretOut = z.object({ id: z.string(), secret: z.string() });
export const DeliveryParams = z.object({ deliveryId: Id });
