import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { WebhookJob, defineJob, handle, jobContract, notifyPeople, processWebhookEvent, providerMessage, type JobDefinition } from '@church/common';
import type { MessagingDeps } from '../app';
import { consentLogs, deliveryLogs, notifications, sentTexts } from '../db/schema';
import { deliverNotifications, emailPerson, insertNotifications, notificationEmail, preferencesOf, writeLog } from '../domain/notify';
import { contacts, optOut } from '../domain/people';
import { notifyOfMessages } from '../domain/messages';
import { SMS_ATTEMPTS, sendQueuedSms } from '../domain/texting';

/** Inbound SMS and status callbacks verified by the webhook route; applied once here. */
export const smsWebhook = jobContract({ name: 'messaging.smsWebhook', schema: WebhookJob, attempts: 5, backoffMs: 2000 });

const STOP = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
const START = new Set(['START', 'YES', 'UNSTOP', 'OPTIN']);
const HELP = new Set(['HELP', 'INFO']);

export function keywordOf(body: string): { keyword: string; action: 'optOut' | 'optIn' | 'help' } | null {
  const word = body.trim().split(/\s+/)[0]?.toUpperCase().replace(/[^A-Z]/g, '') ?? '';
  if (STOP.has(word)) return { keyword: word, action: 'optOut' };
  if (START.has(word)) return { keyword: word, action: 'optIn' };
  if (HELP.has(word)) return { keyword: word, action: 'help' };
  return null;
}

const FAILED_STATUSES = new Set(['failed', 'undelivered']);

/** The daily digest: one email per person who chose `daily`, listing unread notifications not yet emailed. */
export async function runDigest(deps: MessagingDeps): Promise<number> {
  const rows = await deps.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.isNew, true), isNull(notifications.emailedAt)))
    .orderBy(asc(notifications.churchId), asc(notifications.personId), asc(notifications.timeSent))
    .limit(50_000);
  const byChurch = new Map<string, Map<string, typeof rows>>();
  for (const r of rows) {
    const church = byChurch.get(r.churchId) ?? new Map<string, typeof rows>();
    church.set(r.personId, [...(church.get(r.personId) ?? []), r]);
    byChurch.set(r.churchId, church);
  }
  let sent = 0;
  for (const [churchId, people] of byChurch) {
    const prefs = await preferencesOf(deps, churchId, [...people.keys()]);
    const daily = [...people.keys()].filter((p) => prefs.get(p)?.emailFrequency === 'daily');
    if (!daily.length) continue;
    let emails = new Map<string, string | null>();
    try {
      for (let i = 0; i < daily.length; i += 5000) {
        for (const c of await contacts(deps, churchId, { ids: daily.slice(i, i + 5000) })) emails.set(c.id, c.email);
      }
    } catch (err) {
      emails = new Map();
      for (const personId of daily) await writeLog(deps, { churchId, personId, channel: 'email', status: 'failed', error: `contacts: ${providerMessage(err)}`, contentType: 'digest' });
      continue;
    }
    for (const personId of daily) {
      const items = people.get(personId)!;
      const ok = await emailPerson(deps, churchId, { id: personId, email: emails.get(personId) ?? null }, {
        subject: `You have ${items.length} unread notification${items.length === 1 ? '' : 's'}`,
        html: notificationEmail(deps.config.APP_URL, items),
        contentType: 'digest',
      });
      // Marked either way: a person without an address is not retried every day.
      await deps.db.update(notifications).set({ emailedAt: new Date() }).where(inArray(notifications.id, items.map((i) => i.id)));
      if (ok) sent++;
    }
  }
  return sent;
}

/** The module's jobs. */
export function messagingJobs(deps: MessagingDeps): JobDefinition[] {
  return [
    handle(notifyPeople, async (data) => {
      const rows = await insertNotifications(deps, data);
      await deliverNotifications(deps, data.churchId, rows.map((r) => r.id));
    }),
    defineJob({
      name: 'messaging.deliverNotifications',
      schema: z.object({ churchId: z.uuid(), ids: z.array(z.uuid()).max(5000) }),
      attempts: 3,
      backoffMs: 2000,
      handler: (data) => deliverNotifications(deps, data.churchId, data.ids),
    }),
    defineJob({
      name: 'messaging.messageNotifications',
      schema: z.object({ churchId: z.uuid(), conversationId: z.uuid(), messageIds: z.array(z.uuid()).max(5000) }),
      attempts: 5,
      backoffMs: 2000,
      handler: (data) => notifyOfMessages(deps, data.churchId, data.conversationId, data.messageIds),
    }),
    defineJob({
      name: 'messaging.emailDigest',
      schema: z.object({}).passthrough(),
      attempts: 2,
      backoffMs: 60_000,
      repeat: { cron: deps.config.DIGEST_CRON },
      handler: async () => {
        await runDigest(deps);
      },
    }),
    defineJob({
      name: 'messaging.sendSms',
      schema: z.object({ deliveryLogId: z.uuid() }),
      attempts: SMS_ATTEMPTS,
      backoffMs: 1000,
      handler: (data, ctx) => sendQueuedSms(deps, data.deliveryLogId, ctx.attempt),
    }),
    handle(smsWebhook, async ({ webhookEventId }) => {
      await processWebhookEvent(deps.db, webhookEventId, async (event, tx) => {
        const p = event.payload as Record<string, string>;
        if (event.type === 'status') {
          const status = (p.MessageStatus ?? p.SmsStatus ?? '').toLowerCase();
          const [log] = await tx.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, event.churchId), eq(deliveryLogs.providerMessageId, p.MessageSid ?? '')));
          if (!log) return 'ignored: unknown message';
          await tx
            .update(deliveryLogs)
            .set({ status, error: p.ErrorCode ? `error ${p.ErrorCode}` : log.error, updatedAt: new Date() })
            .where(eq(deliveryLogs.id, log.id));
          if (log.sentTextId && FAILED_STATUSES.has(status) && !FAILED_STATUSES.has(log.status) && log.status !== 'failed') {
            await tx
              .update(sentTexts)
              .set({ successCount: sql`greatest(${sentTexts.successCount} - 1, 0)`, failCount: sql`${sentTexts.failCount} + 1` })
              .where(eq(sentTexts.id, log.sentTextId));
          }
          return `status ${status}`;
        }
        const found = keywordOf(p.Body ?? '');
        if (!found) return 'ignored: no keyword';
        const phone = p.From ?? '';
        const personIds = found.action === 'help' ? [] : await optOut(deps, event.churchId, phone, found.action === 'optOut');
        await tx.insert(consentLogs).values({
          id: randomUUID(),
          churchId: event.churchId,
          phone,
          keyword: found.keyword,
          action: found.action,
          personIds,
          providerMessageId: p.MessageSid ?? null,
        });
        return `${found.action} ${personIds.length}`;
      });
    }),
  ];
}
