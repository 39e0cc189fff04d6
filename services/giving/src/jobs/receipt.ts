import { churchNameOf, escapeHtml, keptPer, type DbOrTx, type EmailMessage, type JobContext } from '@church/common';
import { contactsOf } from '../clients/membership';
import type { GivingDeps } from '../deps';
import { donationWithAllocations, type ReceiptDonation } from '../repos/donations';
import { churchesWithOverdueReceipts, claimPendingReceipts, releasePendingReceipts, settlePendingReceipts } from '../repos/receipts';
import { deliverOnce } from '../domain/deliveries';
import { centsText, toCents } from '../lib/money';
import { receiptMailJob } from './contracts';

/** Amount text of a currency: `USD 25.00`. */
const money = (cents: number, currency: string) => `${currency.toUpperCase()} ${centsText(cents)}`;

/** How long a church's name is reused for its receipts. */
const CHURCH_NAME_MS = 5 * 60_000;
const churchNames = keptPer<GivingDeps, Promise<string>>({ max: 10_000, ttl: CHURCH_NAME_MS });

/**
 * The church's name for its receipts, asked of membership once per church and five minutes (per process; the
 * receipts sent at once share the one question): a burst of gateway gifts would otherwise make one internal
 * call per receipt for the same name. A rename shows on receipts within five minutes.
 */
async function churchName(deps: GivingDeps, churchId: string): Promise<string> {
  const names = churchNames(deps);
  const kept = names.get(churchId);
  if (kept) return kept;
  const name = churchNameOf(deps.internal, churchId);
  names.set(churchId, name);
  // A failed question is not kept: the next receipt asks again.
  name.catch(() => names.peek(churchId) === name && names.delete(churchId));
  return name;
}

type Contact = { email: string | null; displayName: string | null };

/** One receipt: amount, funds, date, the church's name, and the fee line when covered. */
function receiptMessage(churchName: string, donation: ReceiptDonation, to: string, name: string | null): EmailMessage {
  const church = { name: churchName };
  const currency = donation.currency;
  const fee = toCents(donation.fee);
  const date = donation.donationDate.toISOString().slice(0, 10);
  const lines = donation.allocations.map((a) => `${a.fundName ?? 'Fund'}: ${money(toCents(a.amount), currency)}`);
  if (fee > 0) lines.push(`Transaction fee covered: ${money(fee, currency)}`);
  const total = money(toCents(donation.amount), currency);
  const subject = `Thank you for your gift to ${church.name}`;
  const text = [
    `${name ? `Dear ${name},` : 'Hello,'}`,
    '',
    `Thank you for your donation of ${total} to ${church.name} on ${date}.`,
    '',
    ...lines,
    `Total: ${total}`,
    donation.transactionId ? `Reference: ${donation.transactionId}` : '',
    '',
    `${church.name}`,
  ]
    .filter((l, i, all) => l !== '' || all[i - 1] !== '')
    .join('\n');
  const html = `<p>${name ? `Dear ${escapeHtml(name)},` : 'Hello,'}</p><p>Thank you for your donation of <strong>${escapeHtml(total)}</strong> to ${escapeHtml(church.name)} on ${date}.</p><ul>${lines
    .map((l) => `<li>${escapeHtml(l)}</li>`)
    .join('')}</ul><p>Total: ${escapeHtml(total)}</p>${donation.transactionId ? `<p>Reference: ${escapeHtml(donation.transactionId)}</p>` : ''}<p>${escapeHtml(church.name)}</p>`;
  return { to, subject, html, text };
}

/**
 * The mail of a complete donation's receipt, to its person's address (from membership) or the guest's email; the
 * reason instead when there is none to send.
 */
async function receiptMail(deps: GivingDeps, churchId: string, donation: ReceiptDonation, contact: Contact | undefined): Promise<EmailMessage | string> {
  if (donation.status !== 'complete') return `not complete (${donation.status})`;
  const email = contact?.email ?? donation.email;
  if (!email) return 'no email address';
  return receiptMessage(await churchName(deps, churchId), donation, email, contact?.displayName ?? null);
}

/** The key of a donation's receipt mail: its job's id, and its delivery's key. */
const receiptMailKey = (donationId: string) => `receipt-mail-${donationId}`;

/** The receipt's mail goes as its own job (the delivery retries), once per donation (`receipt-mail-<donation>`). */
const mailReceipt = (deps: GivingDeps, churchId: string, donationId: string, message: EmailMessage, tx?: DbOrTx) =>
  deps.queue.enqueue(receiptMailJob, { churchId, donationId, message }, { jobId: receiptMailKey(donationId), tx });

/**
 * The `giving.receiptMail` job: the mail sent once per donation, whatever the queue hands over again (its delivery
 * recorded under the job's key, `deliverOnce`).
 */
export function mailReceiptOnce(deps: GivingDeps, job: { churchId: string; donationId: string; message: EmailMessage }, log?: JobContext['log']) {
  return deliverOnce(deps.db, job.churchId, receiptMailKey(job.donationId), () => deps.mailer.send(job.message), log);
}

/** Builds one donation's receipt and hands it to the mail job (the `giving.receipt` job). */
export async function sendReceipt(deps: GivingDeps, churchId: string, donationId: string): Promise<string> {
  const donation = await donationWithAllocations(deps.db, churchId, donationId);
  if (!donation) return 'donation gone';
  if (donation.status !== 'complete') return `not complete (${donation.status})`;
  const contacts = await contactsOf(deps.internal, churchId, donation.personId ? [donation.personId] : []);
  const mail = await receiptMail(deps, churchId, donation, donation.personId ? contacts.get(donation.personId) : undefined);
  if (typeof mail === 'string') return mail;
  await mailReceipt(deps, churchId, donationId, mail);
  return `sent to ${mail.to}`;
}

/** Receipts claimed and read per statement. */
const BATCH = 50;

/**
 * Sends a church's pending receipts (the `giving.receipts` job): batches of fifty claimed and read in one
 * statement, their donors asked of membership in one call, and each batch's mails enqueued in the transaction
 * that removes its pending rows, so a receipt leaves the table exactly when its mail is a job (with its own
 * delivery retries: one bad address never holds or repeats the batch). A batch that fails before that gives its
 * receipts back: this job's retry claims them again. Answers the receipts sent.
 */
export async function sendPendingReceipts(deps: GivingDeps, churchId: string): Promise<number> {
  let sent = 0;
  for (;;) {
    const claimed = await claimPendingReceipts(deps.db, churchId, BATCH);
    if (!claimed.length) return sent;
    const mails: Array<{ donationId: string; message: EmailMessage }> = [];
    try {
      const persons = [...new Set(claimed.map((c) => (c.donation?.status === 'complete' ? c.donation.personId : null)).filter((id): id is string => !!id))];
      const contacts = await contactsOf(deps.internal, churchId, persons);
      for (const { donationId, donation } of claimed) {
        const mail = donation && (await receiptMail(deps, churchId, donation, donation.personId ? contacts.get(donation.personId) : undefined));
        if (mail && typeof mail !== 'string') mails.push({ donationId, message: mail });
      }
    } catch (err) {
      await releasePendingReceipts(deps.db, churchId, claimed.map((c) => c.donationId));
      throw err;
    }
    await deps.db.transaction(async (tx) => {
      for (const m of mails) await mailReceipt(deps, churchId, m.donationId, m.message, tx);
      await settlePendingReceipts(tx, churchId, claimed.map((c) => c.donationId));
    });
    sent += mails.length;
    if (claimed.length < BATCH) return sent;
  }
}

/** The `giving.receiptsSweep` job: receipts still pending half a minute on (a worker stopped before sending them). */
export async function sweepPendingReceipts(deps: GivingDeps): Promise<number> {
  const churches = await churchesWithOverdueReceipts(deps.db);
  for (const churchId of churches) await sendPendingReceipts(deps, churchId);
  return churches.length;
}
