import { rrulestr } from 'rrule';
import ical, { ICalCalendarMethod } from 'ical-generator';
import { badRequest } from '@church/common';
import type { EventWithExceptions } from '../../repos/website/events';
import { isTimeZone } from '@church/common';
import { localStamp, vtimezone, zonedDate } from './zones';

/**
 * A recurrence rule as stored: the RRULE's value without the `RRULE:` prefix, checked by the rrule library
 * (RFC 5545). DTSTART comes from the event's start, so a rule must not carry its own.
 */
export function normalizeRule(rule: string | null | undefined, param: string): string | null {
  if (rule === undefined || rule === null || !rule.trim()) return null;
  const value = rule.trim().replace(/^RRULE:/i, '');
  if (/DTSTART|\n|EXDATE|RDATE/i.test(value)) throw badRequest(param, 'must be a single RRULE without DTSTART, EXDATE or RDATE');
  try {
    const parsed = rrulestr(`RRULE:${value}`);
    if (parsed.options.freq === undefined || parsed.options.freq === null) throw new Error('no FREQ');
  } catch {
    throw badRequest(param, 'must be an RFC 5545 recurrence rule such as FREQ=WEEKLY;BYDAY=SU');
  }
  return value.toUpperCase();
}

/** Whether the event is a member's request not (yet) approved: it goes public only through its approval. */
export const isRequest = (event: { approvalStatus: string | null }): boolean => event.approvalStatus !== null && event.approvalStatus !== 'approved';

export function safeTimeZone(tz: string, fallback: string): string {
  return isTimeZone(tz) ? tz : isTimeZone(fallback) ? fallback : 'UTC';
}

/**
 * The ICS feed calendar apps subscribe to: one VEVENT per event with a stable UID (the event id), times in
 * the church's zone (TZID with its VTIMEZONE) so weekly services keep their local hour across daylight
 * saving, recurrences as RRULE and exceptions as EXDATE in the same zone; all-day events as dates.
 */
export function buildIcs(opts: { name: string; timeZone: string; host: string; events: EventWithExceptions[] }): string {
  const tz = opts.timeZone;
  const utc = tz === 'UTC';
  const cal = ical({ name: opts.name, method: ICalCalendarMethod.PUBLISH, prodId: { company: 'church', product: 'content', language: 'EN' } });
  if (!utc) cal.timezone({ name: tz, generator: (zone) => vtimezone(zone) });
  const at = (d: Date) => (utc ? d : zonedDate(d));
  for (const e of opts.events) {
    const event = cal.createEvent({
      id: `${e.id}@${opts.host}`,
      start: at(e.start),
      end: at(e.allDay ? nextDayIfSame(e.start, e.end, tz) : e.end),
      allDay: e.allDay,
      summary: e.title,
      description: e.description ?? undefined,
      stamp: e.updatedAt,
      lastModified: e.updatedAt,
      created: e.createdAt,
      timezone: utc ? undefined : tz,
    });
    if (e.recurrenceRule) {
      const lines = [`RRULE:${e.recurrenceRule}`];
      if (e.exceptionDates.length) {
        lines.push(
          e.allDay
            ? `EXDATE;VALUE=DATE:${e.exceptionDates.map((d) => localStamp(d, tz, true)).join(',')}`
            : utc
              ? `EXDATE:${e.exceptionDates.map((d) => `${localStamp(d, 'UTC')}Z`).join(',')}`
              : `EXDATE;TZID=${tz}:${e.exceptionDates.map((d) => localStamp(d, tz)).join(',')}`,
        );
      }
      event.repeating(lines.join('\n'));
    }
  }
  return cal.toString();
}

/** An all-day event ends the day after its last day (DTEND is exclusive); a same-day end becomes the next day. */
function nextDayIfSame(start: Date, end: Date, tz: string): Date {
  return localStamp(start, tz, true) === localStamp(end, tz, true) || end <= start ? new Date(start.getTime() + 86_400_000) : end;
}
