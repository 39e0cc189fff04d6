import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { badRequest, providerMessage } from '@church/common';
import type { MessagingDeps } from '../app';
import { consentLogs, deliveryLogs, sentTexts, textingProviders } from '../db/schema';
import type { SmsAccount } from '../providers/sms';
import { SmsError } from '../providers/sms';
import { contacts, e164, normalizePhone } from './people';

export type ProviderRow = typeof textingProviders.$inferSelect;

/** The church's enabled provider (the first saved), its secret opened; null when it has none. */
export async function activeAccount(deps: MessagingDeps, churchId: string, providerId?: string | null): Promise<(SmsAccount & { row: ProviderRow }) | null> {
  const where = providerId
    ? and(eq(textingProviders.churchId, churchId), eq(textingProviders.id, providerId))
    : and(eq(textingProviders.churchId, churchId), eq(textingProviders.enabled, true));
  const [row] = await deps.db.select().from(textingProviders).where(where).orderBy(asc(textingProviders.id)).limit(1);
  if (!row) return null;
  let secret = '';
  try {
    secret = row.apiSecret ? deps.secrets.decrypt(row.apiSecret) : '';
  } catch {
    secret = '';
  }
  return { id: row.id, provider: row.provider, apiKey: row.apiKey ?? '', apiSecret: secret, fromNumber: row.fromNumber ?? '', row };
}

export interface GroupTextResult {
  totalMembers: number;
  recipientCount: number;
  successCount: number;
  failCount: number;
  optedOutCount: number;
  noPhoneCount: number;
}

export interface Recipient {
  id: string;
  mobilePhone: string | null;
  optedOut: boolean;
}

/** Splits people into eligible (a phone, not opted out), opted out and without a phone; one text per number. */
export function classify<T extends Recipient>(people: T[]) {
  const eligible: T[] = [];
  let optedOut = 0;
  let noPhone = 0;
  const numbers = new Set<string>();
  for (const p of people) {
    if (p.optedOut) optedOut++;
    else if (!p.mobilePhone || normalizePhone(p.mobilePhone).length < 8) noPhone++;
    else {
      const n = normalizePhone(p.mobilePhone);
      if (numbers.has(n)) continue;
      numbers.add(n);
      eligible.push(p);
    }
  }
  return { eligible, optedOut, noPhone };
}

/** The group's recipient preview. */
export async function previewGroup(deps: MessagingDeps, churchId: string, groupId: string) {
  const members = await contacts(deps, churchId, { groupId });
  const { eligible, optedOut, noPhone } = classify(members);
  return { totalMembers: members.length, eligibleCount: eligible.length, optedOutCount: optedOut, noPhoneCount: noPhone };
}

/**
 * Records a sent text with one queued delivery log per recipient (unique per sent text and person, so no one
 * is texted twice), hands each to the `messaging.sendSms` job, and waits up to `waitMs` for the jobs to finish.
 */
export async function queueTexts(
  deps: MessagingDeps,
  churchId: string,
  input: { groupId?: string | null; recipientPersonId?: string | null; message: string; senderPersonId: string | null; totalMembers: number; optedOut: number; noPhone: number },
  recipients: Array<{ personId: string | null; phone: string }>,
  waitMs = 10_000,
): Promise<GroupTextResult & { sentTextId: string }> {
  const account = await activeAccount(deps, churchId);
  if (!account && deps.config.NODE_ENV === 'production') throw badRequest('providers', 'No texting provider is configured for this church: save one through POST /messaging/texting/providers');
  const sentTextId = randomUUID();
  const logIds: string[] = [];
  await deps.db.transaction(async (tx) => {
    await tx.insert(sentTexts).values({
      id: sentTextId,
      churchId,
      groupId: input.groupId ?? null,
      recipientPersonId: input.recipientPersonId ?? null,
      message: input.message,
      senderPersonId: input.senderPersonId,
      providerId: account?.id ?? null,
      totalMembers: input.totalMembers,
      recipientCount: recipients.length,
      optedOutCount: input.optedOut,
      noPhoneCount: input.noPhone,
    });
    for (const r of recipients) {
      const id = randomUUID();
      logIds.push(id);
      await tx.insert(deliveryLogs).values({
        id,
        churchId,
        personId: r.personId,
        channel: 'sms',
        recipient: e164(r.phone),
        provider: account?.provider ?? 'outbox',
        status: 'queued',
        sentTextId,
        contentType: 'sentText',
        contentId: sentTextId,
      });
    }
  });
  for (const id of logIds) await deps.queue.enqueue('messaging.sendSms', { deliveryLogId: id }, { jobId: `sms-${id}` });
  const deadline = Date.now() + waitMs;
  let row = await sentTextRow(deps, churchId, sentTextId);
  while (row.successCount + row.failCount < row.recipientCount && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    row = await sentTextRow(deps, churchId, sentTextId);
  }
  return {
    sentTextId,
    totalMembers: row.totalMembers,
    recipientCount: row.recipientCount,
    successCount: row.successCount,
    failCount: row.failCount,
    optedOutCount: row.optedOutCount,
    noPhoneCount: row.noPhoneCount,
  };
}

async function sentTextRow(deps: MessagingDeps, churchId: string, id: string) {
  const [row] = await deps.db.select().from(sentTexts).where(and(eq(sentTexts.churchId, churchId), eq(sentTexts.id, id)));
  return row!;
}

/** Per-provider pacing of this process: at most SMS_RATE_PER_SECOND sends per account. */
const nextSlot = new Map<string, number>();
async function throttle(key: string, perSecond: number) {
  const gap = 1000 / perSecond;
  const now = Date.now();
  const slot = Math.max(now, nextSlot.get(key) ?? 0);
  nextSlot.set(key, slot + gap);
  if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
}

/**
 * Whether the latest consent keyword from this number since `since` (in the church) opted it out. Consent logs keep
 * the number as the provider sent it (E.164), as delivery logs keep recipients.
 */
async function optedOutSince(deps: MessagingDeps, churchId: string, phone: string, since: Date): Promise<boolean> {
  const [latest] = await deps.db
    .select({ action: consentLogs.action })
    .from(consentLogs)
    .where(and(eq(consentLogs.churchId, churchId), gte(consentLogs.receivedAt, since), inArray(consentLogs.phone, [...new Set([phone, e164(phone)])]), inArray(consentLogs.action, ['optOut', 'optIn'])))
    .orderBy(desc(consentLogs.receivedAt))
    .limit(1);
  return latest?.action === 'optOut';
}

export const SMS_ATTEMPTS = 4;

/**
 * The `messaging.sendSms` job: claims the queued log (a log already sent or being sent is left alone), sends
 * through the church's provider (paced), and records the outcome; transient failures go back to the queue.
 */
export async function sendQueuedSms(deps: MessagingDeps, deliveryLogId: string, attempt: number): Promise<void> {
  const [log] = await deps.db
    .update(deliveryLogs)
    .set({ status: 'sending', updatedAt: new Date() })
    .where(and(eq(deliveryLogs.id, deliveryLogId), eq(deliveryLogs.status, 'queued')))
    .returning();
  if (!log) return;
  const [text] = log.sentTextId ? await deps.db.select().from(sentTexts).where(eq(sentTexts.id, log.sentTextId)) : [];
  if (!text) return;
  const account = text.providerId ? await activeAccount(deps, log.churchId, text.providerId) : null;
  await throttle(account?.id ?? 'outbox', deps.config.SMS_RATE_PER_SECOND);
  // A STOP received since the text was queued (a big group's tail waits on the pace) wins: no text, counted opted out.
  if (await optedOutSince(deps, log.churchId, log.recipient ?? '', log.attemptedAt)) {
    await deps.db.transaction(async (tx) => {
      await tx.update(deliveryLogs).set({ status: 'optedOut', error: 'opted out after the text was queued', updatedAt: new Date() }).where(eq(deliveryLogs.id, log.id));
      await tx
        .update(sentTexts)
        .set({ recipientCount: sql`greatest(${sentTexts.recipientCount} - 1, 0)`, optedOutCount: sql`${sentTexts.optedOutCount} + 1` })
        .where(eq(sentTexts.id, text.id));
    });
    return;
  }
  const callback = account ? `${deps.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/messaging/texting/webhooks/${account.id}/status` : undefined;
  try {
    const sent = await deps.providers.sms.send(account, log.recipient ?? '', text.message, callback);
    await deps.db.transaction(async (tx) => {
      await tx
        .update(deliveryLogs)
        .set({ status: 'sent', provider: sent.provider, providerMessageId: sent.providerMessageId, error: null, updatedAt: new Date() })
        .where(eq(deliveryLogs.id, log.id));
      await tx.update(sentTexts).set({ successCount: sql`${sentTexts.successCount} + 1` }).where(eq(sentTexts.id, text.id));
    });
  } catch (err) {
    const transient = err instanceof SmsError && err.transient;
    if (transient && attempt < SMS_ATTEMPTS) {
      await deps.db.update(deliveryLogs).set({ status: 'queued', error: providerMessage(err), updatedAt: new Date() }).where(eq(deliveryLogs.id, log.id));
      throw err;
    }
    await deps.db.transaction(async (tx) => {
      await tx.update(deliveryLogs).set({ status: 'failed', error: providerMessage(err), updatedAt: new Date() }).where(eq(deliveryLogs.id, log.id));
      await tx.update(sentTexts).set({ failCount: sql`${sentTexts.failCount} + 1` }).where(eq(sentTexts.id, text.id));
    });
  }
}
