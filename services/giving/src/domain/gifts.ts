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
 * The charged amount must equal the sum of the fund allocations, or that sum plus the transaction fee when the
 * donor chose to cover it (computed exactly as `POST /donate/fee` does). Answers the fee in cents; anything else
 * is a 400 naming `amount`.
 */
export function checkGiftAmount(input: { amount: number; funds: Array<{ amount: number }>; provider: string; type: string; currency: string; settings: FeeSettings }): { totalCents: number; feeCents: number; fundCents: number[] } {
  const fundCents = input.funds.map((f) => toCents(f.amount));
  const sum = sumCents(fundCents);
  const total = toCents(input.amount);
  if (total === sum) return { totalCents: total, feeCents: 0, fundCents };
  const fee = feeCents(sum, feeKind(input.provider, input.type), input.currency, input.settings);
  if (total === sum + fee) return { totalCents: total, feeCents: fee, fundCents };
  throw badRequest('amount', `must equal the sum of the funds (${centsText(sum)}) or that sum plus the transaction fee (${centsText(sum + fee)})`);
}
