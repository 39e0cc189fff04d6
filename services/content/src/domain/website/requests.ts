import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, getRow, notifyPeople, readOutbound, reportChanges, saveRows, unauthorized, type Actor, type DbOrTx } from '@church/common';
import { events } from '../../db/website';
import type { ContentDeps } from '../../deps';
import { insertBookings, insertEvents, insertExceptions, targetNames, type BookingRow } from '../../repos/website/calendar';
import { attachExceptions, type EventRow } from '../../repos/website/events';
import type { ApprovalBody, EventRequest, IcalImport } from '../../schemas/calendar';
import { statusFor, type BookingDeps } from './bookings';
import { normalizeRule } from './events';
import { parseIcs } from './ics-import';

/** The most events one import creates (the open-source system's limit). */
const MAX_IMPORT = 500;

/** The reference check of a body that is one object: a field of another church is a 400 naming the field. */
const ownGroup = (deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, body: { groupId?: string | null }) =>
  assertReferences(deps, churchId, [body], { groupId: REMOTE.groups }, (_i, field) => field);

const reportEvents = (deps: BookingDeps, actor: Actor, tx: DbOrTx, pairs: Array<{ before?: EventRow; after: EventRow }>, action?: string) =>
  reportChanges(
    deps,
    pairs.map(({ before, after }) => {
      const kind = before ? 'updated' : 'created';
      return { churchId: actor.churchId, entityType: 'event', entityId: after.id, action: action ?? kind, event: `event.${kind}`, before, after };
    }),
    { req: actor, tx },
  );

/**
 * A member asks for an event (B1App RequestEventPage): private and `pending` until staff approve it, with the
 * rooms and resources it needs booked (each approved at once or pending as its approval group decides).
 */
export async function requestEvent(deps: BookingDeps, actor: Actor, b: z.output<typeof EventRequest>) {
  const { churchId, personId } = actor;
  if (!personId) throw unauthorized('Requesting an event takes a person of the church');
  if (b.end < b.start) throw badRequest('end', 'must not be before start');
  const recurrenceRule = normalizeRule(b.recurrenceRule, 'recurrenceRule');
  await ownGroup(deps, churchId, b);
  const roomIds = [...new Set(b.roomIds ?? [])];
  const wanted = b.resources ?? [];
  const names = await targetNames(deps.db, churchId, roomIds, wanted.map((r) => r.resourceId));
  roomIds.forEach((id, i) => {
    if (!names.has(id)) throw badRequest(`roomIds[${i}]`, 'no such room');
  });
  wanted.forEach((r, i) => {
    if (!names.has(r.resourceId)) throw badRequest(`resources[${i}].resourceId`, 'no such resource');
  });
  const mine: { groups?: string[] } = {};
  const planned: string[] = [];
  for (const id of [...roomIds, ...wanted.map((r) => r.resourceId)]) planned.push(await statusFor(deps, actor, names.get(id)!.approvalGroupId, mine));
  return deps.db.transaction(async (tx) => {
    const [event] = await insertEvents(tx, churchId, [
      { groupId: b.groupId ?? null, title: b.title, description: b.description ?? null, allDay: b.allDay ?? false, start: b.start, end: b.end, recurrenceRule, visibility: 'private', approvalStatus: 'pending', requestedBy: personId },
    ]);
    const requested = { requestedBy: personId, requestedDate: new Date(), eventId: event!.id };
    const bookings = await insertBookings(tx, churchId, [
      ...roomIds.map((roomId, i) => ({ ...requested, roomId, status: planned[i]! })),
      ...wanted.map((r, i) => ({ ...requested, resourceId: r.resourceId, quantity: r.quantity ?? 1, status: planned[roomIds.length + i]! })),
    ]);
    await reportEvents(deps, actor, tx, [{ after: event! }], 'requested');
    await reportChanges(deps, bookings.map((after: BookingRow) => ({ churchId, entityType: 'eventBooking', entityId: after.id, action: 'created', after })), { req: actor, tx });
    return { event: { ...event!, exceptionDates: [] }, bookings };
  });
}

/**
 * Staff decide a member's request. Approving puts it on the calendar: public, under the group staff name (or the
 * one it was asked for); the member hears of the decision either way.
 */
export async function decideRequest(deps: BookingDeps, actor: Actor, id: string, action: 'approve' | 'reject', body: z.output<typeof ApprovalBody>) {
  const churchId = actor.churchId;
  const before = await getRow(deps.db, events, churchId, id, 'Event');
  if (!before.approvalStatus) throw badRequest('id', 'the event is not a request', 'params');
  const approve = action === 'approve';
  if (approve && body) await ownGroup(deps, churchId, body);
  const values = approve ? { approvalStatus: 'approved', visibility: 'public', ...(body?.groupId ? { groupId: body.groupId } : {}) } : { approvalStatus: 'rejected' };
  return deps.db.transaction(async (tx) => {
    const [after] = await saveRows(tx, events, churchId, [{ ...values, id: before.id }]);
    await reportEvents(deps, actor, tx, [{ before, after: after! }], approve ? 'approved' : 'rejected');
    if (before.requestedBy) {
      const message = `Your event request "${before.title}" was ${approve ? 'approved' : 'rejected'}.`;
      await deps.queue.enqueue(
        notifyPeople,
        { churchId, personIds: [before.requestedBy], message: message.slice(0, 2000), contentType: 'event', contentId: before.id, ...(actor.personId ? { triggeredByPersonId: actor.personId } : {}) },
        { tx },
      );
    }
    return (await attachExceptions(tx, churchId, [after!]))[0]!;
  });
}

/**
 * Imports an ICS calendar into a group: its text as sent, or a feed's address read through the outbound rules
 * (public addresses only unless OUTBOUND_ALLOW_PRIVATE, size and time limits). Each VEVENT becomes an event of
 * the group (at most 500), its EXDATEs exceptions, in one transaction.
 */
export async function importIcs(deps: BookingDeps, actor: Actor, body: z.output<typeof IcalImport>) {
  const churchId = actor.churchId;
  const { groupId, ics, url, visibility } = body;
  if (!ics && !url) throw badRequest('ics', 'ics or url is required');
  if (ics && url) throw badRequest('url', 'send ics or url, not both');
  await ownGroup(deps, churchId, body);
  const allowPrivate = String(deps.config.OUTBOUND_ALLOW_PRIVATE) === 'true';
  const text = ics ?? (await readOutbound(url!, { maxBytes: 5_000_000, ...(allowPrivate ? { allowAddress: () => true } : {}) })).body;
  const parsed = parseIcs(text, 'ics').slice(0, MAX_IMPORT);
  return deps.db.transaction(async (tx) => {
    const rows = await insertEvents(
      tx,
      churchId,
      parsed.map((e) => ({ groupId, title: e.title, description: e.description, start: e.start, end: e.end, allDay: e.allDay, recurrenceRule: e.recurrenceRule, visibility: visibility ?? 'public' })),
    );
    await insertExceptions(tx, churchId, rows.flatMap((row, i) => parsed[i]!.exceptionDates.map((exceptionDate) => ({ eventId: row.id, exceptionDate }))));
    await reportEvents(deps, actor, tx, rows.map((after) => ({ after })));
    return attachExceptions(tx, churchId, rows);
  });
}
