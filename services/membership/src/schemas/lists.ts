import { z } from 'zod';
import { Id } from '@church/common';

/** One condition of a saved list's rules (B1Admin's listRules.ts): a provider and what it compares. */
export const RuleCondition = z.object({
  provider: z.enum(['person', 'group', 'form', 'field', 'giving', 'attendance', 'serving', 'list']),
  field: z.string().max(60).nullish(),
  operator: z.string().max(40).nullish(),
  value: z.union([z.string().max(500), z.number(), z.boolean()]).nullish(),
  entityId: z.string().max(2000).nullish(),
  entityType: z.string().max(40).nullish(),
  daysAgo: z.number().int().min(0).max(36500).nullish(),
  from: z.string().max(40).nullish(),
  to: z.string().max(40).nullish(),
});
export type RuleCondition = z.output<typeof RuleCondition>;
export interface RuleGroup {
  match: 'all' | 'any' | 'none';
  conditions?: RuleCondition[] | null;
  groups?: RuleGroup[] | null;
}
/** A rules tree: conditions and nested groups, matched all, any or none (at most 5 levels, 100 conditions a level). */
export const RuleGroup: z.ZodType<RuleGroup> = z.lazy(() =>
  z.object({
    match: z.enum(['all', 'any', 'none']).default('all'),
    conditions: z.array(RuleCondition).max(100).nullish(),
    groups: z.array(RuleGroup).max(20).nullish(),
  }),
);

export const SavedList = z.object({
  id: z.string(),
  churchId: z.string(),
  createdByPersonId: z.string().nullable(),
  createdByPersonName: z.string().nullable(),
  name: z.string(),
  category: z.string().nullable(),
  conditions: z.unknown(),
  rules: z.unknown(),
  scope: z.string(),
  householdInclusion: z.string(),
  autoRefresh: z.boolean(),
  notifyOnChange: z.boolean(),
  createdAt: z.date(),
  updatedAt: z.date(),
});

export const SavedListSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(200),
  category: z.string().trim().max(100).nullish(),
  /** the screen's own filter state, kept as sent (at most 100 KB of JSON) */
  conditions: z
    .unknown()
    .refine((v) => v === undefined || JSON.stringify(v).length <= 100_000, 'conditions are too large')
    .optional(),
  rules: RuleGroup.nullish(),
  scope: z.enum(['private', 'org']).optional(),
  householdInclusion: z.enum(['none', 'children', 'household']).nullish(),
  autoRefresh: z.boolean().optional(),
  notifyOnChange: z.boolean().optional(),
});
export const PreviewBody = z.object({ rules: RuleGroup, householdInclusion: z.enum(['none', 'children', 'household']).nullish() });
