/**
 * Money is integer cents in code, numeric(12,2) text in the database and a number in JSON. Every conversion goes
 * through decimal text, never through float arithmetic.
 */

/** Cents of a JSON amount (already validated to two decimals) or of a numeric(12,2) text. */
export function toCents(value: number | string): number {
  const text = typeof value === 'number' ? value.toFixed(2) : value.trim();
  const m = /^(-)?(\d+)(?:\.(\d{1,2})\d*)?$/.exec(text);
  if (!m) throw new Error(`not an amount: ${text}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -cents : cents;
}

/** The decimal text of cents (`2500` → `"25.00"`), as numeric(12,2) columns and the money contracts take it. */
export function centsText(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
