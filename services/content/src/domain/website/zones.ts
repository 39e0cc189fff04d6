/**
 * What a calendar feed needs of a church's clock (`@church/common`'s zones): TZID date-times, the dates
 * ical-generator writes in a zone, and the VTIMEZONE a feed carries so that calendar apps expand recurrences in the
 * church's local time.
 */
import { offsetMinutes, wallClock } from '@church/common';

const pad = (n: number, size = 2) => String(n).padStart(size, '0');

/** `YYYYMMDDTHHMMSS` in the zone's wall clock (a TZID date-time), or `YYYYMMDD` (a date). */
export function localStamp(date: Date, tz: string, dateOnly = false): string {
  const w = wallClock(date, tz);
  const day = `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}`;
  return dateOnly ? day : `${day}T${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
}

/**
 * A Date that ical-generator writes in the wall clock of the zone it is asked for (its "TZDate" contract:
 * `withTimeZone(tz)` answers a date whose local getters read that zone), independent of the process's zone.
 */
export function zonedDate(date: Date): Date {
  const ms = date.getTime();
  const out = new Date(ms) as Date & Record<string, unknown>;
  out.internal = new Date(ms);
  out.tzComponents = () => ({});
  out.withTimeZone = (tz?: string | null) => {
    const d = new Date(ms) as Date & Record<string, unknown>;
    if (tz) {
      const w = wallClock(d, tz);
      Object.assign(d, {
        getFullYear: () => w.year,
        getMonth: () => w.month - 1,
        getDate: () => w.day,
        getHours: () => w.hour,
        getMinutes: () => w.minute,
        getSeconds: () => w.second,
      });
    }
    return d;
  };
  return out;
}

const fmtOffset = (minutes: number) => `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}${pad(Math.abs(minutes) % 60)}`;
const vtimezones = new Map<string, string>();

/**
 * VTIMEZONE of `tz` with each UTC-offset change from two years back to ten ahead as its own STANDARD or
 * DAYLIGHT onset (RFC 5545 §3.6.5 allows onsets without RRULE), found by a daily scan and a binary search.
 */
export function vtimezone(tz: string, now = new Date()): string {
  const cached = vtimezones.get(tz);
  if (cached) return cached;
  const from = Date.UTC(now.getUTCFullYear() - 2, 0, 1);
  const to = Date.UTC(now.getUTCFullYear() + 10, 11, 31);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${tz}`];
  let prev = offsetMinutes(new Date(from), tz);
  const onsets: string[] = [];
  for (let t = from + 86_400_000; t <= to; t += 86_400_000) {
    const offset = offsetMinutes(new Date(t), tz);
    if (offset === prev) continue;
    let lo = t - 86_400_000;
    let hi = t;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000;
      if (offsetMinutes(new Date(mid), tz) === prev) lo = mid;
      else hi = mid;
    }
    // Moving clocks forward starts daylight time; moving them back returns to standard time.
    const kind = offset > prev ? 'DAYLIGHT' : 'STANDARD';
    // DTSTART of an onset is the local time just before the change, in the offset it changes from.
    const local = new Date(hi + prev * 60_000);
    const stamp = `${pad(local.getUTCFullYear(), 4)}${pad(local.getUTCMonth() + 1)}${pad(local.getUTCDate())}T${pad(local.getUTCHours())}${pad(local.getUTCMinutes())}00`;
    onsets.push(`BEGIN:${kind}`, `DTSTART:${stamp}`, `TZOFFSETFROM:${fmtOffset(prev)}`, `TZOFFSETTO:${fmtOffset(offset)}`, `END:${kind}`);
    prev = offset;
  }
  if (!onsets.length) onsets.push('BEGIN:STANDARD', 'DTSTART:19700101T000000', `TZOFFSETFROM:${fmtOffset(prev)}`, `TZOFFSETTO:${fmtOffset(prev)}`, 'END:STANDARD');
  const text = [...lines, ...onsets, 'END:VTIMEZONE'].join('\r\n');
  vtimezones.set(tz, text);
  return text;
}
