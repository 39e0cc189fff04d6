import { weekStart } from './dates';

const WEEK_MS = 7 * 86_400_000;

/**
 * Streaks over the Sundays starting the weeks a person attended (newest first, distinct): runs of consecutive
 * weeks. The current streak is the run ending with the current week (0 when this week has no visit yet,
 * NOTES.md; visits dated in the future do not count towards it); the longest is the longest run ever.
 */
export function streaksOf(weeks: Date[], now = new Date()) {
  const consecutive = (newer: Date, older: Date) => newer.getTime() - older.getTime() === WEEK_MS;
  let longest = 0;
  let run = 0;
  weeks.forEach((week, i) => {
    run = i > 0 && consecutive(weeks[i - 1]!, week) ? run + 1 : 1;
    longest = Math.max(longest, run);
  });
  const thisWeek = weekStart(now).getTime();
  const past = weeks.filter((w) => w.getTime() <= thisWeek);
  let current = past[0]?.getTime() === thisWeek ? 1 : 0;
  while (current > 0 && current < past.length && consecutive(past[current - 1]!, past[current]!)) current++;
  return { currentStreak: current, longestStreak: longest, lastAttended: past[0] ?? null };
}
