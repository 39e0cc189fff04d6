import { z } from 'zod';
import { Id } from '@church/common';

/**
 * A link or picture address a browser will follow or load: an absolute http(s) URL, or a path on the same site
 * (`/files/…`, as a storage on a path stores them). `javascript:`, `data:` and every other scheme, and
 * protocol-relative `//host` (or `/\host`, which browsers read the same), are refused.
 */
export function isWebUrl(value: string): boolean {
  if (value.startsWith('/')) return !/^\/[/\\]/.test(value);
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
/** `isWebUrl` as a body field; empty stays empty (null). */
export const WebUrl = z
  .string()
  .trim()
  .max(2000)
  .transform((v) => v || null)
  .refine((v) => v === null || isWebUrl(v), 'must be an http(s) URL');

/** Who may collect a household's children (B1Admin's person page → pickup people). */
export const Pickup = z.object({
  id: z.string(),
  churchId: z.string(),
  householdId: z.string(),
  personId: z.string().nullable(),
  name: z.string().nullable(),
  photoUrl: z.string().nullable(),
  relationship: z.string().nullable(),
  status: z.string(),
  notes: z.string().nullable(),
  createdDate: z.date(),
});
export const PickupSave = z.object({
  id: Id.optional(),
  householdId: Id.optional(),
  personId: Id.nullish(),
  name: z.string().trim().max(200).nullish(),
  photoUrl: WebUrl.nullish(),
  relationship: z.string().trim().max(100).nullish(),
  status: z.enum(['trusted', 'notAuthorized']).optional(),
  notes: z.string().trim().max(2000).nullish(),
});

/** A group tied to another module's record (B1Admin's plan type teams: contentType `planType`). */
export const AssociatedGroup = z.object({ id: z.string(), churchId: z.string(), contentType: z.string(), contentId: z.string(), groupId: z.string(), settings: z.string().nullable() });
export const AssociatedGroupSave = z.object({
  id: Id.optional(),
  contentType: z.string().trim().min(1).max(50).optional(),
  contentId: z.string().trim().min(1).max(200).optional(),
  groupId: Id.optional(),
  settings: z.string().max(2000).nullish(),
});
export const ContentParams = z.object({ contentType: z.string().trim().min(1).max(50), contentId: z.string().trim().min(1).max(200) });

/** A church's additional website on a sub-domain of its own (B1Admin's site → websites). */
export const Site = z.object({ id: z.string(), churchId: z.string(), name: z.string(), subDomain: z.string() });
export const SiteSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(100),
  subDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9]{1,63}$/, 'lower-case letters and digits only, such as firstchurch'),
});

/** The configuration a server admin checks (B1Admin's server admin → server health). */
export const ServerHealth = z.object({
  environment: z.string(),
  groups: z.array(z.object({ group: z.string(), items: z.array(z.object({ key: z.string(), label: z.string(), configured: z.boolean(), detail: z.string().optional() })) })),
});
const JobRun = z.object({ id: z.string(), jobName: z.string(), status: z.string(), startedAt: z.date(), durationMs: z.number().nullable(), errorMessage: z.string().nullable() });
/** Membership's background jobs from its outbox (B1Admin's server admin → jobs). */
export const JobsAnswer = z.object({
  latest: z.array(JobRun),
  recentFailures: z.array(JobRun),
  depth: z.object({ pending: z.number(), sent: z.number(), failed: z.number() }),
});
