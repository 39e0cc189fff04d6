import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { curatedCalendars, curatedEvents, eventExceptions, events, settings } from '../../db/website';

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

// ---- reads of the events routes (route files hold no SQL; their single-row writes are the shared saveRows)

/** The groups' upcoming events (not yet ended, or from a day ago on), or those of `eventIds`. */
export function groupsTimeline(db: DbOrTx, churchId: string, groupIds: string[], eventIds?: string[]): Promise<EventWithExceptions[]> {
  if (!groupIds.length) return Promise.resolve([]);
  const which = eventIds?.length ? inArray(events.id, eventIds) : gte(events.end, new Date(Date.now() - 86_400_000));
  return eventsWithExceptions(db, churchId, and(inArray(events.groupId, groupIds), which));
}

/** A group's events; `publicOnly` leaves private ones out (public lists and the feed). */
export const groupEvents = (db: DbOrTx, churchId: string, groupId: string, publicOnly: boolean) =>
  eventsWithExceptions(db, churchId, and(eq(events.groupId, groupId), publicOnly ? eq(events.visibility, 'public') : undefined));

/** Events with registration; `openAt` narrows to those not over whose registration has not closed by then. */
export function registerableEvents(db: DbOrTx, churchId: string, openAt?: Date): Promise<EventWithExceptions[]> {
  const open = openAt
    ? and(or(gte(events.end, openAt), isNotNull(events.recurrenceRule)), or(isNull(events.registrationCloseDate), gt(events.registrationCloseDate, openAt)))
    : undefined;
  return eventsWithExceptions(db, churchId, and(eq(events.registrationEnabled, true), open));
}

// ---- exceptions and curated calendars

export const curatedCalendarOrder = () => [asc(curatedCalendars.name), asc(curatedCalendars.id)];

export type CuratedEntry = typeof curatedEvents.$inferSelect;

export const calendarEntries = (db: DbOrTx, churchId: string, calendarId: string): Promise<CuratedEntry[]> =>
  db
    .select()
    .from(curatedEvents)
    .where(and(eq(curatedEvents.churchId, churchId), eq(curatedEvents.curatedCalendarId, calendarId)))
    .orderBy(asc(curatedEvents.groupId), asc(curatedEvents.id));

/** The calendar's entry for this group and event (or whole group, `eventId` null), if it has one. */
export async function findEntry(db: DbOrTx, churchId: string, v: { curatedCalendarId: string; groupId: string; eventId: string | null }): Promise<CuratedEntry | undefined> {
  const [row] = await db
    .select()
    .from(curatedEvents)
    .where(
      and(
        eq(curatedEvents.churchId, churchId),
        eq(curatedEvents.curatedCalendarId, v.curatedCalendarId),
        eq(curatedEvents.groupId, v.groupId),
        v.eventId ? eq(curatedEvents.eventId, v.eventId) : isNull(curatedEvents.eventId),
      ),
    )
    .limit(1);
  return row;
}

/** Takes an event, or every entry of a group, out of a calendar. */
export const deleteEntries = (db: DbOrTx, churchId: string, calendarId: string, which: { eventId: string } | { groupId: string }) =>
  db
    .delete(curatedEvents)
    .where(
      and(
        eq(curatedEvents.churchId, churchId),
        eq(curatedEvents.curatedCalendarId, calendarId),
        'eventId' in which ? eq(curatedEvents.eventId, which.eventId) : eq(curatedEvents.groupId, which.groupId),
      ),
    );
