import { z } from 'zod';
import { DELIVERY_RETRIES, EmailMessage, WebhookJob, emailOf, jobContract, notifyPeople, templateEmail, type JobContract } from '@church/common';

/**
 * The jobs messaging owns, as contracts apart from their handlers (`jobs/index.ts`): routes and domain enqueue them
 * typed, with the change's transaction where a write causes them, and the start-up check wants exactly one handler
 * for each (`OWNED`).
 */

/**
 * How the sender wants notifications delivered besides the app and its socket: `push` false sends none, `email`
 * `now` mails them at once (unless the person chose never) and `never` keeps them out of mail and the digest
 * (reminders set to push only); `title` is the push's title. Without them, each person's preferences decide.
 */
export const DeliveryOptions = z.object({
  push: z.boolean().optional(),
  email: z.enum(['now', 'never']).optional(),
  title: z.string().min(1).max(200).optional(),
});
export type DeliveryOptions = z.output<typeof DeliveryOptions>;

/**
 * One mail of messaging to one address (notification emails, the digest, group and template emails), handed over in
 * the transaction that decides it. `key` names this one mail (made when it is handed over), so two mails alike are
 * two jobs, and a run of the same job again sends nothing (`domain/once.ts`).
 */
export const sendEmail = jobContract({ name: 'messaging.sendEmail', schema: z.object({ key: z.uuid(), message: EmailMessage }), ...DELIVERY_RETRIES });

/** Escalation of notifications just written: socket, push and email, by each person's preferences. */
export const deliverNotifications = jobContract({
  name: 'messaging.deliverNotifications',
  schema: z.object({ churchId: z.uuid(), ids: z.array(z.uuid()).min(1).max(5000), options: DeliveryOptions.optional() }),
  ...DELIVERY_RETRIES,
});

/** The pushes of notifications that arrived during a person's quiet hours, when they end (those still unread). */
export const quietPushes = jobContract({
  name: 'messaging.quietPushes',
  schema: z.object({ churchId: z.uuid(), personId: z.uuid(), ids: z.array(z.uuid()).min(1).max(5000), title: z.string().max(200).optional() }),
  ...DELIVERY_RETRIES,
});

/** Plans a reminder definition's next reminders from its event, plan or task (on save, and every hour). */
export const expandReminders = jobContract({ name: 'messaging.expandReminders', schema: z.object({ churchId: z.uuid(), definitionId: z.uuid() }), attempts: 6, backoffMs: 5000 });

/** The reminder scheduler: claims the reminders due and enqueues each one's send (its cron is `REMINDER_SCAN_CRON`). */
export const reminderScan = jobContract({ name: 'messaging.reminderScan', schema: z.object({}).passthrough(), attempts: 1 });

/** Plans every enabled reminder again (its cron is `REMINDER_REFRESH_CRON`): events move, plans are added. */
export const reminderRefresh = jobContract({ name: 'messaging.reminderRefresh', schema: z.object({}).passthrough(), attempts: 2, backoffMs: 60_000 });

/** Sends one due reminder to its people, once (the job id is the reminder's; its row moves to `sent` with the notifications). */
export const sendReminder = jobContract({ name: 'messaging.sendReminder', schema: z.object({ churchId: z.uuid(), occurrenceId: z.uuid() }), ...DELIVERY_RETRIES });

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
export const OWNED: JobContract[] = [
  notifyPeople,
  templateEmail,
  emailOf('messaging'),
  sendEmail,
  deliverNotifications,
  quietPushes,
  messageNotifications,
  emailDigest,
  sendSms,
  smsWebhook,
  realtimePush,
  expandReminders,
  reminderScan,
  reminderRefresh,
  sendReminder,
];
