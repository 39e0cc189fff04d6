import { badRequest, type DbOrTx } from '@church/common';
import type { ContentDeps } from '../../deps';
import { websiteSettings } from '../../config/website';
import { activeBookings, blockoutsOverlapping, eventWithExceptions, targetNames } from '../../repos/website/calendar';
import { churchTimeZone } from '../../repos/website/events';
import { safeTimeZone } from './events';
import { conflictWindow, findConflicts, MAX_OCCURRENCES, occurrenceStarts, type Conflict, type Proposal } from '../../lib/occurrences';

/** The church's time zone (its `timeZone` setting, else the configured default), always a valid IANA name. */
export async function zoneOf(deps: Pick<ContentDeps, 'config'>, db: DbOrTx, churchId: string): Promise<string> {
  const fallback = websiteSettings(deps.config).defaultTimeZone;
  return safeTimeZone(await churchTimeZone(db, churchId, fallback), fallback);
}

/** Conflicts of a proposed event (or an existing event's bookings, `eventId` left out of the others) in its window. */
export async function conflictsOf(db: DbOrTx, churchId: string, tz: string, proposed: Proposal, eventId?: string | null): Promise<Conflict[]> {
  return (await conflictsOfEach(db, churchId, tz, [{ proposed, eventId }]))[0]!;
}

/**
 * `conflictsOf` for several proposals at once (the approvals inbox lists each pending booking with its
 * conflicts): the same answer for each, from one read of the bookings of every room and resource they name, one
 * of the blockouts over all their windows and one of the names (four queries, however many proposals).
 */
export async function conflictsOfEach(db: DbOrTx, churchId: string, tz: string, list: Array<{ proposed: Proposal; eventId?: string | null }>): Promise<Conflict[][]> {
  const books = ({ proposed }: { proposed: Proposal }) => proposed.roomIds.length > 0 || proposed.resources.length > 0;
  const asked = list.filter(books);
  if (!asked.length) return list.map(() => []);
  const roomIds = [...new Set(asked.flatMap((p) => p.proposed.roomIds))];
  const resourceIds = [...new Set(asked.flatMap((p) => p.proposed.resources.map((r) => r.resourceId)))];
  const windows = list.map((p) => conflictWindow(p.proposed.startTime ?? p.proposed.start));
  const from = new Date(Math.min(...windows.map((w) => w.start.getTime())));
  const to = new Date(Math.max(...windows.map((w) => w.end.getTime())));
  const booked = await activeBookings(db, churchId, roomIds, resourceIds);
  const blockouts = await blockoutsOverlapping(db, churchId, from, to);
  const names = await targetNames(db, churchId, roomIds, resourceIds);
  return list.map((p, i) => {
    if (!books(p)) return [];
    const window = windows[i]!;
    const rooms = new Set(p.proposed.roomIds);
    const wanted = new Set(p.proposed.resources.map((r) => r.resourceId));
    const theirs = booked.filter((b) => b.eventId !== p.eventId && ((b.roomId !== null && rooms.has(b.roomId)) || (b.resourceId !== null && wanted.has(b.resourceId))));
    const inWindow = blockouts.filter((b) => b.startTime < window.end && b.endTime > window.start);
    return findConflicts(p.proposed, { window, tz, booked: theirs, blockouts: inWindow, names });
  });
}

/**
 * An event of the church (null when it is not the church's) and the starts of its occurrences in `[from, to)`
 * (`contentInternal.eventOccurrences`, messaging's reminders): a recurring event expanded in the church's time
 * zone, exception dates left out; a request that is still pending or was rejected has none (it is on no calendar).
 */
export async function eventOccurrencesBetween(deps: Pick<ContentDeps, 'db' | 'config'>, churchId: string, eventId: string, from: Date, to: Date) {
  if (to < from) throw badRequest('to', 'must not be before from');
  const event = await eventWithExceptions(deps.db, churchId, eventId);
  if (!event) return { event: null, starts: [] };
  const live = event.approvalStatus === null || event.approvalStatus === 'approved';
  const starts = live ? occurrenceStarts(event, from, to, await zoneOf(deps, deps.db, churchId), MAX_OCCURRENCES) : [];
  return {
    event: { id: event.id, groupId: event.groupId, title: event.title, registrationEnabled: event.registrationEnabled },
    starts: starts.map((d) => d.toISOString()),
  };
}
