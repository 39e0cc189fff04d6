import { badRequest } from '@church/common';
import { feeCents, feeKind, type FeeSettings } from './fees';
import { centsText, sumCents, toCents } from './money';

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
    out.push({ fundId: m[1]!, cents: Number(m[2]) });
  }
  return out.length ? out : null;
}

/**
 * Currencies without a minor unit at the providers (Stripe's zero-decimal list; PayPal refuses decimals in them).
 * Payments go to the providers in cents (hundredths), which for these would be a hundred times the gift, so they
 * are refused for payments. Manual records in them are kept as entered.
 */
export const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);

/** 400 naming `currency` for a payment in a currency without a minor unit (see `ZERO_DECIMAL`). */
export function checkPaymentCurrency(currency: string): void {
  if (ZERO_DECIMAL.has(currency.toLowerCase())) throw badRequest('currency', `${currency.toUpperCase()} has no minor unit; payments in it are not supported`);
}

/**
 * The charged amount must equal the sum of the fund allocations, or that sum plus the transaction fee when the
 * donor chose to cover it (computed exactly as `POST /donate/fee` does). Answers the fee in cents; anything else
 * is a 400 naming `amount`.
 */
export function checkGiftAmount(input: { amount: number; funds: Array<{ amount: number }>; provider: string; type: string; currency: string; settings: FeeSettings }): { totalCents: number; feeCents: number; fundCents: number[] } {
  checkPaymentCurrency(input.currency);
  const fundCents = input.funds.map((f) => toCents(f.amount));
  const sum = sumCents(fundCents);
  const total = toCents(input.amount);
  if (total === sum) return { totalCents: total, feeCents: 0, fundCents };
  const fee = feeCents(sum, feeKind(input.provider, input.type), input.currency, input.settings);
  if (total === sum + fee) return { totalCents: total, feeCents: fee, fundCents };
  throw badRequest('amount', `must equal the sum of the funds (${centsText(sum)}) or that sum plus the transaction fee (${centsText(sum + fee)})`);
}
