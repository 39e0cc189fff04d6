import { z } from 'zod';

const Uuid = z.uuid();

const Places = { churchId: Uuid, campusId: Uuid.optional(), serviceId: Uuid.optional(), serviceTimeId: Uuid.optional() };

/** Attendance's internal routes other modules call (signed; `callInternal`). */
export const attendanceInternal = {
  /** the people with a visit matching the filter (a place, a group or a category's groups, a date range) */
  people: {
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
  groups: {
    module: 'attendance' as const,
    path: '/attendance/internal/groups',
    body: z.object(Places),
    answer: z.object({ groupIds: z.array(z.string()).max(100_000) }),
  },
  /** the church's campuses by id (all live ones without `ids`), for names other modules show */
  campuses: {
    module: 'attendance' as const,
    path: '/attendance/internal/campuses',
    body: z.object({ churchId: Uuid, ids: z.array(Uuid).max(1000).optional() }),
    answer: z.array(z.object({ id: z.string(), name: z.string() })),
  },
} as const;

