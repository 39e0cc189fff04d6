import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, badRequest, batchOf, DAY_MS, Empty, getRow, IdParams, itemParam, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { events } from '../../db/website';
import { pendingFor, resolveBooking, saveBookings, withdrawBooking } from '../../domain/website/bookings';
import { bookingsForEvents, calendarBookings } from '../../repos/website/calendar';
import { ActionParams, CalendarBooking, CalendarQuery, EventBooking, EventBookingSave, NamedBooking, PendingBooking, UnreadBody } from '../../schemas/calendar';
import { EventParams } from '../../schemas/website';

const base = '/content/eventBookings';

/** `/content/eventBookings`: rooms and resources booked by events, their approval, and the availability calendar. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  app.get(`${base}/event/:eventId`, { config: { access: anyUser }, schema: { params: EventParams, response: { 200: z.array(NamedBooking) } } }, async (req) => {
    await getRow(app.db, events, req.auth.churchId, req.params.eventId, 'Event');
    return bookingsForEvents(app.db, req.auth.churchId, [req.params.eventId]);
  });

  // AvailabilityPage (editors): bookings from a month ago to a year on unless asked otherwise.
  app.get(`${base}/calendar`, { config: { access: requires('Content.Edit') }, schema: { querystring: CalendarQuery, response: { 200: z.array(CalendarBooking) } } }, async (req) => {
    const from = req.query.startTime ?? new Date();
    const to = req.query.endTime ?? new Date(from.getTime() + 366 * DAY_MS);
    if (to <= from) throw badRequest('endTime', 'must be after startTime', 'query');
    return calendarBookings(app.db, req.auth.churchId, from, to, req.query);
  });

  // The approvals inbox: editors see every pending booking, members of an approval group those routed to it;
  // each comes with the conflicts it would make if approved.
  app.get(`${base}/pending`, { config: { access: anyUser }, schema: { response: { 200: z.array(PendingBooking) } } }, async (req) => pendingFor(deps, actorOf(req)));

  // Open to any user; per item: the caller must book for an event they may book for (`mayBook`).
  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(EventBookingSave), response: { 200: z.array(EventBooking) } } }, async (req) =>
    saveBookings(deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  app.post(`${base}/:id/:action`, { config: { access: anyUser }, schema: { params: ActionParams, body: UnreadBody, response: { 200: EventBooking } } }, async (req) =>
    resolveBooking(deps, actorOf(req), req.params.id, req.params.action),
  );

  // Editors, the member who asked for the booking, and leaders of the event's group take a booking back.
  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await withdrawBooking(deps, actorOf(req), req.params.id);
    return {};
  });
}
