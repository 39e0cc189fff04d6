import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, gte, inArray, lte, isNotNull, isNull, lt, ne, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { calendarBlockouts, eventBookings, eventExceptions, eventRsvps, eventTemplates, events, resources, rooms } from '../../db/website';
import type { BookedEvent, Blockout } from '../../lib/occurrences';
import { attachExceptions, type EventRow } from './events';

export type BookingRow = typeof eventBookings.$inferSelect;
export type RsvpRow = typeof eventRsvps.$inferSelect;

/** Events on calendars: staff and leaders' events (no approval) and approved requests. */
export const onCalendar = (): SQL => or(isNull(events.approvalStatus), eq(events.approvalStatus, 'approved'))!;

const eventFields = {
  eventTitle: events.title,
  eventStart: events.start,
  eventEnd: events.end,
  eventRecurrenceRule: events.recurrenceRule,
};
const names = { roomName: rooms.name, resourceName: resources.name };

/** Events' bookings with the names of what they book, rooms then resources by name (EventModal, MyRequestsPage). */
export function bookingsForEvents(db: DbOrTx, churchId: string, eventIds: string[]) {
  if (!eventIds.length) return Promise.resolve([]);
  return db
    .select({ booking: eventBookings, ...names })
    .from(eventBookings)
    .leftJoin(rooms, eq(rooms.id, eventBookings.roomId))
    .leftJoin(resources, eq(resources.id, eventBookings.resourceId))
    .where(and(eq(eventBookings.churchId, churchId), inArray(eventBookings.eventId, eventIds)))
    .orderBy(asc(rooms.name), asc(resources.name), asc(eventBookings.id))
    .then((rows) => rows.map((r) => ({ ...r.booking, roomName: r.roomName, resourceName: r.resourceName })));
}

/** Pending bookings, oldest request first, with their event and the approval group of what they book. */
export function pendingBookings(db: DbOrTx, churchId: string) {
  return db
    .select({ booking: eventBookings, ...eventFields, ...names, roomApprovalGroupId: rooms.approvalGroupId, resourceApprovalGroupId: resources.approvalGroupId })
    .from(eventBookings)
    .innerJoin(events, eq(events.id, eventBookings.eventId))
    .leftJoin(rooms, eq(rooms.id, eventBookings.roomId))
    .leftJoin(resources, eq(resources.id, eventBookings.resourceId))
    .where(and(eq(eventBookings.churchId, churchId), eq(eventBookings.status, 'pending')))
    .orderBy(asc(eventBookings.requestedDate), asc(eventBookings.id))
    .then((rows) => rows.map(({ booking, ...rest }) => ({ ...booking, ...rest })));
}

/**
 * Bookings (not rejected) of events on the calendar for the availability page: recurring events always (the
 * page expands them), one-off events when they overlap `[from, to)`.
 */
export function calendarBookings(db: DbOrTx, churchId: string, from: Date, to: Date, filter: { roomId?: string; resourceId?: string }) {
  return db
    .select({ booking: eventBookings, ...eventFields, ...names })
    .from(eventBookings)
    .innerJoin(events, eq(events.id, eventBookings.eventId))
    .leftJoin(rooms, eq(rooms.id, eventBookings.roomId))
    .leftJoin(resources, eq(resources.id, eventBookings.resourceId))
    .where(
      and(
        eq(eventBookings.churchId, churchId),
        ne(eventBookings.status, 'rejected'),
        onCalendar(),
        or(isNotNull(events.recurrenceRule), and(lt(events.start, to), gt(events.end, from))),
        filter.roomId ? eq(eventBookings.roomId, filter.roomId) : undefined,
        filter.resourceId ? eq(eventBookings.resourceId, filter.resourceId) : undefined,
      ),
    )
    .orderBy(asc(events.start), asc(eventBookings.id))
    .then((rows) => rows.map(({ booking, ...rest }) => ({ ...booking, ...rest })));
}

/** Bookings (not rejected) of these rooms and resources, with their events' times and exceptions, for conflicts (two queries). */
export async function activeBookings(db: DbOrTx, churchId: string, roomIds: string[], resourceIds: string[]): Promise<BookedEvent[]> {
  if (!roomIds.length && !resourceIds.length) return [];
  const rows = await db
    .select({ booking: eventBookings, event: events })
    .from(eventBookings)
    .innerJoin(events, eq(events.id, eventBookings.eventId))
    .where(
      and(
        eq(eventBookings.churchId, churchId),
        ne(eventBookings.status, 'rejected'),
        or(isNull(events.approvalStatus), ne(events.approvalStatus, 'rejected')),
        or(roomIds.length ? inArray(eventBookings.roomId, roomIds) : undefined, resourceIds.length ? inArray(eventBookings.resourceId, resourceIds) : undefined),
      ),
    );
  const withExceptions = new Map((await attachExceptions(db, churchId, dedupe(rows.map((r) => r.event)))).map((e) => [e.id, e]));
  return rows.map(({ booking, event }) => ({
    ...booking,
    eventTitle: event.title,
    start: event.start,
    end: event.end,
    recurrenceRule: event.recurrenceRule,
    exceptionDates: withExceptions.get(event.id)?.exceptionDates ?? [],
  }));
}

const dedupe = (rows: EventRow[]) => [...new Map(rows.map((r) => [r.id, r])).values()];

export function blockoutsOverlapping(db: DbOrTx, churchId: string, from: Date, to: Date): Promise<Blockout[]> {
  return db
    .select()
    .from(calendarBlockouts)
    .where(and(eq(calendarBlockouts.churchId, churchId), lt(calendarBlockouts.startTime, to), gt(calendarBlockouts.endTime, from)));
}

/** Names (and quantities) of the church's rooms and resources with these ids. */
export async function targetNames(db: DbOrTx, churchId: string, roomIds: string[], resourceIds: string[]) {
  const out = new Map<string, { name: string; quantity?: number; approvalGroupId: string | null }>();
  if (roomIds.length) for (const r of await db.select().from(rooms).where(and(eq(rooms.churchId, churchId), inArray(rooms.id, roomIds)))) out.set(r.id, r);
  if (resourceIds.length) for (const r of await db.select().from(resources).where(and(eq(resources.churchId, churchId), inArray(resources.id, resourceIds)))) out.set(r.id, r);
  return out;
}

// ---- requests

export const requestsOf = (db: DbOrTx, churchId: string, personId: string) =>
  db.select().from(events).where(and(eq(events.churchId, churchId), eq(events.requestedBy, personId))).orderBy(desc(events.start), asc(events.id));

export const pendingRequests = (db: DbOrTx, churchId: string) =>
  db.select().from(events).where(and(eq(events.churchId, churchId), eq(events.approvalStatus, 'pending'))).orderBy(asc(events.start), asc(events.id));

export async function insertEvents(db: DbOrTx, churchId: string, rows: Array<Omit<typeof events.$inferInsert, 'id' | 'churchId'>>): Promise<EventRow[]> {
  if (!rows.length) return [];
  return db.insert(events).values(rows.map((r) => ({ ...r, id: randomUUID(), churchId }))).returning();
}

export async function insertBookings(db: DbOrTx, churchId: string, rows: Array<Omit<typeof eventBookings.$inferInsert, 'id' | 'churchId'>>): Promise<BookingRow[]> {
  if (!rows.length) return [];
  return db.insert(eventBookings).values(rows.map((r) => ({ ...r, id: randomUUID(), churchId }))).returning();
}

// ---- RSVPs

/** Sets a person's answer for one occurrence (one row per person and occurrence; a second answer replaces it). */
export async function upsertRsvp(db: DbOrTx, churchId: string, v: { eventId: string; personId: string; occurrenceStart: Date; response: string }): Promise<{ before?: RsvpRow; after: RsvpRow }> {
  const [before] = await db
    .select()
    .from(eventRsvps)
    .where(and(eq(eventRsvps.churchId, churchId), eq(eventRsvps.eventId, v.eventId), eq(eventRsvps.personId, v.personId), eq(eventRsvps.occurrenceStart, v.occurrenceStart)))
    .for('update');
  const [after] = await db
    .insert(eventRsvps)
    .values({ ...v, id: randomUUID(), churchId })
    .onConflictDoUpdate({
      target: [eventRsvps.churchId, eventRsvps.eventId, eventRsvps.personId, eventRsvps.occurrenceStart],
      set: { response: v.response, updatedAt: new Date() },
    })
    .returning();
  return { before, after: after! };
}

export const deleteRsvp = (db: DbOrTx, churchId: string, eventId: string, personId: string, occurrenceStart: Date) =>
  db
    .delete(eventRsvps)
    .where(and(eq(eventRsvps.churchId, churchId), eq(eventRsvps.eventId, eventId), eq(eventRsvps.personId, personId), eq(eventRsvps.occurrenceStart, occurrenceStart)))
    .returning();

export const rsvpRoster = (db: DbOrTx, churchId: string, eventId: string, occurrenceStart: Date) =>
  db
    .select({ id: eventRsvps.id, personId: eventRsvps.personId, response: eventRsvps.response, occurrenceStart: eventRsvps.occurrenceStart })
    .from(eventRsvps)
    .where(and(eq(eventRsvps.churchId, churchId), eq(eventRsvps.eventId, eventId), eq(eventRsvps.occurrenceStart, occurrenceStart)))
    .orderBy(asc(eventRsvps.createdAt), asc(eventRsvps.id));

/** Every answer for the group's events with occurrences in `[from, to]`. */
export const groupRsvps = (db: DbOrTx, churchId: string, groupId: string, from: Date, to: Date) =>
  db
    .select({ eventId: eventRsvps.eventId, occurrenceStart: eventRsvps.occurrenceStart, personId: eventRsvps.personId, response: eventRsvps.response })
    .from(eventRsvps)
    .innerJoin(events, eq(events.id, eventRsvps.eventId))
    .where(and(eq(eventRsvps.churchId, churchId), eq(events.groupId, groupId), gte(eventRsvps.occurrenceStart, from), lte(eventRsvps.occurrenceStart, to)))
    .orderBy(asc(eventRsvps.occurrenceStart), asc(eventRsvps.eventId));

/** An event with its exception dates, or undefined. */
export async function eventWithExceptions(db: DbOrTx, churchId: string, id: string) {
  return (await eventsWithExceptionsById(db, churchId, [id])).get(id);
}

/** The church's events among `ids` with their exception dates, by id (two queries). */
export async function eventsWithExceptionsById(db: DbOrTx, churchId: string, ids: string[]) {
  const rows = ids.length ? await db.select().from(events).where(and(eq(events.churchId, churchId), inArray(events.id, [...new Set(ids)]))) : [];
  return new Map((await attachExceptions(db, churchId, rows)).map((e) => [e.id, e]));
}

/** The lists' orders: by name, blockouts by start. */
export const roomsAndResourcesOrder = () => ({
  rooms: [asc(rooms.name), asc(rooms.id)],
  resources: [asc(resources.name), asc(resources.id)],
  templates: [asc(eventTemplates.name), asc(eventTemplates.id)],
  blockouts: [asc(calendarBlockouts.startTime), asc(calendarBlockouts.id)],
});

export const deleteBooking = (db: DbOrTx, churchId: string, id: string) => db.delete(eventBookings).where(and(eq(eventBookings.churchId, churchId), eq(eventBookings.id, id)));

export async function insertExceptions(db: DbOrTx, churchId: string, rows: Array<{ eventId: string; exceptionDate: Date }>): Promise<void> {
  if (rows.length) await db.insert(eventExceptions).values(rows.map((r) => ({ ...r, id: randomUUID(), churchId })));
}
