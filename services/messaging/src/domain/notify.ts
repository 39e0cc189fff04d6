import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { escapeHtml, prepared, providerMessage } from '@church/common';
import type { MessagingDeps } from '../app';
import { deliveryLogs, devices, notificationPreferences, notifications } from '../db/schema';
import { contacts } from './people';
import { htmlToText } from './text';

export interface NotifyInput {
  churchId: string;
  personIds: string[];
  message: string;
  contentType?: string | null;
  contentId?: string | null;
  link?: string | null;
  triggeredByPersonId?: string | null;
  deliveryMethod?: string | null;
}

export type NotificationRow = typeof notifications.$inferSelect;

/** In-app notifications, one per person (never the person who caused it); answers the rows. */
export async function insertNotifications(deps: Pick<MessagingDeps, 'db'>, input: NotifyInput): Promise<NotificationRow[]> {
  const people = [...new Set(input.personIds)].filter((p) => p !== input.triggeredByPersonId);
  if (!people.length) return [];
  return deps.db
    .insert(notifications)
    .values(
      people.map((personId) => ({
        id: randomUUID(),
        churchId: input.churchId,
        personId,
        contentType: input.contentType ?? null,
        contentId: input.contentId ?? null,
        message: input.message,
        link: input.link ?? null,
        triggeredByPersonId: input.triggeredByPersonId ?? null,
        deliveryMethod: input.deliveryMethod ?? null,
      })),
    )
    .returning();
}

/** Inserts the notifications and hands their delivery (socket, push, email) to the queue. */
export async function notify(deps: MessagingDeps, input: NotifyInput): Promise<NotificationRow[]> {
  const rows = await insertNotifications(deps, input);
  if (rows.length) await deps.queue.enqueue('messaging.deliverNotifications', { churchId: input.churchId, ids: rows.map((r) => r.id) });
  return rows;
}

export interface Preferences {
  allowPush: boolean;
  emailFrequency: string;
}
export const DEFAULT_PREFERENCES: Preferences = { allowPush: true, emailFrequency: 'daily' };

export async function preferencesOf(deps: Pick<MessagingDeps, 'db'>, churchId: string, personIds: string[]): Promise<Map<string, Preferences>> {
  const rows = personIds.length
    ? await deps.db.select().from(notificationPreferences).where(and(eq(notificationPreferences.churchId, churchId), inArray(notificationPreferences.personId, personIds)))
    : [];
  const out = new Map<string, Preferences>();
  for (const id of personIds) out.set(id, DEFAULT_PREFERENCES);
  for (const r of rows) out.set(r.personId, { allowPush: r.allowPush, emailFrequency: r.emailFrequency });
  return out;
}

/**
 * A person's unread notifications, counted on the partial index of unread ones (index-only). Rendered once (the
 * badge is asked for on every page a member opens); `is_new` is written as a literal, not a bound `true`, so that
 * the prepared statement's generic plan can still prove the partial index applies.
 */
const countUnread = prepared<{ n: number }>(sql`
  select count(*)::int as n from ${notifications}
   where ${notifications.churchId} = ${sql.placeholder('churchId')} and ${notifications.personId} = ${sql.placeholder('personId')} and ${notifications.isNew}`);

export async function unreadCount(deps: Pick<MessagingDeps, 'db'>, churchId: string, personId: string): Promise<number> {
  const [row] = await countUnread(deps.db, { churchId, personId });
  return row?.n ?? 0;
}

export interface LogEntry {
  churchId: string;
  personId?: string | null;
  contentType?: string | null;
  contentId?: string | null;
  channel: 'push' | 'email' | 'sms' | 'socket';
  recipient?: string | null;
  provider?: string | null;
  status: string;
  providerMessageId?: string | null;
  error?: string | null;
  sentTextId?: string | null;
}

export async function writeLog(deps: Pick<MessagingDeps, 'db'>, entry: LogEntry) {
  const [row] = await deps.db.insert(deliveryLogs).values({ id: randomUUID(), ...entry }).returning();
  return row!;
}

/**
 * Pushes to a person's devices (push allowed by preference), writing a delivery log per device; a token the
 * provider reports unregistered is removed from its device. Answers how many pushes were accepted.
 */
export async function pushToPerson(
  deps: MessagingDeps,
  churchId: string,
  personId: string,
  msg: { title: string; body: string; data?: Record<string, string>; contentType?: string | null; contentId?: string | null },
): Promise<{ devices: number; sent: number }> {
  const targets = await deps.db
    .select({ id: devices.id, pushToken: devices.pushToken })
    .from(devices)
    .where(and(eq(devices.churchId, churchId), eq(devices.personId, personId), isNotNull(devices.pushToken)));
  const withToken = targets.filter((t) => t.pushToken);
  if (!withToken.length) return { devices: 0, sent: 0 };
  const results = await deps.providers.push.send(withToken.map((t) => ({ token: t.pushToken!, title: msg.title, body: msg.body, data: msg.data })));
  let sent = 0;
  for (let i = 0; i < withToken.length; i++) {
    const r = results[i]!;
    if (r.status === 'sent') sent++;
    if (r.status === 'unregistered') await deps.db.update(devices).set({ pushToken: null }).where(eq(devices.id, withToken[i]!.id));
    await writeLog(deps, {
      churchId,
      personId,
      contentType: msg.contentType,
      contentId: msg.contentId,
      channel: 'push',
      recipient: withToken[i]!.pushToken,
      provider: r.provider,
      status: r.status,
      providerMessageId: r.providerMessageId,
      error: r.error,
    });
  }
  return { devices: withToken.length, sent };
}

/** A notification email with its plain-text part; logged. */
export async function emailPerson(
  deps: MessagingDeps,
  churchId: string,
  person: { id: string; email: string | null },
  mail: { subject: string; html: string; contentType?: string | null; contentId?: string | null },
): Promise<boolean> {
  if (!person.email) {
    await writeLog(deps, { churchId, personId: person.id, channel: 'email', status: 'skipped', error: 'no email address', contentType: mail.contentType, contentId: mail.contentId });
    return false;
  }
  try {
    await deps.mailer.send({ to: person.email, subject: mail.subject, html: mail.html, text: htmlToText(mail.html) });
    await writeLog(deps, { churchId, personId: person.id, channel: 'email', recipient: person.email, provider: deps.mailer.kind, status: 'sent', contentType: mail.contentType, contentId: mail.contentId });
    return true;
  } catch (err) {
    await writeLog(deps, { churchId, personId: person.id, channel: 'email', recipient: person.email, provider: deps.mailer.kind, status: 'failed', error: providerMessage(err), contentType: mail.contentType, contentId: mail.contentId });
    return false;
  }
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
 * Escalation of fresh notifications by each person's preferences: the socket at once (in-app count), push to
 * their devices when allowed, and email at once when they chose `individual` (or have no device that took the
 * push and did not choose `never`/`daily`); `daily` ones wait for the digest.
 */
export async function deliverNotifications(deps: MessagingDeps, churchId: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const rows = await deps.db.select().from(notifications).where(and(eq(notifications.churchId, churchId), inArray(notifications.id, ids)));
  const byPerson = new Map<string, NotificationRow[]>();
  for (const r of rows) byPerson.set(r.personId, [...(byPerson.get(r.personId) ?? []), r]);
  const people = [...byPerson.keys()];
  const prefs = await preferencesOf(deps, churchId, people);
  const emailNow: Array<{ personId: string; items: NotificationRow[] }> = [];
  for (const [personId, items] of byPerson) {
    const count = await unreadCount(deps, churchId, personId);
    for (const n of items) {
      await deps.providers.realtime.publishToPerson(churchId, personId, { churchId, conversationId: '', action: 'notification', data: { notification: n, unreadCount: count } });
    }
    const pref = prefs.get(personId) ?? DEFAULT_PREFERENCES;
    let pushed = 0;
    if (pref.allowPush) {
      for (const n of items) {
        const r = await pushToPerson(deps, churchId, personId, {
          title: 'New notification',
          body: n.message,
          data: { notificationId: n.id, ...(n.contentType ? { contentType: n.contentType } : {}), ...(n.contentId ? { contentId: n.contentId } : {}), ...(n.link ? { link: n.link } : {}) },
          contentType: n.contentType,
          contentId: n.contentId,
        });
        pushed += r.sent;
      }
    }
    if (pref.emailFrequency === 'individual') emailNow.push({ personId, items });
    else if (pushed === 0 && !['never', 'daily'].includes(pref.emailFrequency)) emailNow.push({ personId, items });
  }
  if (!emailNow.length) return;
  let found: Array<{ id: string; email: string | null }> = [];
  try {
    found = await contacts(deps, churchId, { ids: emailNow.map((e) => e.personId) });
  } catch (err) {
    for (const e of emailNow) await writeLog(deps, { churchId, personId: e.personId, channel: 'email', status: 'failed', error: `contacts: ${providerMessage(err)}` });
    return;
  }
  const emails = new Map(found.map((c) => [c.id, c.email]));
  for (const e of emailNow) {
    const first = e.items[0]!;
    const ok = await emailPerson(deps, churchId, { id: e.personId, email: emails.get(e.personId) ?? null }, {
      subject: e.items.length === 1 ? first.message.slice(0, 120) : `${e.items.length} new notifications`,
      html: notificationEmail(deps.config.APP_URL, e.items),
      contentType: first.contentType,
      contentId: first.contentId,
    });
    if (ok) await deps.db.update(notifications).set({ emailedAt: new Date() }).where(inArray(notifications.id, e.items.map((i) => i.id)));
  }
}
