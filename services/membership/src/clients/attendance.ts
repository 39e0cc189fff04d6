import { z } from 'zod';
import { callInternal, type InternalClient } from '@church/common';

/**
 * Attendance's internal routes membership asks (signed; `callInternal`'s one failure policy: attendance briefly
 * away → 503 with Retry-After, anything else → a 502 naming attendance, never an empty list that looks like
 * "nobody"). These contracts belong in `packages/common/src/contracts.ts` beside `attendanceInternal.campuses`
 * (asked of the lead); until then they live here, behind one function each.
 */
const Uuid = z.uuid();
const Places = { churchId: Uuid, campusId: Uuid.optional(), serviceId: Uuid.optional(), serviceTimeId: Uuid.optional() };

export const attendanceCalls = {
  /** the people with a visit matching the filter (a place, a group or a category's groups, a date range) */
  peopleWithVisits: {
    module: 'attendance' as const,
    path: '/attendance/internal/people',
    body: z.object({
      ...Places,
      groupId: Uuid.optional(),
      categoryName: z.string().optional(),
      groupIds: z.array(Uuid).max(5000).optional(),
      startDate: z.string().optional(),
      endDate: z.string().optional(),
    }),
    answer: z.object({ personIds: z.array(Uuid).max(100_000) }),
  },
  /** the groups that meet at a campus, service or service time */
  groupsAtPlaces: {
    module: 'attendance' as const,
    path: '/attendance/internal/groups',
    body: z.object(Places),
    answer: z.object({ groupIds: z.array(z.string()).max(100_000) }),
  },
} as const;

export type VisitFilter = z.input<typeof attendanceCalls.peopleWithVisits.body>;

/** Ids of the people who attended as the filter says. */
export async function peopleWhoAttended(internal: InternalClient, filter: VisitFilter): Promise<string[]> {
  return (await callInternal(internal, attendanceCalls.peopleWithVisits, filter)).personIds;
}

/** Ids of the groups meeting at the given places. */
export async function groupsMeetingAt(internal: InternalClient, places: z.input<typeof attendanceCalls.groupsAtPlaces.body>): Promise<string[]> {
  return (await callInternal(internal, attendanceCalls.groupsAtPlaces, places)).groupIds;
}
