import type { z } from 'zod';
import { attendanceInternal, callInternal, type InternalClient } from '@church/common';

/**
 * Attendance's internal routes membership asks (signed; `callInternal`'s one failure policy: attendance briefly
 * away → 503 with Retry-After, anything else → a 502 naming attendance, never an empty list that looks like
 * "nobody").
 */
export type VisitFilter = z.input<typeof attendanceInternal.people.body>;

/** Ids of the people who attended as the filter says. */
export async function peopleWhoAttended(internal: InternalClient, filter: VisitFilter): Promise<string[]> {
  return (await callInternal(internal, attendanceInternal.people, filter)).personIds;
}

/** Ids of the groups meeting at the given places. */
export async function groupsMeetingAt(internal: InternalClient, places: z.input<typeof attendanceInternal.groups.body>): Promise<string[]> {
  return (await callInternal(internal, attendanceInternal.groups, places)).groupIds;
}
