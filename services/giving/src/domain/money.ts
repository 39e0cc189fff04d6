/**
 * Money is integer cents in code, numeric(12,2) text in the database and a number in JSON. Conversions go
 * through decimal text, never through float arithmetic.
 */

/** Cents of a JSON amount (already validated to two decimals) or of a numeric(12,2) string. */
export function toCents(value: number | string): number {
  const text = typeof value === 'number' ? value.toFixed(2) : value.trim();
  const m = /^(-)?(\d+)(?:\.(\d{1,2})\d*)?$/.exec(text);
  if (!m) throw new Error(`not an amount: ${text}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -cents : cents;
}

/** The numeric(12,2) text of cents. */
export function centsText(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The JSON number of cents (or of a numeric string). */
export function amountOf(value: number | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return Number(typeof value === 'number' ? centsText(value) : value);
}

export const sumCents = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Integer division rounded half up (non-negative operands). */
export function divRound(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}
