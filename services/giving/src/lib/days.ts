import { DAY_MS, utcMidnight } from '@church/common';

/** `[start, end)` of a range of days: the end date counts whole (UTC days, as gifts are counted). */
export function dayRange(startDate?: Date, endDate?: Date): { from?: Date; to?: Date } {
  return { from: startDate ? utcMidnight(startDate) : undefined, to: endDate ? new Date(utcMidnight(endDate).getTime() + DAY_MS) : undefined };
}
