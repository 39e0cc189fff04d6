import { z } from 'zod';

/** The request and answer shapes of `src/routes/userchurch.ts` (what it accepts and what leaves it). */

export const UserChurch = z.object({
  id: z.string(),
  userId: z.string(),
  churchId: z.string(),
  personId: z.string().nullable(),
  lastAccessed: z.date().nullable(),
});

export const UserChurchWithChurch = UserChurch.extend({ church: z.object({ id: z.string(), name: z.string(), subDomain: z.string().nullable() }) });
