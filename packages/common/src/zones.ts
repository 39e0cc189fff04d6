/**
 * A church's clock: wall-clock readings of an instant in an IANA time zone and the instant of a reading, on the
 * runtime's own zone data (`Intl`), so a reminder at "9:00 the day before" or a weekly 10:00 service stays at 9:00 or
 * 10:00 on the church's clock, summer or winter. Readings are kept as the UTC milliseconds of the same digits.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

/** Whether this runtime knows a time zone name (an IANA name such as `America/Chicago`). */
export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in a zone, field by field. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock in `tz` at `date`. */
export function wallClock(date: Date, tz: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(date)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** The wall clock in `tz` at `at` (ms), as the UTC milliseconds of the same reading. */
function wallClockMs(at: number, tz: string): number {
  const w = wallClock(new Date(at), tz);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** Minutes east of UTC in `tz` at `date`. */
export function offsetMinutes(date: Date, tz: string): number {
  return Math.round((wallClockMs(date.getTime(), tz) - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
}

/** The calendar day (`YYYY-MM-DD`) an instant falls on in `tz`. */
export function localDay(at: Date, tz: string): string {
  return new Date(wallClockMs(at.getTime(), tz)).toISOString().slice(0, 10);
}

/** A day's milliseconds (a UTC day: no clock change in it). */
export const DAY_MS = 86_400_000;

/** `day` (`YYYY-MM-DD`) moved by `days` calendar days. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The UTC calendar day (`YYYY-MM-DD`) `days` after the day of `from` (today by default). */
export function utcDay(days = 0, from: Date = new Date()): string {
  return addDays(from.toISOString().slice(0, 10), days);
}

/** The UTC midnight starting the day of an instant. */
export function utcMidnight(at: Date = new Date()): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/**
 * The instant at which the clock in `tz` reads `ms` (a reading written as UTC milliseconds). A reading that happens
 * twice (the hour the clocks go back) is the first; one that never happens (the hour they go forward) is moved on
 * by the gap.
 */
function instantOfWallClock(ms: number, tz: string): Date {
  const offsetAt = (utc: number) => wallClockMs(utc, tz) - utc;
  const guess = offsetAt(ms);
  const a = ms - guess;
  if (offsetAt(a) === guess) return new Date(a);
  const b = ms - offsetAt(a);
  if (offsetAt(b) === offsetAt(a)) return new Date(b);
  return new Date(Math.max(a, b));
}

/** The instant `minutesBefore` minutes of the church's clock before `time` (`HH:MM[:SS]`) on `day`, in `tz`. */
export function zonedInstant(day: string, time: string, tz: string, minutesBefore = 0): Date {
  const [h = 0, m = 0, s = 0] = time.split(':').map(Number);
  const wall = Date.parse(`${day}T00:00:00Z`) + ((h * 60 + m) * 60 + s) * 1000 - minutesBefore * 60_000;
  return instantOfWallClock(wall, tz);
}

/** The end of `day` in `tz` (the next day's midnight). */
export function endOfDay(day: string, tz: string): Date {
  return zonedInstant(addDays(day, 1), '00:00', tz);
}
