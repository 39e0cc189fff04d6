import { z } from 'zod';
import { IdList } from '@church/common';

/** The request and answer shapes of `src/routes/people/read.ts` (what it accepts and what leaves it). */

export const Ids = z.object({ ids: IdList });

export const Counts = z.array(z.object({ name: z.string(), count: z.number() }));

export const Demographics = z.object({
  total: z.number(),
  ageGroups: z.array(z.object({ group: z.string(), female: z.number(), male: z.number(), unassigned: z.number() })),
  membershipStatus: Counts,
  gender: Counts,
  maritalStatus: Counts,
  campus: z.array(z.object({ name: z.string(), count: z.number(), id: z.string() })),
});
