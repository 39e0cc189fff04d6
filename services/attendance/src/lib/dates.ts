import { DAY_MS, utcMidnight } from '@church/common';

// The module has no church time-zone setting, so days are UTC days (README: "Choices"); a session created by
// check-in is dated at that day's UTC midnight (`utcMidnight`).

/** The Sunday starting the week of a (UTC) day. */
export function weekStart(day: Date): Date {
  const d = utcMidnight(day);
  return new Date(d.getTime() - d.getUTCDay() * DAY_MS);
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * A (UTC) day written `MM/DD/YYYY`, as the apps name a session (`01/07/2024`): B1Admin's group sessions keep only
 * names written as dates they recognise (`/YYYY` or `, YYYY`) and read the year from them.
 */
export function slashDate(at: Date): string {
  return `${two(at.getUTCMonth() + 1)}/${two(at.getUTCDate())}/${at.getUTCFullYear()}`;
}
