import { emailOf, handle, notifyPeople, pendingWebhookEvent, processWebhookEvent, providerMessage, templateEmail, type JobDefinition } from '@church/common';
import type { MessagingDeps } from '../deps';
import { contacts, optOut } from '../clients/membership';
import { DOORBELL_ACTIONS, doorbellKey } from '../domain/doorbell';
import { notifyOfMessages } from '../domain/messages';
import { sendTemplateEmail } from '../domain/group-email';
import { DEFAULT_PREFERENCES, deliverNotifications, notificationEmail, notify, preferencesOf, pushNotifications, queueEmail, sendMailOnce } from '../domain/notify';
import { SERVED_KEPT_MS, jobKeyOf, onceInTx } from '../domain/once';
import { markServed, purgeServed, servedOf } from '../repos/job-deliveries';
import { sendQueuedSms } from '../domain/texting';
import { writeLogs } from '../repos/delivery-logs';
import { markEmailed, notificationsByIds, unreadNotEmailed, type NotificationRow } from '../repos/notifications';
import { applyStatus, insertConsentLog, logOfProviderMessage } from '../repos/texting';
import { expandDefinition, refreshAll, scanDue, sendDue } from '../domain/reminder-schedule';
import {
  deliverNotifications as deliverJob,
  emailDigest,
  expandReminders,
  messageNotifications,
  quietPushes,
  realtimePush,
  reminderRefresh,
  sendEmail,
  reminderScan,
  sendReminder,
  sendSms,
  smsWebhook,
  type RealtimePush,
} from './contracts';

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
  const rows = await unreadNotEmailed(deps.db, 50_000);
  const byChurch = new Map<string, Map<string, NotificationRow[]>>();
  for (const r of rows) {
    const church = byChurch.get(r.churchId) ?? new Map<string, NotificationRow[]>();
    church.set(r.personId, [...(church.get(r.personId) ?? []), r]);
    byChurch.set(r.churchId, church);
  }
  let queued = 0;
  for (const [churchId, people] of byChurch) {
    const prefs = await preferencesOf(deps, churchId, [...people.keys()]);
    // muted people are left for a digest after they unmute
    const daily = [...people.keys()].filter((p) => {
      const pref = prefs.get(p) ?? DEFAULT_PREFERENCES;
      return pref.emailFrequency === 'daily' && !pref.masterMute;
    });
    if (!daily.length) continue;
    const emails = new Map<string, string | null>();
    try {
      for (let i = 0; i < daily.length; i += 5000) {
        for (const c of await contacts(deps, churchId, { ids: daily.slice(i, i + 5000) })) emails.set(c.id, c.email);
      }
    } catch (err) {
      await writeLogs(deps.db, daily.map((personId) => ({ churchId, personId, channel: 'email' as const, status: 'failed', error: `contacts: ${providerMessage(err)}`, contentType: 'digest' })));
      continue;
    }
    for (const personId of daily) {
      const items = people.get(personId)!;
      // The mail and the mark commit together; marked either way, so a person without an address is not retried daily.
      const ok = await deps.db.transaction(async (tx) => {
        const sent = await queueEmail(deps, tx, churchId, { id: personId, email: emails.get(personId) ?? null }, {
          subject: `You have ${items.length} unread notification${items.length === 1 ? '' : 's'}`,
          html: notificationEmail(deps.config.APP_URL, items),
          contentType: 'digest',
        });
        await markEmailed(tx, items.map((i) => i.id));
        return sent;
      });
      if (ok) queued++;
    }
  }
  return queued;
}

/**
 * How far a push has got, by its payload: the runner hands a job's retries the same payload, so a retry after a
 * partial failure (Redis went away mid-way) goes on from the first item not yet pushed.
 */
const pushed = new WeakMap<object, number>();

/**
 * Runs a real-time push: each item in order, to the conversation's sockets or the person's; a person's private
 * messages and notifications also ring their doorbell (`domain/doorbell.ts`), once.
 */
export async function runPush(deps: Pick<MessagingDeps, 'providers'>, push: RealtimePush): Promise<void> {
  const realtime = deps.providers.realtime;
  for (let i = pushed.get(push) ?? 0; i < push.data.length; i++) {
    const data = push.data[i];
    if (push.personId) await realtime.publishToPerson(push.churchId, push.personId, { churchId: push.churchId, conversationId: push.conversationId ?? '', action: push.action, data });
    else await realtime.publish(push.churchId, push.conversationId!, { action: push.action, data });
    pushed.set(push, i + 1);
  }
  if (push.personId && DOORBELL_ACTIONS.has(push.action)) await realtime.publish(push.churchId, doorbellKey(push.personId), { action: push.action, data: {} });
}

/** The module's job handlers, one per owned contract. */
export function messagingJobs(deps: MessagingDeps): JobDefinition[] {
  const digest = handle(emailDigest, async () => {
    await runDigest(deps);
    // what delivering jobs served two days ago and more: no outbox hands a job over again after that long
    await purgeServed(deps.db, new Date(Date.now() - SERVED_KEPT_MS));
  });
  // schedules from config, set where the handlers are registered
  const scan = handle(reminderScan, async () => {
    await scanDue(deps);
  });
  const refresh = handle(reminderRefresh, async () => {
    await refreshAll(deps);
  });
  return [
    // Every job whose effect leaves the database does it once per job and recipient, however often the job runs
    // (`domain/once.ts`): a retry, or the outbox handing a finished job over again.
    // In one transaction with the delivery and the record of this job: never the notifications twice.
    handle(notifyPeople, async (data, ctx) => {
      await onceInTx(deps, jobKeyOf(notifyPeople.name, ctx), 'notify', (tx) => notify(deps, data, tx));
    }),
    handle(deliverJob, (data, ctx) => deliverNotifications(deps, data.churchId, data.ids, data.options, jobKeyOf(deliverJob.name, ctx))),
    handle(quietPushes, async (data, ctx) => {
      const { churchId, personId, ids, title } = data;
      const key = jobKeyOf(quietPushes.name, ctx);
      if ((await servedOf(deps.db, key, [`push:${personId}`])).size) return;
      // read meanwhile: no push
      const unread = (await notificationsByIds(deps.db, churchId, ids)).filter((n) => n.isNew && n.personId === personId);
      await pushNotifications(deps, churchId, personId, unread, title);
      await markServed(deps.db, key, [`push:${personId}`]);
    }),
    handle(messageNotifications, (data, ctx) => notifyOfMessages(deps, data.churchId, data.conversationId, data.messageIds, jobKeyOf(messageNotifications.name, ctx))),
    handle(sendEmail, (data, ctx) => sendMailOnce(deps, jobKeyOf(sendEmail.name, ctx), data.message, ctx.log)),
    // mails handed over before `messaging.sendEmail` existed
    handle(emailOf('messaging'), (message, ctx) => sendMailOnce(deps, jobKeyOf('messaging.email', ctx), message, ctx.log)),
    { ...digest, repeat: { cron: deps.config.DIGEST_CRON } } as typeof digest,
    { ...scan, repeat: { cron: deps.config.REMINDER_SCAN_CRON } } as typeof scan,
    { ...refresh, repeat: { cron: deps.config.REMINDER_REFRESH_CRON } } as typeof refresh,
    handle(expandReminders, async ({ churchId, definitionId }) => {
      await expandDefinition(deps, churchId, definitionId);
    }),
    handle(sendReminder, async ({ churchId, occurrenceId }) => {
      await sendDue(deps, churchId, occurrenceId);
    }),
    handle(sendSms, (data, ctx) => sendQueuedSms(deps, data.deliveryLogId, ctx.attempt)),
    handle(templateEmail, async (data, ctx) => void (await sendTemplateEmail(deps, data, jobKeyOf(templateEmail.name, ctx)))),
    handle(realtimePush, (data) => runPush(deps, data)),
    handle(smsWebhook, async ({ webhookEventId }) => {
      // A STOP or START changes the people in membership before the event's transaction opens (never inside it);
      // a second run sets the same flag again, which changes nothing.
      const pending = await pendingWebhookEvent(deps.db, webhookEventId);
      if (!pending) return;
      const inbound = pending.payload as Record<string, string>;
      const keyword = pending.type === 'inbound' ? keywordOf(inbound.Body ?? '') : undefined;
      const changed = keyword && keyword.action !== 'help' ? await optOut(deps, pending.churchId, inbound.From ?? '', keyword.action === 'optOut') : [];
      await processWebhookEvent(deps.db, webhookEventId, async (event, tx) => {
        const p = event.payload as Record<string, string>;
        if (event.type === 'status') {
          const status = (p.MessageStatus ?? p.SmsStatus ?? '').toLowerCase();
          const log = await logOfProviderMessage(tx, event.churchId, p.MessageSid ?? '');
          if (!log) return 'ignored: unknown message';
          const failedAfterSuccess = FAILED_STATUSES.has(status) && !FAILED_STATUSES.has(log.status);
          await applyStatus(tx, log, status, p.ErrorCode ? `error ${p.ErrorCode}` : null, failedAfterSuccess);
          return `status ${status}`;
        }
        const found = keywordOf(p.Body ?? '');
        if (!found) return 'ignored: no keyword';
        const phone = p.From ?? '';
        const personIds = found.action === 'help' ? [] : changed;
        await insertConsentLog(tx, { churchId: event.churchId, phone, keyword: found.keyword, action: found.action, personIds, providerMessageId: p.MessageSid ?? null });
        return `${found.action} ${personIds.length}`;
      });
    }),
  ];
}
