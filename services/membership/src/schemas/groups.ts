import { z } from 'zod';
import { Id, OptionalText, exactShape } from '@church/common';
import { GROUP_TAGS, JOIN_POLICIES } from '../domain/groups';

/** Lists arrive as arrays or as the comma-separated strings older clients send. */
export const commaList = <T>(item: z.ZodType<T, string>) =>
  z
    .union([z.array(z.string()), z.string()])
    .transform((v) => [...new Set((Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))])
    .pipe(z.array(item).max(50));

/** The request and answer shapes of `src/routes/groups.ts` (what it accepts and what leaves it). */

export const Tag = z.string().toLowerCase().pipe(z.enum(GROUP_TAGS, { message: `must be one of ${GROUP_TAGS.join(', ')}` }));

/**
 * A group as the spec names it and the apps read it: `tags` and `labels` are comma-separated strings (the apps
 * split them), `labelArray` the labels as a list (B1Admin's group screens).
 */
export const Group = z.object({
  id: z.string(),
  churchId: z.string(),
  categoryName: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  trackAttendance: z.boolean(),
  parentPickup: z.boolean(),
  printNametag: z.boolean(),
  about: z.string().nullable(),
  photoUrl: z.string().nullable(),
  tags: z.string(),
  labels: z.string(),
  labelArray: z.array(z.string()),
  meetingTime: z.string().nullable(),
  meetingLocation: z.string().nullable(),
  publicRoster: z.boolean(),
  parentGroupId: z.string().nullable(),
  archived: z.boolean(),
  joinPolicy: z.string(),
});

export const GroupList = z.array(Group);

/** Lists built by `toGroup`, field by field in this schema's order (see `exactShape`). */
export const GroupRecords = exactShape(z.array(Group));
/** The staff lists (`/groups`, `/groups/tag/:tag`): each group with its number of members (B1Admin's groups page). */
export const CountedGroupRecords = exactShape(z.array(Group.extend({ memberCount: z.number() })));

export const Label = z.string().max(100);

export const GroupSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(200).optional(),
  categoryName: OptionalText,
  trackAttendance: z.boolean().optional(),
  parentPickup: z.boolean().optional(),
  printNametag: z.boolean().optional(),
  about: z.string().max(20_000).nullish(),
  photoUrl: OptionalText,
  // The apps send back what they read: tags and labels as strings, labels again as `labelArray` (which wins).
  tags: commaList(Tag).optional(),
  labels: z.preprocess((v) => (v === null ? [] : v), commaList(Label)).optional(),
  labelArray: z.preprocess((v) => (v === null ? [] : v), commaList(Label)).optional(),
  meetingTime: OptionalText,
  meetingLocation: OptionalText,
  publicRoster: z.boolean().optional(),
  parentGroupId: Id.nullish(),
  archived: z.boolean().optional(),
  joinPolicy: z.enum(JOIN_POLICIES, { message: `must be one of ${JOIN_POLICIES.join(', ')}` }).optional(),
});

export const Health = z.object({
  memberCount: z.number(),
  leaderCount: z.number(),
  averageAge: z.number().nullable(),
  joins90: z.number(),
  leaves90: z.number(),
  churnRate90: z.number(),
  monthly: z.array(z.object({ month: z.string(), joins: z.number(), leaves: z.number() })),
  demographics: z.object({
    gender: z.array(z.object({ name: z.string(), count: z.number() })),
    ageGroups: z.array(z.object({ group: z.string(), female: z.number(), male: z.number(), unassigned: z.number() })),
  }),
});

export const HealthRow = z.object({
  groupId: z.string(),
  name: z.string(),
  categoryName: z.string().nullable(),
  memberCount: z.number(),
  leaderCount: z.number(),
  averageAge: z.number().nullable(),
  femaleCount: z.number(),
  maleCount: z.number(),
  joins90: z.number(),
  leaves90: z.number(),
  churnRate90: z.number(),
});

export { ChurchParams } from '@church/common';

export const TagParams = z.object({ tag: z.string().trim().toLowerCase().min(1).max(50) });
