import { z } from 'zod';
import { Id } from '@church/common';
import { PersonSave } from '../../domain/people/person';

/** The request and answer shapes of `src/routes/people/write.ts` (what it accepts and what leaves it). */

export const Assignment = z
  .object({ id: Id.optional(), personId: Id.optional(), householdRole: z.string().trim().max(30).nullish() })
  .superRefine((v, ctx) => {
    if (!v.id && !v.personId) ctx.addIssue({ code: 'custom', path: ['personId'], message: 'personId (or id) is required' });
  })
  .transform((v) => ({ personId: (v.personId ?? v.id)!, householdRole: v.householdRole }));

export const PersonIds = z
  .array(Id)
  .min(1, 'personIds is required')
  .max(10_000)
  .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]);

/** The fields B1Admin's bulk edit sets on many people at once, validated as a person save validates them. */
export const BulkUpdates = PersonSave.pick({ membershipStatus: true, maritalStatus: true, gender: true, optedOut: true, campusId: true, grade: true, school: true }).strict();
