import { z } from 'zod';
import { Email, Id } from '@church/common';

export const EVERYONE = 'everyone';

/** The request and answer shapes of `src/routes/roles/members.ts` (what it accepts and what leaves it). */

export const RoleMember = z.object({
  id: z.string(),
  churchId: z.string(),
  roleId: z.string(),
  userId: z.string(),
  addedBy: z.string().nullable(),
  /** the user's person in the church (B1Admin's role page leaves them out of the people it offers to add) */
  personId: z.string().nullable().optional(),
  user: z.object({ id: z.string(), email: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable() }).optional(),
});

/** A role id, or the Everyone role as the apps name it in a path. */
export const RoleOrEveryone = z.union([z.enum(['everyone', 'null', 'undefined']).transform(() => EVERYONE), Id]);

export const RoleMemberSave = z.object({
  id: Id.optional(),
  roleId: Id,
  userId: Id.optional(),
  email: Email.optional(),
  firstName: z.string().trim().max(100).optional(),
  lastName: z.string().trim().max(100).optional(),
  personId: Id.optional(),
});
