import { createHash, randomUUID } from 'node:crypto';
import { escapeHtml, providerMessage, recordEffect, validationFailed, type EmailMessage, type JobContext, type Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { deliverNotifications as deliveryJob, quietPushes, realtimePush, sendEmail, type DeliveryOptions } from '../jobs/contracts';
import { markServed, servedOf } from '../repos/job-deliveries';
import { onceInTx } from './once';
import { writeLogs } from '../repos/delivery-logs';
import { forgetPushToken, pushTargets } from '../repos/devices';
import { removeSubscription, subscriptionsOf } from '../repos/web-push';
import { insertNotifications, markEmailed, notificationsByIds, preferencesRows, unreadCounts, type NewNotification, type NotificationRow } from '../repos/notifications';
import { contacts } from '../clients/membership';
import { quietFor } from './quiet-hours';
import { endpointOrigin, webPushPayload } from './web-push';

export type { NotificationRow } from '../repos/notifications';

/** One notification's text and subject, for several people. */
export type NotifyInput = Omit<NewNotification, 'personId'> & { personIds: string[] };

/** One notification per person, never to the person who caused it. */
export function notificationsFor({ personIds, ...input }: NotifyInput): NewNotification[] {
  const people = [...new Set(personIds)].filter((p) => p !== input.triggeredByPersonId);
  return people.map((personId) => ({ ...input, personId }));
}

/**
 * Writes notifications and hands their delivery (socket, push, email) to the queue in the same transaction (`tx`,
 * or one of its own): the delivery exists exactly when the notifications do. `options` are the sender's say in how
 * they go out (a reminder's channels, a push's title).
 */
export async function notifyRows(deps: Pick<MessagingDeps, 'db' | 'queue'>, churchId: string, rows: NewNotification[], tx?: Tx, options?: DeliveryOptions): Promise<NotificationRow[]> {
  if (!rows.length) return [];
  const run = async (t: Tx) => {
    const saved = await insertNotifications(t, rows);
    await deps.queue.enqueue(deliveryJob, { churchId, ids: saved.map((r) => r.id), ...(options ? { options } : {}) }, { tx: t });
    return saved;
  };
  return tx ? run(tx) : deps.db.transaction(run);
}

/** Which of these ids are live people of the church, as membership answers them (`contacts`). */
export async function peopleOfChurch(deps: Pick<MessagingDeps, 'internal'>, churchId: string, ids: string[]): Promise<Set<string>> {
  const unique = [...new Set(ids)];
  return new Set(unique.length ? (await contacts(deps, churchId, { ids: unique })).map((p) => p.id) : []);
}

/**
 * Who a member may notify: people of the church only, as membership knows them (asked before any transaction is
 * opened), and the caller. Every other id is a 400 naming its place (`paramOf(i)`: `peopleIds[2]`).
 */
export async function assertPeopleOfChurch(
  deps: Pick<MessagingDeps, 'internal'>,
  churchId: string,
  ids: Array<string | null>,
  paramOf: (i: number) => string,
  caller?: string | null,
): Promise<void> {
  // the caller (a person of the church by their token) need not be asked about; a null is no one to check
  const asked = ids.filter((id): id is string => !!id && id !== caller);
  const found = await peopleOfChurch(deps, churchId, asked);
  const unknown = ids.flatMap((id, i) => (!id || id === caller || found.has(id) ? [] : [{ msg: 'No person of this church has this id', param: paramOf(i), location: 'body' }]));
  if (unknown.length) throw validationFailed(unknown);
}

/** `notifyRows` for one message to several people. */
export function notify(deps: Pick<MessagingDeps, 'db' | 'queue'>, input: NotifyInput, tx?: Tx, options?: DeliveryOptions): Promise<NotificationRow[]> {
  return notifyRows(deps, input.churchId, notificationsFor(input), tx, options);
}

export interface Preferences {
  allowPush: boolean;
  emailFrequency: string;
  masterMute: boolean;
  quietHoursStart: string | null;
  quietHoursEnd: string | null;
  timeZone: string | null;
}
export const DEFAULT_PREFERENCES: Preferences = { allowPush: true, emailFrequency: 'daily', masterMute: false, quietHoursStart: null, quietHoursEnd: null, timeZone: null };

/** Each person's preferences, the defaults for those who saved none. */
export async function preferencesOf(deps: Pick<MessagingDeps, 'db'>, churchId: string, personIds: string[]): Promise<Map<string, Preferences>> {
  const out = new Map<string, Preferences>();
  for (const id of personIds) out.set(id, DEFAULT_PREFERENCES);
  for (const { allowPush, emailFrequency, masterMute, quietHoursStart, quietHoursEnd, timeZone, personId } of await preferencesRows(deps.db, churchId, personIds)) {
    out.set(personId, { allowPush, emailFrequency, masterMute, quietHoursStart, quietHoursEnd, timeZone });
  }
  return out;
}

/** Pushes of notifications to a person's devices, one each, logged. */
export async function pushNotifications(deps: MessagingDeps, churchId: string, personId: string, items: NotificationRow[], title = 'New notification'): Promise<number> {
  let sent = 0;
  for (const n of items) {
    const r = await pushToPerson(deps, churchId, personId, {
      title,
      body: n.message,
      data: { notificationId: n.id, ...(n.contentType ? { contentType: n.contentType } : {}), ...(n.contentId ? { contentId: n.contentId } : {}), ...(n.link ? { link: n.link } : {}) },
      contentType: n.contentType,
      contentId: n.contentId,
    });
    sent += r.sent;
  }
  return sent;
}

/**
 * Pushes to a person's devices and browsers (Web Push subscriptions), writing a delivery log for each; a token the
 * provider reports unregistered is removed from its device, a subscription the push service reports gone (404/410)
 * is removed. Answers how many devices and browsers there were and how many pushes were accepted.
 */
export async function pushToPerson(
  deps: MessagingDeps,
  churchId: string,
  personId: string,
  msg: { title: string; body: string; data?: Record<string, string>; contentType?: string | null; contentId?: string | null },
): Promise<{ devices: number; sent: number }> {
  const [targets, browsers] = await Promise.all([pushTargets(deps.db, churchId, personId), subscriptionsOf(deps.db, churchId, personId)]);
  if (!targets.length && !browsers.length) return { devices: 0, sent: 0 };
  const payload = browsers.length ? webPushPayload(msg) : '';
  const [deviceResults, browserResults] = await Promise.all([
    targets.length ? deps.providers.push.send(targets.map((t) => ({ token: t.pushToken, title: msg.title, body: msg.body, data: msg.data }))) : [],
    Promise.all(browsers.map((b) => deps.providers.webPush.send({ endpoint: b.endpoint, keys: { p256dh: b.p256dh, auth: b.auth } }, payload))),
  ]);
  const outcomes = [
    ...deviceResults.map((result, i) => ({ result, recipient: targets[i]!.pushToken, forget: () => forgetPushToken(deps.db, targets[i]!.id) })),
    ...browserResults.map((result, i) => ({ result, recipient: endpointOrigin(browsers[i]!.endpoint), forget: () => removeSubscription(deps.db, browsers[i]!.id) })),
  ];
  let sent = 0;
  for (const o of outcomes) {
    if (o.result.status === 'sent') sent++;
    if (o.result.status === 'unregistered') await o.forget();
  }
  await writeLogs(
    deps.db,
    outcomes.map(({ result: r, recipient }) => ({
      churchId,
      personId,
      contentType: msg.contentType,
      contentId: msg.contentId,
      channel: 'push' as const,
      recipient,
      provider: r.provider,
      status: r.status,
      providerMessageId: r.providerMessageId,
      error: r.error,
    })),
  );
  return { devices: outcomes.length, sent };
}

/**
 * Hands a notification email to the mail job (delivery retries over about an hour) in `tx`, with its delivery log
 * (`queued`), or logs it `skipped` when the person has no address. Answers whether it was queued.
 */
export async function queueEmail(
  deps: Pick<MessagingDeps, 'queue'>,
  tx: Tx,
  churchId: string,
  person: { id: string; email: string | null },
  mail: { subject: string; html: string; contentType?: string | null; contentId?: string | null },
): Promise<boolean> {
  const log = { churchId, personId: person.id, channel: 'email' as const, contentType: mail.contentType, contentId: mail.contentId };
  if (!person.email) {
    await writeLogs(tx, [{ ...log, status: 'skipped', error: 'no email address' }]);
    return false;
  }
  await handMail(deps, tx, { to: person.email, subject: mail.subject, html: mail.html });
  await writeLogs(tx, [{ ...log, recipient: person.email, provider: 'mail queue', status: 'queued' }]);
  return true;
}

/** Hands one mail to the mail job (`messaging.sendEmail`, its own key) in `tx`. */
export function handMail(deps: Pick<MessagingDeps, 'queue'>, tx: Tx, message: EmailMessage): Promise<void> {
  return deps.queue.enqueue(sendEmail, { key: randomUUID(), message }, { tx });
}

/**
 * The mail job: sends the mail unless job `key` sent it already (a second run of the job), and records that it did
 * (again and again while the database is away: a failed record must not fail the job into a second send). Only a
 * crash between the provider's acceptance and the record sends it again: the provider is outside the transaction.
 */
export async function sendMailOnce(deps: Pick<MessagingDeps, 'db' | 'mailer'>, key: string, message: EmailMessage, log?: JobContext['log']): Promise<void> {
  // the address's digest: the record needs no address of a person (nor its erasure)
  const recipient = `email:${createHash('sha256').update(message.to.trim().toLowerCase()).digest('base64url')}`;
  if ((await servedOf(deps.db, key, [recipient])).size) return;
  await deps.mailer.send(message);
  await recordEffect(() => markServed(deps.db, key, [recipient]), { what: `mail of job ${key}`, log });
}

export function notificationEmail(appUrl: string, items: Array<{ message: string; link: string | null }>): string {
  const list = items
    .map((n) => {
      const href = n.link ? (/^https?:/i.test(n.link) ? n.link : `${appUrl.replace(/\/$/, '')}/${n.link.replace(/^\//, '')}`) : null;
      return `<p>${escapeHtml(n.message)}${href ? `<br><a href="${escapeHtml(href)}">${escapeHtml(href)}</a>` : ''}</p>`;
    })
    .join('\n');
  return `<p>You have new notifications:</p>\n${list}\n<p><a href="${escapeHtml(appUrl)}">Open the app</a></p>`;
}

/**
 * Escalation of fresh notifications by each person's preferences: the socket at once (with the unread counts), push
 * to their devices and browsers when allowed (during their quiet hours, when those end, if still unread), and email at once when
 * they chose `individual`; `daily` ones wait for the digest. Muted people get neither push nor email: their
 * notifications are in the app. The sender's `options` narrow this: no push, mail at once (a reminder: unless the
 * person chose never), or no mail at all (nor in the digest). `key` is the job's identity (`domain/once.ts`).
 */
export async function deliverNotifications(deps: MessagingDeps, churchId: string, ids: string[], options: DeliveryOptions = {}, key = `deliver:${randomUUID()}`): Promise<void> {
  const rows = await notificationsByIds(deps.db, churchId, ids);
  const byPerson = new Map<string, NotificationRow[]>();
  for (const r of rows) byPerson.set(r.personId, [...(byPerson.get(r.personId) ?? []), r]);
  const prefs = await preferencesOf(deps, churchId, [...byPerson.keys()]);
  // A run of the same job again (`key`) skips what it did for each person: their socket push, push and email.
  const served = await servedOf(deps.db, key, [...byPerson.keys()].flatMap((p) => [`socket:${p}`, `push:${p}`, `email:${p}`]));
  const emailNow: Array<{ personId: string; items: NotificationRow[] }> = [];
  for (const [personId, items] of byPerson) {
    if (!served.has(`socket:${personId}`)) {
      const counts = await unreadCounts(deps.db, churchId, personId);
      const data = items.map((notification) => ({ notification, unreadCount: counts.count, notificationCount: counts.notificationCount, pmCount: counts.pmCount }));
      await onceInTx(deps, key, `socket:${personId}`, (tx) => deps.queue.enqueue(realtimePush, { churchId, personId, conversationId: '', action: 'notification', data }, { tx }));
    }
    const pref = prefs.get(personId) ?? DEFAULT_PREFERENCES;
    if (pref.masterMute) continue;
    if (pref.allowPush && options.push !== false && !served.has(`push:${personId}`)) {
      const quiet = quietFor(new Date(), pref);
      const held = { churchId, personId, ids: items.map((n) => n.id), ...(options.title ? { title: options.title } : {}) };
      if (quiet) await onceInTx(deps, key, `push:${personId}`, (tx) => deps.queue.enqueue(quietPushes, held, { delayMs: quiet, tx }));
      else {
        await pushNotifications(deps, churchId, personId, items, options.title);
        await markServed(deps.db, key, [`push:${personId}`]);
      }
    }
    const mail = options.email === 'now' ? pref.emailFrequency !== 'never' : options.email !== 'never' && pref.emailFrequency === 'individual';
    if (mail && !served.has(`email:${personId}`)) emailNow.push({ personId, items });
  }
  // kept out of the digest: the sender wanted no mail
  if (options.email === 'never') await markEmailed(deps.db, rows.map((r) => r.id));
  if (!emailNow.length) return;
  let found: Array<{ id: string; email: string | null }> = [];
  try {
    found = await contacts(deps, churchId, { ids: emailNow.map((e) => e.personId) });
  } catch (err) {
    await writeLogs(deps.db, emailNow.map((e) => ({ churchId, personId: e.personId, channel: 'email' as const, status: 'failed', error: `contacts: ${providerMessage(err)}` })));
    return;
  }
  const emails = new Map(found.map((c) => [c.id, c.email]));
  for (const e of emailNow) {
    const first = e.items[0]!;
    // the mail, its log and the record that this job mailed the person commit together
    await onceInTx(deps, key, `email:${e.personId}`, async (tx) => {
      const queued = await queueEmail(deps, tx, churchId, { id: e.personId, email: emails.get(e.personId) ?? null }, {
        subject: e.items.length === 1 ? first.message.slice(0, 120) : `${e.items.length} new notifications`,
        html: notificationEmail(deps.config.APP_URL, e.items),
        contentType: first.contentType,
        contentId: first.contentId,
      });
      if (queued) await markEmailed(tx, e.items.map((i) => i.id));
    });
  }
}
