import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, badRequest, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { conflictsOf, zoneOf } from '../../domain/website/calendar';
import { normalizeRule } from '../../domain/website/events';
import { decideRequest, importIcs, requestEvent } from '../../domain/website/requests';
import { bookingsForEvents, pendingRequests, requestsOf } from '../../repos/website/calendar';
import { attachExceptions } from '../../repos/website/events';
import { ActionParams, ApprovalBody, Conflict, ConflictsBody, EventRequest, IcalImport, RequestAnswer, RequestWithBookings } from '../../schemas/calendar';
import { Event, Events } from '../../schemas/website';

const base = '/content/events';
const edit = requires('Content.Edit');

/**
 * `/content/events`, the calendar side: conflicts of a proposed event's bookings, members' requests of events and
 * their approval, and the import of an ICS calendar.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  // Read-only: any signed-in user checks the rooms and resources they are about to book (EventModal, BookingPicker).
  app.post(`${base}/conflicts`, { config: { access: anyUser }, schema: { body: ConflictsBody, response: { 200: z.array(Conflict) } } }, async (req) => {
    const b = req.body;
    if (b.end < b.start) throw badRequest('end', 'must not be before start');
    const recurrenceRule = normalizeRule(b.recurrenceRule, 'recurrenceRule');
    const proposal = { ...b, recurrenceRule, roomIds: b.roomIds ?? [], resources: (b.resources ?? []).map((r) => ({ resourceId: r.resourceId, quantity: r.quantity ?? 1 })) };
    return conflictsOf(app.db, req.auth.churchId, await zoneOf(deps, app.db, req.auth.churchId), proposal, b.eventId);
  });

  // A member asks for an event (B1App RequestEventPage): private and `pending` until staff approve it, with the
  // rooms and resources it needs booked (each approved at once or pending as its approval group decides).
  app.post(`${base}/request`, { config: { access: anyUser }, schema: { body: EventRequest, response: { 200: RequestAnswer } } }, async (req) => requestEvent(deps, actorOf(req), req.body));

  // The caller's own requests, newest first, each with its bookings and their statuses (B1App MyRequestsPage).
  app.get(`${base}/requests/mine`, { config: { access: anyUser }, schema: { response: { 200: z.array(RequestWithBookings) } } }, async (req) => {
    if (!req.auth.personId) return [];
    const rows = await requestsOf(app.db, req.auth.churchId, req.auth.personId);
    const bookings = await bookingsForEvents(app.db, req.auth.churchId, rows.map((r) => r.id));
    return (await attachExceptions(app.db, req.auth.churchId, rows)).map((e) => ({ ...e, bookings: bookings.filter((b) => b.eventId === e.id) }));
  });

  app.get(`${base}/pending`, { config: { access: edit }, schema: { response: { 200: Events } } }, async (req) =>
    attachExceptions(app.db, req.auth.churchId, await pendingRequests(app.db, req.auth.churchId)),
  );

  // Approving puts the request on the calendar: public, under the group staff name (or the one it was asked for).
  app.post(`${base}/:id/:action`, { config: { access: edit }, schema: { params: ActionParams, body: ApprovalBody, response: { 200: Event } } }, async (req) =>
    decideRequest(deps, actorOf(req), req.params.id, req.params.action, req.body),
  );

  // ImportIcsModal sends the calendar's text; a feed's address is read through the outbound rules (public
  // addresses only, size and time limits). Each VEVENT becomes an event of the group, its EXDATEs exceptions.
  app.post(`${base}/ical`, { config: { access: edit }, schema: { body: IcalImport, response: { 200: Events } } }, async (req) => importIcs(deps, actorOf(req), req.body));
}
