import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { badRequest, batchOf, type DbOrTx, Empty, getRow, IdParams, itemParam, notFound, notifyPeople, reportChanges, rowsByIds, saveRows, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { eventBookings, events } from '../../db/website';
import { conflictsOfEach, zoneOf } from '../../domain/website/calendar';
import { personGroupIds } from '../../domain/website/membership';
import { bookingsForEvents, calendarBookings, deleteBooking, eventsWithExceptionsById, pendingBookings, targetNames, type BookingRow } from '../../repos/website/calendar';
import { ActionParams, CalendarBooking, CalendarQuery, EventBooking, EventBookingSave, NamedBooking, PendingBooking, UnreadBody } from '../../schemas/calendar';
import { EventParams } from '../../schemas/website';

const base = '/content/eventBookings';
type EventRow = typeof events.$inferSelect;

/** Website editors resolve every booking (the open-source system's `Calendars.Admin` is not in our permission list). */
export const isEditor = (req: FastifyRequest) => hasPermission(req.auth, 'Content.Edit', 'ContentApi');

/** Who books rooms and resources for an event: editors, leaders of its group, and the member who requested it. */
export const mayBook = (req: FastifyRequest, event: EventRow) =>
  isEditor(req) || (event.groupId !== null && req.auth.leaderGroupIds.includes(event.groupId)) || (event.requestedBy !== null && event.requestedBy === req.auth.personId);

/**
 * A new booking is approved at once when what it books has no approval group, when an editor books it, or when
 * the caller belongs to the approval group; else it waits in the approvals inbox (`pending`).
 */
export async function statusFor(app: FastifyInstance, req: FastifyRequest, approvalGroupId: string | null | undefined, mine: { groups?: string[] }): Promise<'approved' | 'pending'> {
  if (!approvalGroupId || isEditor(req)) return 'approved';
  mine.groups ??= req.auth.personId ? await personGroupIds(app, req.auth.churchId, req.auth.personId) : [];
  return mine.groups.includes(approvalGroupId) ? 'approved' : 'pending';
}

/** `/content/eventBookings`: rooms and resources booked by events, their approval, and the availability calendar. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);
  const report = (req: FastifyRequest, tx: DbOrTx, pairs: Array<{ before?: BookingRow; after?: BookingRow; action: string }>) =>
    reportChanges(
      deps,
      pairs.map(({ before, after, action }) => ({ churchId: req.auth.churchId, entityType: 'eventBooking', entityId: (after ?? before)!.id, action, before, after })),
      { req, tx },
    );

  app.get(`${base}/event/:eventId`, { config: { access: anyUser }, schema: { params: EventParams, response: { 200: z.array(NamedBooking) } } }, async (req) => {
    await getRow(app.db, events, req.auth.churchId, req.params.eventId, 'Event');
    return bookingsForEvents(app.db, req.auth.churchId, [req.params.eventId]);
  });

  // AvailabilityPage (editors): bookings from a month ago to a year on unless asked otherwise.
  app.get(`${base}/calendar`, { config: { access: requires('Content.Edit') }, schema: { querystring: CalendarQuery, response: { 200: z.array(CalendarBooking) } } }, async (req) => {
    const from = req.query.startTime ?? new Date();
    const to = req.query.endTime ?? new Date(from.getTime() + 366 * 86_400_000);
    if (to <= from) throw badRequest('endTime', 'must be after startTime', 'query');
    return calendarBookings(app.db, req.auth.churchId, from, to, req.query);
  });

  // The approvals inbox: editors see every pending booking, members of an approval group those routed to it;
  // each comes with the conflicts it would make if approved.
  app.get(`${base}/pending`, { config: { access: anyUser }, schema: { response: { 200: z.array(PendingBooking) } } }, async (req) => {
    const churchId = req.auth.churchId;
    let rows = await pendingBookings(app.db, churchId);
    if (!rows.length) return [];
    if (!isEditor(req)) {
      const groups = req.auth.personId ? await personGroupIds(app, churchId, req.auth.personId) : [];
      rows = rows.filter((r) => {
        const group = r.roomId ? r.roomApprovalGroupId : r.resourceApprovalGroupId;
        return group !== null && groups.includes(group);
      });
    }
    // A fixed number of queries however many wait: their events at once, then every conflict from one read each
    // of bookings, blockouts and names (conflictsOfEach); one by one this was six queries a booking.
    const tz = await zoneOf(app, app.db, churchId);
    const eventsById = await eventsWithExceptionsById(app.db, churchId, rows.map((r) => r.eventId));
    const proposals = rows.map((r) => ({
      eventId: r.eventId,
      proposed: { ...eventsById.get(r.eventId)!, ...r, roomIds: r.roomId ? [r.roomId] : [], resources: r.resourceId ? [{ resourceId: r.resourceId, quantity: r.quantity }] : [] },
    }));
    const conflicts = await conflictsOfEach(app.db, churchId, tz, proposals);
    return rows.map((r, i) => ({ ...r, conflicts: conflicts[i]! }));
  });

  // Open to any user; per item: the caller must book for an event they may book for (`mayBook`).
  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(EventBookingSave), response: { 200: z.array(EventBooking) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const old = new Map((await rowsByIds(app.db, eventBookings, churchId, req.body.flatMap((b) => (b.id ? [b.id] : [])))).map((r) => [r.id, r]));
    const eventsById = new Map(
      (await rowsByIds(app.db, events, churchId, [...req.body.flatMap((b) => (b.eventId ? [b.eventId] : [])), ...[...old.values()].map((b) => b.eventId)])).map((e) => [e.id, e]),
    );
    const names = await targetNames(
      app.db,
      churchId,
      [...req.body.flatMap((b) => (b.roomId ? [b.roomId] : [])), ...[...old.values()].flatMap((b) => (b.roomId ? [b.roomId] : []))],
      [...req.body.flatMap((b) => (b.resourceId ? [b.resourceId] : [])), ...[...old.values()].flatMap((b) => (b.resourceId ? [b.resourceId] : []))],
    );
    const mine: { groups?: string[] } = {};
    const planned: Array<{ before?: BookingRow; values: Partial<BookingRow> }> = [];
    for (const [i, { id, ...item }] of req.body.entries()) {
      const at = (field: string) => itemParam(req, i, field);
      const before = id ? old.get(id) : undefined;
      if (id && !before) throw notFound('Booking');
      const eventId = before?.eventId ?? item.eventId;
      if (!eventId) throw badRequest(at('eventId'), 'is required');
      if (before && item.eventId && item.eventId !== before.eventId) throw badRequest(at('eventId'), 'a booking stays with its event');
      const event = eventsById.get(eventId);
      if (!event) throw badRequest(at('eventId'), 'no such event');
      if (!mayBook(req, event)) throw unauthorized('Missing permission: Content.Edit, leader of the group or requester of the event');
      const startTime = item.startTime === undefined ? before?.startTime : item.startTime;
      const endTime = item.endTime === undefined ? before?.endTime : item.endTime;
      if (Boolean(startTime) !== Boolean(endTime)) throw badRequest(at('endTime'), 'startTime and endTime go together');
      if (startTime && endTime && endTime <= startTime) throw badRequest(at('endTime'), 'must be after startTime');
      const times = { setupMinutes: item.setupMinutes, teardownMinutes: item.teardownMinutes, startTime: item.startTime, endTime: item.endTime, ...(item.quantity ? { quantity: item.quantity } : {}) };
      if (before) {
        if ((item.roomId && item.roomId !== before.roomId) || (item.resourceId && item.resourceId !== before.resourceId)) throw badRequest(at('roomId'), 'a booking keeps what it books: delete it and book anew');
        // New times from someone outside the approval group go back to it for approval.
        const approvalGroupId = names.get((before.roomId ?? before.resourceId)!)?.approvalGroupId;
        const retimed = (['setupMinutes', 'teardownMinutes', 'startTime', 'endTime', 'quantity'] as const).some((f) => times[f] !== undefined && String(times[f]) !== String(before[f]));
        const again = retimed && before.status !== 'pending' && (await statusFor(app, req, approvalGroupId, mine)) === 'pending';
        planned.push({ before, values: again ? { ...times, status: 'pending', resolvedBy: null, resolvedDate: null } : times });
        continue;
      }
      if (Boolean(item.roomId) === Boolean(item.resourceId)) throw badRequest(at('roomId'), 'a booking books one room or one resource');
      const target = names.get((item.roomId ?? item.resourceId)!);
      if (!target) throw badRequest(at(item.roomId ? 'roomId' : 'resourceId'), 'no such room or resource');
      const status = await statusFor(app, req, target.approvalGroupId, mine);
      planned.push({ values: { ...times, eventId, roomId: item.roomId ?? null, resourceId: item.resourceId ?? null, status, requestedBy: req.auth.personId, requestedDate: new Date() } });
    }
    return app.db.transaction(async (tx) => {
      const out: BookingRow[] = [];
      for (const p of planned) {
        const [after] = await saveRows(tx, eventBookings, churchId, [p.before ? { ...p.values, id: p.before.id } : p.values]);
        await report(req, tx, [{ before: p.before, after: after!, action: p.before ? 'updated' : 'created' }]);
        out.push(after!);
      }
      return out;
    });
  });

  app.post(`${base}/:id/:action`, { config: { access: anyUser }, schema: { params: ActionParams, body: UnreadBody, response: { 200: EventBooking } } }, async (req) => {
    const churchId = req.auth.churchId;
    const before = await getRow(app.db, eventBookings, churchId, req.params.id, 'Booking');
    const target = (await targetNames(app.db, churchId, before.roomId ? [before.roomId] : [], before.resourceId ? [before.resourceId] : [])).get((before.roomId ?? before.resourceId)!);
    if (!isEditor(req)) {
      const groups = req.auth.personId ? await personGroupIds(app, churchId, req.auth.personId) : [];
      if (!target?.approvalGroupId || !groups.includes(target.approvalGroupId)) throw unauthorized('Missing permission: Content.Edit or member of the approval group');
    }
    const status = req.params.action === 'approve' ? 'approved' : 'rejected';
    const event = await getRow(app.db, events, churchId, before.eventId, 'Event');
    return app.db.transaction(async (tx) => {
      const [after] = await saveRows(tx, eventBookings, churchId, [{ id: before.id, status, resolvedBy: req.auth.personId, resolvedDate: new Date() }]);
      await report(req, tx, [{ before, after, action: status }]);
      // The person who asked hears of the decision (messaging's notification, escalated by their preferences).
      if (before.requestedBy) {
        const message = `Your request for ${target?.name ?? 'a room or resource'} for "${event.title}" was ${status}.`;
        await deps.queue.enqueue(
          notifyPeople,
          { churchId, personIds: [before.requestedBy], message: message.slice(0, 2000), contentType: 'eventBooking', contentId: before.id, ...(req.auth.personId ? { triggeredByPersonId: req.auth.personId } : {}) },
          { tx },
        );
      }
      return after;
    });
  });

  // Editors, the member who asked for the booking, and leaders of the event's group take a booking back.
  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    const booking = await getRow(app.db, eventBookings, churchId, req.params.id, 'Booking');
    const event = await getRow(app.db, events, churchId, booking.eventId, 'Event');
    if (!mayBook(req, event) && booking.requestedBy !== req.auth.personId) throw unauthorized('Missing permission: Content.Edit or requester of the booking');
    await app.db.transaction(async (tx) => {
      await deleteBooking(tx, churchId, booking.id);
      await report(req, tx, [{ before: booking, action: 'destroyed' }]);
    });
    return {};
  });
}
