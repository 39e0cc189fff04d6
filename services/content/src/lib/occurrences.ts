import { RRule } from 'rrule';
import { offsetMinutes, wallClock } from '@church/common';

/**
 * Occurrences of events, expanded in the church's time zone: a weekly 10:00 service stays at 10:00 local time
 * across daylight saving, and BYDAY means the church's day, whatever the server's zone. The rrule library
 * iterates in UTC, so the event's start is handed to it as its local wall clock written as UTC ("floating"),
 * and every date it answers is turned back into the instant that wall clock is in the zone.
 */

export interface Span {
  start: Date;
  end: Date;
}

export interface Recurring {
  start: Date;
  end: Date;
  recurrenceRule?: string | null;
  exceptionDates?: Date[];
}

/** An occurrence cap per event and window: a daily rule over a year stays under it. */
export const MAX_OCCURRENCES = 1000;

const floating = (d: Date, tz: string) => {
  const w = wallClock(d, tz);
  return new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second));
};

/** The instant whose wall clock in `tz` reads the UTC fields of `f` (the later one in a repeated hour). */
function fromFloating(f: Date, tz: string): Date {
  const guess = new Date(f.getTime() - offsetMinutes(f, tz) * 60_000);
  return new Date(f.getTime() - offsetMinutes(guess, tz) * 60_000);
}

/**
 * The event's occurrences that overlap `[from, to)` (a one-off event: itself, if it does), exception dates
 * left out, at most `max`. A rule the library cannot read counts as the one occurrence at the event's start.
 */
export function occurrences(event: Recurring, from: Date, to: Date, tz: string, max = MAX_OCCURRENCES): Span[] {
  const duration = Math.max(event.end.getTime() - event.start.getTime(), 0);
  const single = () => (event.start < to && event.end > from ? [{ start: event.start, end: event.end }] : []);
  if (!event.recurrenceRule) return single();
  let rule: RRule;
  try {
    rule = new RRule({ ...RRule.parseString(event.recurrenceRule.replace(/^RRULE:/i, '')), dtstart: floating(event.start, tz) });
  } catch {
    return single();
  }
  const skipped = new Set((event.exceptionDates ?? []).map((d) => Math.floor(d.getTime() / 1000)));
  const out: Span[] = [];
  // Starts from `from - duration` so an occurrence that began before the window and runs into it counts; a day
  // of margin each side covers the zone's offset between floating and real time.
  const after = floating(new Date(from.getTime() - duration - 86_400_000), tz);
  const before = floating(new Date(to.getTime() + 86_400_000), tz);
  rule.between(after, before, true, (date) => {
    const start = fromFloating(date, tz);
    const end = new Date(start.getTime() + duration);
    if (start < to && end > from && !skipped.has(Math.floor(start.getTime() / 1000))) out.push({ start, end });
    return start < to && out.length < max;
  });
  return out;
}

/** The starts of the event's occurrences in `[from, to)` (messaging's reminders). */
export function occurrenceStarts(event: Recurring, from: Date, to: Date, tz: string, max = MAX_OCCURRENCES): Date[] {
  return occurrences(event, from, to, tz, max + 1)
    .filter((o) => o.start >= from)
    .slice(0, max)
    .map((o) => o.start);
}

export const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

/** What a booking holds: each occurrence padded by its set-up and tear-down minutes, or its one fixed window. */
export interface BookingTimes {
  setupMinutes?: number | null;
  teardownMinutes?: number | null;
  startTime?: Date | null;
  endTime?: Date | null;
}

export function bookedSpans(event: Recurring, booking: BookingTimes, from: Date, to: Date, tz: string): Span[] {
  if (booking.startTime && booking.endTime) {
    const fixed = { start: booking.startTime, end: booking.endTime };
    return overlaps(fixed, { start: from, end: to }) ? [fixed] : [];
  }
  const setup = (booking.setupMinutes ?? 0) * 60_000;
  const teardown = (booking.teardownMinutes ?? 0) * 60_000;
  return occurrences(event, new Date(from.getTime() - teardown), new Date(to.getTime() + setup), tz).map((o) => ({
    start: new Date(o.start.getTime() - setup),
    end: new Date(o.end.getTime() + teardown),
  }));
}

/**
 * The window conflicts are looked for in: from the proposed start (not earlier than a month ago, so an old
 * recurring series is not expanded from its beginning) for a year, and at least until a year from now.
 */
export function conflictWindow(start: Date, now = new Date()): Span {
  const monthAgo = new Date(now.getTime() - 31 * 86_400_000);
  const from = start < monthAgo ? monthAgo : start;
  const yearOn = (d: Date) => new Date(d.getTime() + 366 * 86_400_000);
  const to = yearOn(from) > yearOn(now) ? yearOn(from) : yearOn(now);
  return { start: from, end: to };
}

export interface BookedEvent extends Recurring, BookingTimes {
  eventId: string;
  eventTitle: string;
  roomId: string | null;
  resourceId: string | null;
  quantity: number;
}

export interface Blockout {
  id: string;
  roomId: string | null;
  resourceId: string | null;
  startTime: Date;
  endTime: Date;
  reason: string | null;
}

export interface Conflict {
  type: 'room' | 'resource' | 'blockout';
  roomId?: string;
  resourceId?: string;
  blockoutId?: string;
  conflictingEventId?: string;
  conflictingEventTitle?: string;
  date: Date;
  message: string;
}

export interface Proposal extends Recurring, BookingTimes {
  roomIds: string[];
  resources: Array<{ resourceId: string; quantity: number }>;
}

const when = (d: Date, tz: string) => d.toLocaleString('en-US', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' });

/**
 * Conflicts of a proposed event's bookings with the other events' bookings (not rejected) and the blockouts:
 * a room booked by another event in an overlapping occurrence (one conflict per room and event, at the first
 * overlap), a resource whose bookings in one occurrence would exceed its quantity (at the first such
 * occurrence), a blockout of a booked room or resource, or of everything, overlapping an occurrence.
 */
export function findConflicts(
  proposed: Proposal,
  ctx: { window: Span; tz: string; booked: BookedEvent[]; blockouts: Blockout[]; names: Map<string, { name: string; quantity?: number }> },
): Conflict[] {
  const { window, tz } = ctx;
  const mine = bookedSpans(proposed, proposed, window.start, window.end, tz);
  if (!mine.length) return [];
  const out: Conflict[] = [];
  const spansOf = new Map<BookedEvent, Span[]>();
  const theirs = (b: BookedEvent) => spansOf.get(b) ?? spansOf.set(b, bookedSpans(b, b, window.start, window.end, tz)).get(b)!;
  for (const roomId of proposed.roomIds) {
    const seen = new Set<string>();
    for (const b of ctx.booked) {
      if (b.roomId !== roomId || seen.has(b.eventId)) continue;
      const hit = theirs(b).find((o) => mine.some((m) => overlaps(m, o)));
      if (!hit) continue;
      seen.add(b.eventId);
      const name = ctx.names.get(roomId)?.name ?? 'Room';
      out.push({ type: 'room', roomId, conflictingEventId: b.eventId, conflictingEventTitle: b.eventTitle, date: hit.start, message: `${name} is already booked by "${b.eventTitle}" from ${when(hit.start, tz)} to ${when(hit.end, tz)}` });
    }
  }
  for (const want of proposed.resources) {
    const resource = ctx.names.get(want.resourceId);
    const total = resource?.quantity ?? 1;
    for (const occ of mine) {
      const taken = ctx.booked.filter((b) => b.resourceId === want.resourceId && theirs(b).some((o) => overlaps(o, occ))).reduce((n, b) => n + b.quantity, 0);
      if (taken + want.quantity <= total) continue;
      out.push({
        type: 'resource',
        resourceId: want.resourceId,
        date: occ.start,
        message: `Only ${Math.max(total - taken, 0)} of ${total} "${resource?.name ?? 'resource'}" available from ${when(occ.start, tz)} to ${when(occ.end, tz)} (${want.quantity} requested)`,
      });
      break;
    }
  }
  const resourceIds = new Set(proposed.resources.map((r) => r.resourceId));
  for (const bo of ctx.blockouts) {
    const applies = (!bo.roomId && !bo.resourceId) || (bo.roomId && proposed.roomIds.includes(bo.roomId)) || (bo.resourceId && resourceIds.has(bo.resourceId));
    if (!applies) continue;
    const hit = mine.find((m) => overlaps(m, { start: bo.startTime, end: bo.endTime }));
    if (!hit) continue;
    const target = bo.roomId ?? bo.resourceId;
    const name = target ? (ctx.names.get(target)?.name ?? 'Facility') : 'All rooms and resources';
    out.push({
      type: 'blockout',
      ...(bo.roomId ? { roomId: bo.roomId } : {}),
      ...(bo.resourceId ? { resourceId: bo.resourceId } : {}),
      blockoutId: bo.id,
      date: hit.start,
      message: `${name} blocked out${bo.reason ? ` (${bo.reason})` : ''} from ${when(bo.startTime, tz)} to ${when(bo.endTime, tz)}`,
    });
  }
  return out;
}
