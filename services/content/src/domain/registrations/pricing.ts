/**
 * Registration prices: integer cents in arithmetic, numeric(12,2) text in the database, a number in JSON. Every
 * conversion goes through decimal text, never through float arithmetic (the open-source Api rounds floats).
 */

import { centsText, toCents as cents } from '@church/common';

export { centsText };

/** Cents of a numeric(12,2) text or of a JSON amount (already validated to two decimals); none is 0. */
export const toCents = (value: string | number | null | undefined): number => (value === null || value === undefined ? 0 : cents(value));

/** The JSON number of a numeric text (null stays null): the apps read prices and totals as numbers. */
export const moneyOut = (value: string | null): number | null => (value === null ? null : Number(centsText(toCents(value))));

interface Priced {
  id: string;
  price: string | null;
}

/** What the registration costs: each member's type price and each chosen extra's price times its quantity. */
export function totalCents(types: Priced[], selections: Priced[], members: Array<{ registrationTypeId?: string | null }>, choices: Array<{ selectionId: string; quantity: number }>): number {
  const typePrice = new Map(types.map((t) => [t.id, toCents(t.price)]));
  const selectionPrice = new Map(selections.map((s) => [s.id, toCents(s.price)]));
  let total = 0;
  for (const m of members) if (m.registrationTypeId) total += typePrice.get(m.registrationTypeId) ?? 0;
  for (const c of choices) total += (selectionPrice.get(c.selectionId) ?? 0) * c.quantity;
  return total;
}

export interface CouponRow {
  id: string;
  discountType: string;
  value: string;
  startDate: Date | null;
  endDate: Date | null;
  minMembers: number | null;
  maxUses: number | null;
  active: boolean;
}

export type CouponCheck = { valid: true; discountType: string; value: number } | { valid: false; reason: 'not-found' | 'inactive' | 'not-started' | 'expired' | 'min-members' | 'max-uses' };

/** Whether a code may be used now by a registration of `memberCount` people; `reason` is what the apps translate. */
export function checkCoupon(coupon: CouponRow | undefined, memberCount: number, uses: number, now = new Date()): CouponCheck {
  if (!coupon) return { valid: false, reason: 'not-found' };
  if (!coupon.active) return { valid: false, reason: 'inactive' };
  if (coupon.startDate && coupon.startDate > now) return { valid: false, reason: 'not-started' };
  if (coupon.endDate && coupon.endDate < now) return { valid: false, reason: 'expired' };
  if (coupon.minMembers !== null && memberCount < coupon.minMembers) return { valid: false, reason: 'min-members' };
  if (coupon.maxUses !== null && uses >= coupon.maxUses) return { valid: false, reason: 'max-uses' };
  return { valid: true, discountType: coupon.discountType, value: moneyOut(coupon.value)! };
}

/**
 * The total after a coupon, never below zero. A percentage is read as hundredths of a percent (`12.5` → 1250)
 * and the discount rounded half up to a cent, in integers (BigInt: cents times basis points passes 2^53).
 */
export function discounted(total: number, coupon: Pick<CouponRow, 'discountType' | 'value'>): number {
  const value = toCents(coupon.value);
  const off = coupon.discountType === 'amount' ? value : Number((BigInt(total) * BigInt(value) + 5000n) / 10000n);
  return Math.max(0, total - off);
}
