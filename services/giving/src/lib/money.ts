/**
 * Money is integer cents in code, numeric(12,2) text in the database and a number in JSON. Conversions go
 * through decimal text, never through float arithmetic.
 */

import { centsText, toCents } from '@church/common';

export { centsText, toCents };

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
