import { z } from 'zod';
import { Id } from '@church/common';

/** The request and answer shapes of `src/routes/roles/permissions.ts` (what it accepts and what leaves it). */

export const RolePermission = z.object({
  id: z.string(),
  churchId: z.string(),
  roleId: z.string().nullable(),
  apiName: z.string(),
  contentType: z.string(),
  contentId: z.string().nullable(),
  action: z.string(),
});

/** A role id, or the Everyone role: `null`, and `everyone` or `undefined` as B1Admin's role page writes a role without id. */
export const RoleRef = z.union([z.enum(['null', 'everyone', 'undefined']).transform(() => null), Id]);

/**
 * Only an explicit `roleId: null` addresses the Everyone role: an omitted roleId keeps an existing grant's role
 * and is required to create one (a forgotten field must not grant to every user).
 */
export const RolePermissionSave = z.object({
  id: Id.optional(),
  roleId: Id.nullable().optional(),
  apiName: z.string().trim().max(50).optional(),
  contentType: z.string().trim().min(1).max(50),
  contentId: z.string().trim().max(100).nullish(),
  action: z.string().trim().min(1).max(50),
});

export const Permission = z.object({ apiName: z.string(), section: z.string(), contentType: z.string(), action: z.string(), displayName: z.string() });
