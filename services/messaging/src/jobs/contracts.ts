import { z } from 'zod';
import { DELIVERY_RETRIES, WebhookJob, emailOf, jobContract, notifyPeople, type JobContract } from '@church/common';

/**
 * The jobs messaging owns, as contracts apart from their handlers (`jobs/index.ts`): routes and domain enqueue them
 * typed, with the change's transaction where a write causes them, and the start-up check wants exactly one handler
 * for each (`OWNED`).
 */

/** Escalation of notifications just written: socket, push and email, by each person's preferences. */
export const deliverNotifications = jobContract({
  name: 'messaging.deliverNotifications',
  schema: z.object({ churchId: z.uuid(), ids: z.array(z.uuid()).min(1).max(5000) }),
  ...DELIVERY_RETRIES,
});

/** The pushes of notifications that arrived during a person's quiet hours, when they end (those still unread). */
export const quietPushes = jobContract({
  name: 'messaging.quietPushes',
  schema: z.object({ churchId: z.uuid(), personId: z.uuid(), ids: z.array(z.uuid()).min(1).max(5000) }),
  ...DELIVERY_RETRIES,
});

/** Who hears of new messages of a conversation (a group's members, or the people who took part). */
export const messageNotifications = jobContract({
  name: 'messaging.messageNotifications',
  schema: z.object({ churchId: z.uuid(), conversationId: z.uuid(), messageIds: z.array(z.uuid()).min(1).max(5000) }),
  ...DELIVERY_RETRIES,
});

/** The daily digest of unread notifications (its schedule is `DIGEST_CRON`, set where the handler is registered). */
export const emailDigest = jobContract({ name: 'messaging.emailDigest', schema: z.object({}).passthrough(), attempts: 2, backoffMs: 60_000 });

/** One queued text (a delivery log), paced per provider account; transient failures are retried. */
export const sendSms = jobContract({ name: 'messaging.sendSms', schema: z.object({ deliveryLogId: z.uuid() }), ...DELIVERY_RETRIES });

/** Inbound SMS and status callbacks verified by the webhook route; applied once. */
export const smsWebhook = jobContract({ name: 'messaging.smsWebhook', schema: WebhookJob, attempts: 5, backoffMs: 2000 });

/**
 * A real-time push caused by a change (a message posted or deleted, a reaction, a private message, a notification):
 * to a conversation's sockets, or to a person's (`personId`, with `conversationId` as the payload names it). Local:
 * it runs in the process that made the change as soon as the change commits, and it is kept in the outbox until it
 * has run, so Redis being away delays the push (retried for about four minutes) and never fails the request.
 * `data` is one payload's `data` per item, pushed in order.
 */
export const realtimePush = jobContract({
  name: 'messaging.push',
  schema: z
    .object({
      churchId: z.uuid(),
      conversationId: z.string().max(200).optional(),
      personId: z.uuid().optional(),
      action: z.string().min(1).max(50),
      data: z.array(z.unknown()).min(1).max(1000),
    })
    .refine((p) => !!p.conversationId || !!p.personId, 'a push goes to a conversation or a person'),
  local: true,
  attempts: 11,
  backoffMs: 250,
});
export type RealtimePush = z.input<typeof realtimePush.schema>;

/** Every contract messaging owns: the start-up check wants exactly one handler for each. */
export const OWNED: JobContract[] = [notifyPeople, emailOf('messaging'), deliverNotifications, quietPushes, messageNotifications, emailDigest, sendSms, smsWebhook, realtimePush];
