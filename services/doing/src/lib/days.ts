import { DAY_MS } from '@church/common';

/** Whole days from day `a` to day `b` (both `YYYY-MM-DD`): negative when `b` is before `a`. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}
