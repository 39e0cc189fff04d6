import { badRequest } from '@church/common';
import type { NewDonation } from '../repos/donations';
import { feeCents, type FeeKind, type FeeSettings } from '../lib/fees';
import { ZERO_DECIMAL } from '../lib/currencies';
import { centsText, sumCents, toCents } from '../lib/money';

/** A gift's funds in the provider's metadata: `fundId:cents,fundId:cents` (fits Stripe's 500-character values for 10 funds). */
export function fundsMeta(funds: Array<{ fundId: string; cents: number }>): string {
  return funds.map((f) => `${f.fundId}:${f.cents}`).join(',');
}

export function parseFundsMeta(text: string | undefined | null): Array<{ fundId: string; cents: number }> | null {
  if (!text) return null;
  const out: Array<{ fundId: string; cents: number }> = [];
  for (const part of text.split(',')) {
    const m = /^([0-9a-f-]{36}):(\d{1,12})$/i.exec(part.trim());
    if (!m) return null;
    out.push({ fundId: m[1]!.toLowerCase(), cents: Number(m[2]) });
  }
  return out.length ? out : null;
}

/**
 * The allocations a payment's metadata names, when they fit its amount: a payment whose `funds` add up to more
 * than was paid (metadata written outside this service) is not recorded from its event alone.
 */
export function fundsOfPayment(text: string | undefined | null, amountCents: number): Array<{ fundId: string; cents: number }> | null {
  const funds = parseFundsMeta(text);
  return funds && sumCents(funds.map((f) => f.cents)) <= amountCents ? funds : null;
}

/**
 * The currency of a payment through a gateway: the gateway's own when the body names none; another than the
 * gateway's is a 400 (the church's account settles in its currency), as is one without a minor unit.
 */
export function paymentCurrency(requested: string | undefined, gatewayCurrency: string): string {
  const currency = (requested ?? gatewayCurrency).toLowerCase();
  if (currency !== gatewayCurrency.toLowerCase()) throw badRequest('currency', `must be ${gatewayCurrency.toUpperCase()}, the currency of the church's gateway`);
  if (ZERO_DECIMAL.has(currency)) throw badRequest('currency', `${currency.toUpperCase()} has no minor unit; payments in it are not supported`);
  return currency;
}

/**
 * The charged amount must equal the sum of the fund allocations, or that sum plus the transaction fee of the
 * payment's real kind when the donor chose to cover it (computed exactly as `POST /donate/fee` does). A bank
 * payment may also cover the card fee, which is what the donation forms compute (they ask for the fee without a
 * kind); a card payment may not claim the smaller bank fee. Answers the fee in cents; anything else is a 400
 * naming `amount`.
 */
export function checkGiftAmount(input: { amount: number; funds: Array<{ amount: number }>; kind: FeeKind; currency: string; settings: FeeSettings }): { totalCents: number; feeCents: number; fundCents: number[] } {
  const fundCents = input.funds.map((f) => toCents(f.amount));
  const sum = sumCents(fundCents);
  const total = toCents(input.amount);
  if (total === sum) return { totalCents: total, feeCents: 0, fundCents };
  const kinds: FeeKind[] = input.kind === 'bank' ? ['bank', 'card'] : [input.kind];
  for (const kind of kinds) {
    const fee = feeCents(sum, kind, input.currency, input.settings);
    if (total === sum + fee) return { totalCents: total, feeCents: fee, fundCents };
  }
  const fee = feeCents(sum, input.kind, input.currency, input.settings);
  throw badRequest('amount', `must equal the sum of the funds (${centsText(sum)}) or that sum plus the transaction fee (${centsText(sum + fee)})`);
}

/** Who gave, as a payment's metadata says (written by this service's charge, subscribe and orders). */
export function payerOf(meta: Record<string, string | undefined> | undefined): { personId: string | null; email: string | null; feeCents: number } {
  const fee = meta?.fee && /^\d{1,10}(\.\d{1,2})?$/.test(meta.fee) ? toCents(meta.fee) : 0;
  const personId = meta?.personId && /^[0-9a-f-]{36}$/i.test(meta.personId) ? meta.personId.toLowerCase() : null;
  return { personId, email: meta?.email || null, feeCents: fee };
}

/** A payment the gateway reports, as the donation record needs it. */
export interface GatewayPayment {
  transactionId: string;
  amountCents: number;
  currency: string;
  status: 'complete' | 'pending' | 'failed';
  method: string;
  methodDetails?: string | null;
}

/**
 * The donation record of a gateway payment: the one builder of it, for the charge's answer, `donate/log`, and
 * the webhook's payments, so the four record a payment alike.
 */
export function giftRecord(
  churchId: string,
  provider: string,
  payment: GatewayPayment,
  payer: { personId: string | null; email: string | null; feeCents: number },
  funds: Array<{ fundId: string; cents: number }>,
  extra: { id?: string; notes?: string | null; date?: Date } = {},
): NewDonation {
  return {
    ...(extra.id ? { id: extra.id } : {}),
    churchId,
    amountCents: payment.amountCents,
    currency: payment.currency,
    personId: payer.personId,
    method: payment.method,
    methodDetails: payment.methodDetails ?? null,
    notes: extra.notes ?? null,
    status: payment.status,
    transactionId: payment.transactionId,
    provider,
    feeCents: payer.feeCents,
    email: payer.email,
    ...(extra.date ? { date: extra.date } : {}),
    funds,
  };
}
