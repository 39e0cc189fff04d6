import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { REMOTE, badRequest, checkReferences, type DbOrTx, getRow, notifyPeople, readOutbound, reportChanges, saveRows, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { events } from '../../db/website';
import { conflictsOf, zoneOf } from '../../domain/website/calendar';
import { normalizeRule } from '../../domain/website/events';
import { parseIcs } from '../../domain/website/ics-import';
import { bookingsForEvents, insertBookings, insertEvents, insertExceptions, pendingRequests, requestsOf, targetNames, type BookingRow } from '../../repos/website/calendar';
import { attachExceptions, type EventRow } from '../../repos/website/events';
import { ActionParams, ApprovalBody, Conflict, ConflictsBody, EventRequest, IcalImport, RequestAnswer, RequestWithBookings } from '../../schemas/calendar';
import { statusFor } from './event-bookings';
import { Event, Events } from '../../schemas/website';

const base = '/content/events';
const edit = requires('Content.Edit');
/** The most events one import creates (the open-source system's limit). */
const MAX_IMPORT = 500;

/**
 * `/content/events`, the calendar side: conflicts of a proposed event's bookings, members' requests of events and
 * their approval, and the import of an ICS calendar.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);
  const reportEvents = (req: FastifyRequest, tx: DbOrTx, pairs: Array<{ before?: EventRow; after: EventRow }>, action?: string) =>
    reportChanges(
      deps,
      pairs.map(({ before, after }) => {
        const kind = before ? 'updated' : 'created';
        return { churchId: req.auth.churchId, entityType: 'event', entityId: after.id, action: action ?? kind, event: `event.${kind}`, before, after };
      }),
      { req, tx },
    );

  // Read-only: any signed-in user checks the rooms and resources they are about to book (EventModal, BookingPicker).
  app.post(`${base}/conflicts`, { config: { access: anyUser }, schema: { body: ConflictsBody, response: { 200: z.array(Conflict) } } }, async (req) => {
    const b = req.body;
    if (b.end < b.start) throw badRequest('end', 'must not be before start');
    const recurrenceRule = normalizeRule(b.recurrenceRule, 'recurrenceRule');
    const proposal = { ...b, recurrenceRule, roomIds: b.roomIds ?? [], resources: (b.resources ?? []).map((r) => ({ resourceId: r.resourceId, quantity: r.quantity ?? 1 })) };
    return conflictsOf(app.db, req.auth.churchId, await zoneOf(app, app.db, req.auth.churchId), proposal, b.eventId);
  });

  // A member asks for an event (B1App RequestEventPage): private and `pending` until staff approve it, with the
  // rooms and resources it needs booked (each approved at once or pending as its approval group decides).
  app.post(`${base}/request`, { config: { access: anyUser }, schema: { body: EventRequest, response: { 200: RequestAnswer } } }, async (req) => {
    const { churchId, personId } = req.auth;
    if (!personId) throw unauthorized('Requesting an event takes a person of the church');
    const b = req.body;
    if (b.end < b.start) throw badRequest('end', 'must not be before start');
    const recurrenceRule = normalizeRule(b.recurrenceRule, 'recurrenceRule');
    await checkReferences(req, [b], { groupId: REMOTE.groups });
    const roomIds = [...new Set(b.roomIds ?? [])];
    const wanted = b.resources ?? [];
    const names = await targetNames(app.db, churchId, roomIds, wanted.map((r) => r.resourceId));
    roomIds.forEach((id, i) => {
      if (!names.has(id)) throw badRequest(`roomIds[${i}]`, 'no such room');
    });
    wanted.forEach((r, i) => {
      if (!names.has(r.resourceId)) throw badRequest(`resources[${i}].resourceId`, 'no such resource');
    });
    const mine: { groups?: string[] } = {};
    const planned: string[] = [];
    for (const id of [...roomIds, ...wanted.map((r) => r.resourceId)]) planned.push(await statusFor(app, req, names.get(id)!.approvalGroupId, mine));
    return app.db.transaction(async (tx) => {
      const [event] = await insertEvents(tx, churchId, [
        { groupId: b.groupId ?? null, title: b.title, description: b.description ?? null, allDay: b.allDay ?? false, start: b.start, end: b.end, recurrenceRule, visibility: 'private', approvalStatus: 'pending', requestedBy: personId },
      ]);
      const requested = { requestedBy: personId, requestedDate: new Date(), eventId: event!.id };
      const bookings = await insertBookings(tx, churchId, [
        ...roomIds.map((roomId, i) => ({ ...requested, roomId, status: planned[i]! })),
        ...wanted.map((r, i) => ({ ...requested, resourceId: r.resourceId, quantity: r.quantity ?? 1, status: planned[roomIds.length + i]! })),
      ]);
      await reportEvents(req, tx, [{ after: event! }], 'requested');
      await reportChanges(deps, bookings.map((after: BookingRow) => ({ churchId, entityType: 'eventBooking', entityId: after.id, action: 'created', after })), { req, tx });
      return { event: { ...event!, exceptionDates: [] }, bookings };
    });
  });

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
  app.post(
    `${base}/:id/:action`,
    { config: { access: edit }, schema: { params: ActionParams, body: ApprovalBody, response: { 200: Event } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const before = await getRow(app.db, events, churchId, req.params.id, 'Event');
      if (!before.approvalStatus) throw badRequest('id', 'the event is not a request', 'params');
      const approve = req.params.action === 'approve';
      if (approve && req.body) await checkReferences(req, [req.body], { groupId: REMOTE.groups });
      const values = approve ? { approvalStatus: 'approved', visibility: 'public', ...(req.body?.groupId ? { groupId: req.body.groupId } : {}) } : { approvalStatus: 'rejected' };
      return app.db.transaction(async (tx) => {
        const [after] = await saveRows(tx, events, churchId, [{ ...values, id: before.id }]);
        await reportEvents(req, tx, [{ before, after }], approve ? 'approved' : 'rejected');
        if (before.requestedBy) {
          const message = `Your event request "${before.title}" was ${approve ? 'approved' : 'rejected'}.`;
          await deps.queue.enqueue(
            notifyPeople,
            { churchId, personIds: [before.requestedBy], message: message.slice(0, 2000), contentType: 'event', contentId: before.id, ...(req.auth.personId ? { triggeredByPersonId: req.auth.personId } : {}) },
            { tx },
          );
        }
        return (await attachExceptions(tx, churchId, [after]))[0]!;
      });
    },
  );

  // ImportIcsModal sends the calendar's text; a feed's address is read through the outbound rules (public
  // addresses only, size and time limits). Each VEVENT becomes an event of the group, its EXDATEs exceptions.
  app.post(`${base}/ical`, { config: { access: edit }, schema: { body: IcalImport, response: { 200: Events } } }, async (req) => {
    const churchId = req.auth.churchId;
    const { groupId, ics, url, visibility } = req.body;
    if (!ics && !url) throw badRequest('ics', 'ics or url is required');
    if (ics && url) throw badRequest('url', 'send ics or url, not both');
    await checkReferences(req, [req.body], { groupId: REMOTE.groups });
    const allowPrivate = String(deps.config.OUTBOUND_ALLOW_PRIVATE) === 'true';
    const text = ics ?? (await readOutbound(url!, { maxBytes: 5_000_000, ...(allowPrivate ? { allowAddress: () => true } : {}) })).body;
    const parsed = parseIcs(text, 'ics').slice(0, MAX_IMPORT);
    return app.db.transaction(async (tx) => {
      const rows = await insertEvents(
        tx,
        churchId,
        parsed.map((e) => ({ groupId, title: e.title, description: e.description, start: e.start, end: e.end, allDay: e.allDay, recurrenceRule: e.recurrenceRule, visibility: visibility ?? 'public' })),
      );
      await insertExceptions(tx, churchId, rows.flatMap((row, i) => parsed[i]!.exceptionDates.map((exceptionDate) => ({ eventId: row.id, exceptionDate }))));
      await reportEvents(req, tx, rows.map((after) => ({ after })));
      return attachExceptions(tx, churchId, rows);
    });
  });
}
