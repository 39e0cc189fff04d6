import { randomUUID } from 'node:crypto';
import { DELIVERY_RETRIES, badRequest, providerFailed, providerMessage } from '@church/common';
import type { MessagingDeps } from '../deps';
import { contacts } from '../clients/membership';
import { sendSms } from '../jobs/contracts';
import type { SmsAccount } from '../providers/sms';
import { SMS_PROVIDERS, SmsError } from '../providers/sms';
import { claimQueuedLog, findSentText, insertSentText, latestConsent, providerRow, requeueLog, sentTextById, settleLog, type ProviderRow } from '../repos/texting';
import { e164, normalizePhone } from './phones';

export type { ProviderRow } from '../repos/texting';

/** The account of a provider row, its secret opened (an unreadable secret reads as none). */
export function accountOf(deps: Pick<MessagingDeps, 'secrets'>, row: ProviderRow): SmsAccount & { row: ProviderRow } {
  let secret = '';
  try {
    secret = row.apiSecret ? deps.secrets.decrypt(row.apiSecret) : '';
  } catch {
    secret = '';
  }
  return { id: row.id, provider: row.provider, apiKey: row.apiKey ?? '', apiSecret: secret, fromNumber: row.fromNumber ?? '', row };
}

/** The church's enabled provider (the first saved), or the one named; null when it has none. */
export async function activeAccount(deps: MessagingDeps, churchId: string, providerId?: string | null): Promise<(SmsAccount & { row: ProviderRow }) | null> {
  const row = await providerRow(deps.db, churchId, providerId);
  return row ? accountOf(deps, row) : null;
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

/**
 * The texting balance the church's provider reports (never a figure of ours); a clear 400 when there is no provider,
 * it is one that reports none, or it has no credentials; a 502 naming Twilio when it cannot say.
 */
export async function credits(deps: MessagingDeps, churchId: string) {
  const row = await providerRow(deps.db, churchId);
  if (!row) throw badRequest('provider', 'No texting provider is configured for this church: save one in the texting settings (POST /messaging/texting/providers)', 'config');
  if (!SMS_PROVIDERS.has(row.provider)) throw badRequest('provider', `${row.provider} reports no balance to this server (supported: ${[...SMS_PROVIDERS].join(', ')})`, 'config');
  const account = accountOf(deps, row);
  if (!account.apiKey || !account.apiSecret) throw badRequest('apiSecret', 'The texting provider has no credentials: save its key and secret in the texting settings', 'config');
  try {
    const { balance, currency } = await deps.providers.sms.balance(account);
    return { configured: true, supported: true, provider: row.provider, hasCredits: Number(balance) > 0, balance, currency };
  } catch (err) {
    throw providerFailed('Twilio', err instanceof SmsError ? err.message : undefined);
  }
}

/** The group's recipient preview. */
export async function previewGroup(deps: MessagingDeps, churchId: string, groupId: string) {
  const members = await contacts(deps, churchId, { groupId });
  const { eligible, optedOut, noPhone } = classify(members);
  return { totalMembers: members.length, eligibleCount: eligible.length, optedOutCount: optedOut, noPhoneCount: noPhone };
}

/**
 * Records a sent text with one queued delivery log per recipient and a `messaging.sendSms` job each, in one
 * transaction (a text is queued exactly when it is recorded), and waits up to `waitMs` for the jobs to finish.
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
  await deps.db.transaction(async (tx) => {
    const logIds = await insertSentText(
      tx,
      {
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
      },
      recipients.map((r) => ({ personId: r.personId, recipient: e164(r.phone), provider: account?.provider ?? 'outbox' })),
    );
    for (const id of logIds) await deps.queue.enqueue(sendSms, { deliveryLogId: id }, { jobId: `sms-${id}`, tx });
  });
  const deadline = Date.now() + waitMs;
  let row = (await findSentText(deps.db, churchId, sentTextId))!;
  while (row.successCount + row.failCount < row.recipientCount && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    row = (await findSentText(deps.db, churchId, sentTextId))!;
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
 * The `messaging.sendSms` job: claims the queued log (a log already sent or being sent is left alone), sends
 * through the church's provider (paced), and records the outcome; transient failures go back to the queue until
 * the job's last attempt (the delivery retries: about an hour).
 */
export async function sendQueuedSms(deps: MessagingDeps, deliveryLogId: string, attempt: number): Promise<void> {
  const log = await claimQueuedLog(deps.db, deliveryLogId);
  if (!log) return;
  const text = log.sentTextId ? await sentTextById(deps.db, log.sentTextId) : undefined;
  if (!text) return;
  const account = text.providerId ? await activeAccount(deps, log.churchId, text.providerId) : null;
  await throttle(account?.id ?? 'outbox', deps.config.SMS_RATE_PER_SECOND);
  // A STOP received since the text was queued (a big group's tail waits on the pace) wins: no text, counted opted out.
  // Consent logs keep the number as the provider sent it (E.164), as delivery logs keep recipients.
  const phone = log.recipient ?? '';
  if ((await latestConsent(deps.db, log.churchId, [...new Set([phone, e164(phone)])], log.attemptedAt)) === 'optOut') {
    await deps.db.transaction((tx) => settleLog(tx, log.id, text.id, { status: 'optedOut', error: 'opted out after the text was queued', counted: 'optedOut' }));
    return;
  }
  const callback = account ? `${deps.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/messaging/texting/webhooks/${account.id}/status` : undefined;
  try {
    const sent = await deps.providers.sms.send(account, phone, text.message, callback);
    await deps.db.transaction((tx) => settleLog(tx, log.id, text.id, { status: 'sent', provider: sent.provider, providerMessageId: sent.providerMessageId, error: null, counted: 'success' }));
  } catch (err) {
    const transient = err instanceof SmsError && err.transient;
    if (transient && attempt < DELIVERY_RETRIES.attempts) {
      await requeueLog(deps.db, log.id, providerMessage(err));
      throw err;
    }
    await deps.db.transaction((tx) => settleLog(tx, log.id, text.id, { status: 'failed', error: providerMessage(err), counted: 'fail' }));
  }
}
