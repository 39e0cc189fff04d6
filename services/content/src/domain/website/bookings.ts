import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { badRequest, getRow, notFound, notifyPeople, reportChanges, rowsByIds, saveRows, unauthorized, type Actor, type DbOrTx } from '@church/common';
import { personGroupIds } from '../../clients/membership';
import { eventBookings, events } from '../../db/website';
import type { ContentDeps } from '../../deps';
import { deleteBooking, eventsWithExceptionsById, pendingBookings, targetNames, type BookingRow } from '../../repos/website/calendar';
import type { EventBookingSave } from '../../schemas/calendar';
import { conflictsOfEach, zoneOf } from './calendar';

type EventRow = typeof events.$inferSelect;
/** What bookings read and write: the database, the outbox (changes, notifications), membership, the config (time zone). */
export type BookingDeps = Pick<ContentDeps, 'db' | 'queue' | 'module' | 'internal' | 'config'>;

/** Website editors resolve every booking (the open-source system's `Calendars.Admin` is not in our permission list). */
export const isEditor = (actor: Actor) => hasPermission(actor, 'Content.Edit', 'ContentApi');

/** Who books rooms and resources for an event: editors, leaders of its group, and the member who requested it. */
export const mayBook = (actor: Actor, event: EventRow) =>
  isEditor(actor) || (event.groupId !== null && actor.leaderGroupIds.includes(event.groupId)) || (event.requestedBy !== null && event.requestedBy === actor.personId);

/** The groups the caller is a member of (membership's), none without a person. */
const groupsOf = (deps: Pick<ContentDeps, 'internal'>, actor: Actor) =>
  actor.personId ? personGroupIds(deps.internal, actor.churchId, actor.personId, actor.requestId) : Promise.resolve([]);

/**
 * A new booking is approved at once when what it books has no approval group, when an editor books it, or when
 * the caller belongs to the approval group; else it waits in the approvals inbox (`pending`). `mine` keeps the
 * caller's groups between the items of a batch (membership is asked once).
 */
export async function statusFor(deps: Pick<ContentDeps, 'internal'>, actor: Actor, approvalGroupId: string | null | undefined, mine: { groups?: string[] }): Promise<'approved' | 'pending'> {
  if (!approvalGroupId || isEditor(actor)) return 'approved';
  mine.groups ??= await groupsOf(deps, actor);
  return mine.groups.includes(approvalGroupId) ? 'approved' : 'pending';
}

const report = (deps: BookingDeps, actor: Actor, tx: DbOrTx, pairs: Array<{ before?: BookingRow; after?: BookingRow; action: string }>) =>
  reportChanges(
    deps,
    pairs.map(({ before, after, action }) => ({ churchId: actor.churchId, entityType: 'eventBooking', entityId: (after ?? before)!.id, action, before, after })),
    { req: actor, tx },
  );

/**
 * The approvals inbox: editors see every pending booking, members of an approval group those routed to it; each
 * comes with the conflicts it would make if approved. A fixed number of queries however many wait: their events
 * at once, then every conflict from one read each of bookings, blockouts and names (conflictsOfEach).
 */
export async function pendingFor(deps: BookingDeps, actor: Actor) {
  const churchId = actor.churchId;
  let rows = await pendingBookings(deps.db, churchId);
  if (!rows.length) return [];
  if (!isEditor(actor)) {
    const groups = await groupsOf(deps, actor);
    rows = rows.filter((r) => {
      const group = r.roomId ? r.roomApprovalGroupId : r.resourceApprovalGroupId;
      return group !== null && groups.includes(group);
    });
  }
  const tz = await zoneOf(deps, deps.db, churchId);
  const eventsById = await eventsWithExceptionsById(deps.db, churchId, rows.map((r) => r.eventId));
  const proposals = rows.map((r) => ({
    eventId: r.eventId,
    proposed: { ...eventsById.get(r.eventId)!, ...r, roomIds: r.roomId ? [r.roomId] : [], resources: r.resourceId ? [{ resourceId: r.resourceId, quantity: r.quantity }] : [] },
  }));
  const conflicts = await conflictsOfEach(deps.db, churchId, tz, proposals);
  return rows.map((r, i) => ({ ...r, conflicts: conflicts[i]! }));
}

/**
 * Saves a batch of bookings (`param(i, field)` names a field of item `i`), each for an event the caller may book
 * for (`mayBook`): a new one books one room or one resource, approved or pending as `statusFor` decides; a kept
 * one keeps its event and what it books, and new times from someone outside the approval group go back to it for
 * approval. Everything is checked first, then written in one transaction, each change reported.
 */
export async function saveBookings(deps: BookingDeps, actor: Actor, items: Array<z.output<typeof EventBookingSave>>, param: (i: number, field: string) => string): Promise<BookingRow[]> {
  const churchId = actor.churchId;
  const old = new Map((await rowsByIds(deps.db, eventBookings, churchId, items.flatMap((b) => (b.id ? [b.id] : [])))).map((r) => [r.id, r]));
  const eventsById = new Map(
    (await rowsByIds(deps.db, events, churchId, [...items.flatMap((b) => (b.eventId ? [b.eventId] : [])), ...[...old.values()].map((b) => b.eventId)])).map((e) => [e.id, e]),
  );
  const names = await targetNames(
    deps.db,
    churchId,
    [...items.flatMap((b) => (b.roomId ? [b.roomId] : [])), ...[...old.values()].flatMap((b) => (b.roomId ? [b.roomId] : []))],
    [...items.flatMap((b) => (b.resourceId ? [b.resourceId] : [])), ...[...old.values()].flatMap((b) => (b.resourceId ? [b.resourceId] : []))],
  );
  const mine: { groups?: string[] } = {};
  const planned: Array<{ before?: BookingRow; values: Partial<BookingRow> }> = [];
  for (const [i, { id, ...item }] of items.entries()) {
    const at = (field: string) => param(i, field);
    const before = id ? old.get(id) : undefined;
    if (id && !before) throw notFound('Booking');
    const eventId = before?.eventId ?? item.eventId;
    if (!eventId) throw badRequest(at('eventId'), 'is required');
    if (before && item.eventId && item.eventId !== before.eventId) throw badRequest(at('eventId'), 'a booking stays with its event');
    const event = eventsById.get(eventId);
    if (!event) throw badRequest(at('eventId'), 'no such event');
    if (!mayBook(actor, event)) throw unauthorized('Missing permission: Content.Edit, leader of the group or requester of the event');
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
      const again = retimed && before.status !== 'pending' && (await statusFor(deps, actor, approvalGroupId, mine)) === 'pending';
      planned.push({ before, values: again ? { ...times, status: 'pending', resolvedBy: null, resolvedDate: null } : times });
      continue;
    }
    if (Boolean(item.roomId) === Boolean(item.resourceId)) throw badRequest(at('roomId'), 'a booking books one room or one resource');
    const target = names.get((item.roomId ?? item.resourceId)!);
    if (!target) throw badRequest(at(item.roomId ? 'roomId' : 'resourceId'), 'no such room or resource');
    const status = await statusFor(deps, actor, target.approvalGroupId, mine);
    planned.push({ values: { ...times, eventId, roomId: item.roomId ?? null, resourceId: item.resourceId ?? null, status, requestedBy: actor.personId, requestedDate: new Date() } });
  }
  return deps.db.transaction(async (tx) => {
    const out: BookingRow[] = [];
    for (const p of planned) {
      const [after] = await saveRows(tx, eventBookings, churchId, [p.before ? { ...p.values, id: p.before.id } : p.values]);
      await report(deps, actor, tx, [{ before: p.before, after: after!, action: p.before ? 'updated' : 'created' }]);
      out.push(after!);
    }
    return out;
  });
}

/**
 * Approves or rejects a booking: editors, or members of the approval group of what it books. The person who
 * asked hears of the decision (messaging's notification, escalated by their preferences).
 */
export async function resolveBooking(deps: BookingDeps, actor: Actor, id: string, action: 'approve' | 'reject'): Promise<BookingRow> {
  const churchId = actor.churchId;
  const before = await getRow(deps.db, eventBookings, churchId, id, 'Booking');
  const target = (await targetNames(deps.db, churchId, before.roomId ? [before.roomId] : [], before.resourceId ? [before.resourceId] : [])).get((before.roomId ?? before.resourceId)!);
  if (!isEditor(actor)) {
    const groups = await groupsOf(deps, actor);
    if (!target?.approvalGroupId || !groups.includes(target.approvalGroupId)) throw unauthorized('Missing permission: Content.Edit or member of the approval group');
  }
  const status = action === 'approve' ? 'approved' : 'rejected';
  const event = await getRow(deps.db, events, churchId, before.eventId, 'Event');
  return deps.db.transaction(async (tx) => {
    const [after] = await saveRows(tx, eventBookings, churchId, [{ id: before.id, status, resolvedBy: actor.personId, resolvedDate: new Date() }]);
    await report(deps, actor, tx, [{ before, after, action: status }]);
    if (before.requestedBy) {
      const message = `Your request for ${target?.name ?? 'a room or resource'} for "${event.title}" was ${status}.`;
      await deps.queue.enqueue(
        notifyPeople,
        { churchId, personIds: [before.requestedBy], message: message.slice(0, 2000), contentType: 'eventBooking', contentId: before.id, ...(actor.personId ? { triggeredByPersonId: actor.personId } : {}) },
        { tx },
      );
    }
    return after!;
  });
}

/** Editors, the member who asked for the booking, and leaders of the event's group take a booking back. */
export async function withdrawBooking(deps: BookingDeps, actor: Actor, id: string): Promise<void> {
  const churchId = actor.churchId;
  const booking = await getRow(deps.db, eventBookings, churchId, id, 'Booking');
  const event = await getRow(deps.db, events, churchId, booking.eventId, 'Event');
  if (!mayBook(actor, event) && booking.requestedBy !== actor.personId) throw unauthorized('Missing permission: Content.Edit or requester of the booking');
  await deps.db.transaction(async (tx) => {
    await deleteBooking(tx, churchId, booking.id);
    await report(deps, actor, tx, [{ before: booking, action: 'destroyed' }]);
  });
}
