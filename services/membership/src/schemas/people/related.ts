import { z } from 'zod';
import { Id, IsoDate } from '@church/common';

/** The request and answer shapes of `src/routes/people/related.ts` (what it accepts and what leaves it). */

export const AttendanceFilter = z.object({
  campusId: Id.optional(),
  serviceId: Id.optional(),
  serviceTimeId: Id.optional(),
  groupId: Id.optional(),
  categoryName: z.string().trim().min(1).max(100).optional(),
  startDate: IsoDate.optional(),
  endDate: IsoDate.optional(),
});
