import { divRound, toCents } from './money';

/**
 * Transaction fees (NOTES.md): the gift is grossed up so the church receives the intended amount,
 * `fee = round2((amount + fixed) / (1 - pct) - amount)`, computed exactly in integer cents and parts per
 * million. Card: 2.9% + 0.30 (fixed part per currency); bank debit: 0.8% capped at 5.00; checkout-style
 * gateway (PayPal): 2.9% + 0.30. A church's gateway `feeSettings` override each.
 */
export type FeeKind = 'card' | 'bank' | 'paypal';

export interface FeeRule {
  /** percent as decimal text or number (`2.9`) */
  percent: number | string;
  /** fixed part in currency units */
  fixed?: number | string;
  /** cap of the fee in currency units */
  cap?: number | string;
}

export interface FeeSettings {
  card?: Partial<FeeRule>;
  bank?: Partial<FeeRule>;
  paypal?: Partial<FeeRule>;
}

/** Fixed parts of the card fee by currency (Stripe's published standard pricing, rounded to the local unit). */
const CARD_FIXED_CENTS: ReadonlyMap<string, number> = new Map(Object.entries({ usd: 30, cad: 30, aud: 30, nzd: 30, eur: 25, gbp: 20, chf: 30, sek: 250, nok: 250, dkk: 180, jpy: 0, mxn: 300, brl: 39, sgd: 50, hkd: 235 }));

export function defaultRule(kind: FeeKind, currency: string): FeeRule {
  if (kind === 'bank') return { percent: '0.8', fixed: 0, cap: 5 };
  if (kind === 'paypal') return { percent: '2.9', fixed: 0.3 };
  return { percent: '2.9', fixed: (CARD_FIXED_CENTS.get(currency.toLowerCase()) ?? 30) / 100 };
}

/** Parts per million of a percent text (`2.9` → 29000). */
function ppmOf(percent: number | string): bigint {
  const text = typeof percent === 'number' ? String(percent) : percent.trim();
  const m = /^(\d+)(?:\.(\d{1,4}))?$/.exec(text);
  if (!m) throw new Error(`bad percent ${text}`);
  return BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0'));
}

const centsOf = (v: number | string | undefined | null) => (v === undefined || v === null ? 0n : BigInt(toCents(v)));

/** The fee in cents that covers `amountCents` for this kind of payment. */
export function feeCents(amountCents: number, kind: FeeKind, currency: string, settings: FeeSettings = {}): number {
  if (amountCents <= 0) return 0;
  const own = Object.hasOwn(settings, kind) ? settings[kind] : undefined;
  const rule = { ...defaultRule(kind, currency), ...(own ?? {}) } as FeeRule;
  const ppm = ppmOf(rule.percent);
  if (ppm >= 1_000_000n) throw new Error('fee percent must be below 100');
  const fixed = centsOf(rule.fixed);
  const amount = BigInt(amountCents);
  // (A + F) / (1 - p) - A  =  (F + A·p) / (1 - p), with p in ppm
  let fee = divRound(fixed * 1_000_000n + amount * ppm, 1_000_000n - ppm);
  if (rule.cap !== undefined && rule.cap !== null) {
    const cap = centsOf(rule.cap);
    if (fee > cap) fee = cap;
  }
  return Number(fee);
}

/** The fee kind of a payment: the provider's checkout for PayPal, else card or bank debit. */
export function feeKind(provider: string, type?: string | null): FeeKind {
  if (provider === 'paypal') return 'paypal';
  return type && /^(bank|ach|us_bank_account|sepa_debit|bacs_debit|bank_account)$/i.test(type) ? 'bank' : 'card';
}
