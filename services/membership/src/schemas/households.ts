import { z } from 'zod';
import { Id } from '@church/common';

/** The request and answer shapes of `src/routes/households.ts` (what it accepts and what leaves it). */

export const Household = z.object({ id: z.string(), churchId: z.string(), name: z.string().nullish(), createdAt: z.date().nullish() });

export const HouseholdSave = z.object({ id: Id.optional(), name: z.string().trim().max(200).nullish() });
