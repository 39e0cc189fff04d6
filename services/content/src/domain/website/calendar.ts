import type { FastifyInstance } from 'fastify';
import type { DbOrTx } from '@church/common';
import { contentDeps } from '../../deps';
import { websiteSettings } from '../../config/website';
import { activeBookings, blockoutsOverlapping, targetNames } from '../../repos/website/calendar';
import { churchTimeZone } from '../../repos/website/events';
import { safeTimeZone } from './events';
import { conflictWindow, findConflicts, type Conflict, type Proposal } from './occurrences';

/** The church's time zone (its `timeZone` setting, else the configured default), always a valid IANA name. */
export async function zoneOf(app: FastifyInstance, db: DbOrTx, churchId: string): Promise<string> {
  const fallback = websiteSettings(contentDeps(app).config).defaultTimeZone;
  return safeTimeZone(await churchTimeZone(db, churchId, fallback), fallback);
}

/** Conflicts of a proposed event (or an existing event's bookings, `eventId` left out of the others) in its window. */
export async function conflictsOf(db: DbOrTx, churchId: string, tz: string, proposed: Proposal, eventId?: string | null): Promise<Conflict[]> {
  if (!proposed.roomIds.length && !proposed.resources.length) return [];
  const window = conflictWindow(proposed.startTime ?? proposed.start);
  const resourceIds = proposed.resources.map((r) => r.resourceId);
  const booked = await activeBookings(db, churchId, proposed.roomIds, resourceIds, eventId ?? undefined);
  const blockouts = await blockoutsOverlapping(db, churchId, window.start, window.end);
  const names = await targetNames(db, churchId, proposed.roomIds, resourceIds);
  return findConflicts(proposed, { window, tz, booked, blockouts, names });
}
