import { DAY_MS } from '@church/common';
import { weekStart } from '../lib/dates';

const WEEK_MS = 7 * DAY_MS;

/**
 * Streaks over the Sundays starting the weeks a person attended (newest first, distinct): runs of consecutive
 * weeks. The current streak is the run ending with the current week (0 when this week has no visit yet,
 * NOTES.md); the longest is the longest run up to now. Visits dated in a week still to come count towards
 * neither.
 */
export function streaksOf(weeks: Date[], now = new Date()) {
  const consecutive = (newer: Date, older: Date) => newer.getTime() - older.getTime() === WEEK_MS;
  const thisWeek = weekStart(now).getTime();
  // Weeks that have not begun yet count towards no streak, current or longest.
  const past = weeks.filter((w) => w.getTime() <= thisWeek);
  let longest = 0;
  let run = 0;
  past.forEach((week, i) => {
    run = i > 0 && consecutive(past[i - 1]!, week) ? run + 1 : 1;
    longest = Math.max(longest, run);
  });
  let current = past[0]?.getTime() === thisWeek ? 1 : 0;
  while (current > 0 && current < past.length && consecutive(past[current - 1]!, past[current]!)) current++;
  return { currentStreak: current, longestStreak: longest, lastAttended: past[0] ?? null };
}
