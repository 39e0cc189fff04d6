import { isTimeZone } from '@church/common';

/** `HH:MM`, 24-hour. */
export const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Minutes since local midnight (and seconds into the minute) at `now` in `tz`. */
function localClock(now: Date, tz: string): { minutes: number; seconds: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { minutes: part('hour') * 60 + part('minute'), seconds: part('second') };
}

/**
 * How long until a person's quiet hours end, when `now` falls in them (0 otherwise). The window is local to `tz` and
 * may wrap past midnight (22:00–07:00); without a time zone, or with start equal to end, there are none.
 */
export function quietFor(now: Date, window: { quietHoursStart: string | null; quietHoursEnd: string | null; timeZone: string | null }): number {
  const { quietHoursStart: start, quietHoursEnd: end, timeZone: tz } = window;
  if (!start || !end || !tz || start === end || !CLOCK.test(start) || !CLOCK.test(end) || !isTimeZone(tz)) return 0;
  const { minutes, seconds } = localClock(now, tz);
  const [from, to] = [minutesOf(start), minutesOf(end)];
  const inside = from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
  if (!inside) return 0;
  const left = (to - minutes + 1440) % 1440;
  return (left * 60 - seconds) * 1000;
}
