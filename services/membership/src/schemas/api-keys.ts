import { z } from 'zod';
import { IsoDate } from '@church/common';

/** A key as B1Admin's developer screen lists it (never its hash; `key` only in the create answer). */
export const ApiKeyOut = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string(),
  personId: z.string().nullable(),
  name: z.string(),
  prefix: z.string(),
  /** space-separated, as the screen splits them */
  scopes: z.string(),
  lastUsedAt: z.date().nullable(),
  expiresAt: z.date().nullable(),
  createdAt: z.date(),
  key: z.string().optional(),
});

export const ApiKeyCreate = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  /** a list, or a space- or comma-separated string */
  scopes: z.union([z.array(z.string().max(50)).max(50), z.string().max(2000)]),
  /** the last day the key works (`2027-01-31`, the screen's date input), or an instant */
  expiresAt: IsoDate.nullish(),
});

export const ScopeCatalog = z.object({ scopes: z.array(z.string()), catalog: z.array(z.object({ name: z.string(), description: z.string() })) });

/** The key in the body (`{key}`) or as `Authorization: Bearer cak_…`. */
export const TokenRequest = z.object({ key: z.string().max(200).optional() }).optional();
export const TokenAnswer = z.object({ token: z.string(), expiresIn: z.number(), expiresAt: z.date(), scope: z.string(), churchId: z.string() });
