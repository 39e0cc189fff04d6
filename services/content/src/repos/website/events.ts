import { and, asc, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { curatedEvents, eventExceptions, events, settings } from '../../db/website';

export type EventRow = typeof events.$inferSelect;
export type EventWithExceptions = EventRow & { exceptionDates: Date[] };

/** Events of the church on its calendars matching `where`, by start, each with its exception dates (two queries). */
export async function eventsWithExceptions(db: DbOrTx, churchId: string, where?: SQL): Promise<EventWithExceptions[]> {
  // A member's request is on no calendar until staff approve it.
  const onCalendar = or(isNull(events.approvalStatus), eq(events.approvalStatus, 'approved'));
  const rows = await db.select().from(events).where(and(eq(events.churchId, churchId), onCalendar, where)).orderBy(asc(events.start), asc(events.id));
  return attachExceptions(db, churchId, rows);
}

export async function attachExceptions(db: DbOrTx, churchId: string, rows: EventRow[]): Promise<EventWithExceptions[]> {
  if (!rows.length) return [];
  const ex = await db
    .select({ eventId: eventExceptions.eventId, exceptionDate: eventExceptions.exceptionDate })
    .from(eventExceptions)
    .where(and(eq(eventExceptions.churchId, churchId), inArray(eventExceptions.eventId, rows.map((r) => r.id))))
    .orderBy(asc(eventExceptions.exceptionDate));
  const byEvent = new Map<string, Date[]>();
  for (const e of ex) byEvent.set(e.eventId, [...(byEvent.get(e.eventId) ?? []), e.exceptionDate]);
  return rows.map((r) => ({ ...r, exceptionDates: byEvent.get(r.id) ?? [] }));
}

/**
 * The events a curated calendar holds: its single events, and every event of the groups it holds whole.
 * `publicOnly` leaves private events out (the public routes and the ICS feed).
 */
export async function calendarEvents(db: DbOrTx, churchId: string, calendarId: string, publicOnly: boolean): Promise<EventWithExceptions[]> {
  const entries = await db
    .select({ groupId: curatedEvents.groupId, eventId: curatedEvents.eventId })
    .from(curatedEvents)
    .where(and(eq(curatedEvents.churchId, churchId), eq(curatedEvents.curatedCalendarId, calendarId)));
  if (!entries.length) return [];
  const wholeGroups = entries.filter((e) => !e.eventId).map((e) => e.groupId);
  const single = entries.flatMap((e) => (e.eventId ? [e.eventId] : []));
  const pick = or(wholeGroups.length ? inArray(events.groupId, wholeGroups) : undefined, single.length ? inArray(events.id, single) : undefined);
  return eventsWithExceptions(db, churchId, and(pick, publicOnly ? eq(events.visibility, 'public') : undefined));
}

/** The church's time zone: its `timeZone` setting, else the default. */
export async function churchTimeZone(db: DbOrTx, churchId: string, fallback: string): Promise<string> {
  const [row] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(and(eq(settings.churchId, churchId), isNull(settings.userId), eq(settings.keyName, 'timeZone')))
    .limit(1);
  return row?.value || fallback;
}

/** Whether the event is the person's own request still waiting for approval (they may withdraw it). */
export async function isOwnPendingRequest(db: DbOrTx, churchId: string, id: string, personId: string | null): Promise<boolean> {
  if (!personId) return false;
  const [row] = await db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.churchId, churchId), eq(events.id, id), eq(events.requestedBy, personId), eq(events.approvalStatus, 'pending')))
    .limit(1);
  return Boolean(row);
}
