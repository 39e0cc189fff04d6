import { escapeHtml, membershipInternal } from '@church/common';
import type { GivingDeps } from '../app';
import { donationWithAllocations } from '../repos/donations';
import { centsText, toCents } from '../domain/money';

/** Amount text of a currency: `USD 25.00`. */
const money = (cents: number, currency: string) => `${currency.toUpperCase()} ${centsText(cents)}`;

/** How long a church's name is reused for its receipts. */
const CHURCH_NAME_MS = 5 * 60_000;
const churchNames = new WeakMap<GivingDeps, Map<string, { name: string; until: number }>>();

/**
 * The church's name for its receipts, asked of membership once per church and five minutes (per process): a
 * burst of gateway gifts (hundreds a second) would otherwise make one internal call per receipt for the same
 * name. A rename shows on receipts within five minutes.
 */
async function churchName(deps: GivingDeps, churchId: string): Promise<string> {
  let names = churchNames.get(deps);
  if (!names) churchNames.set(deps, (names = new Map()));
  const now = Date.now();
  const kept = names.get(churchId);
  if (kept && kept.until > now) return kept.name;
  const church = membershipInternal.church.answer.parse(await deps.internal.post('membership', membershipInternal.church.path, { churchId }));
  if (names.size >= 10_000) names.clear();
  names.set(churchId, { name: church.name, until: now + CHURCH_NAME_MS });
  return church.name;
}

/** Builds and sends one donation's receipt: amount, funds, date, the church's name, and the fee line when covered. */
export async function sendReceipt(deps: GivingDeps, churchId: string, donationId: string): Promise<string> {
  const donation = await donationWithAllocations(deps.db, churchId, donationId);
  if (!donation) return 'donation gone';
  if (donation.status !== 'complete') return `not complete (${donation.status})`;
  let email = donation.email;
  let name: string | null = null;
  if (donation.personId) {
    const people = membershipInternal.contacts.answer.parse(await deps.internal.post('membership', membershipInternal.contacts.path, { churchId, ids: [donation.personId] }));
    email = people[0]?.email ?? email;
    name = people[0]?.displayName ?? null;
  }
  if (!email) return 'no email address';
  const church = { name: await churchName(deps, churchId) };
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
  await deps.mailer.send({ to: email, subject, html, text });
  return `sent to ${email}`;
}

