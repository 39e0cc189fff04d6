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

/**
 * How large a rules tree may be: conditions and groups counted over the whole tree (and, when it is evaluated or
 * saved, over the lists it refers to as well), groups nested at most `nesting` levels, `list` references followed
 * at most `listDepth` deep. A real church's lists hold a handful of conditions; these only stop a tree that would
 * tie the database up.
 */
export const RULE_BOUNDS = { conditions: 300, groups: 100, nesting: 5, listDepth: 3 } as const;

/** What is wrong with the size of a tree as sent, before it is parsed (walked without recursion): a message, or none. */
function oversize(tree: unknown): { path: Array<string | number>; message: string } | undefined {
  let conditions = 0;
  let groups = 0;
  const stack: Array<{ node: unknown; level: number; path: Array<string | number> }> = [{ node: tree, level: 1, path: [] }];
  while (stack.length) {
    const { node, level, path } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    const { conditions: cs, groups: gs } = node as { conditions?: unknown; groups?: unknown };
    if (Array.isArray(cs)) conditions += cs.length;
    if (conditions > RULE_BOUNDS.conditions) return { path: [], message: `rules may hold at most ${RULE_BOUNDS.conditions} conditions in all` };
    if (!Array.isArray(gs) || !gs.length) continue;
    groups += gs.length;
    if (groups > RULE_BOUNDS.groups) return { path: [], message: `rules may hold at most ${RULE_BOUNDS.groups} groups in all` };
    if (level >= RULE_BOUNDS.nesting) return { path: [...path, 'groups'], message: `groups may be nested at most ${RULE_BOUNDS.nesting} levels deep` };
    gs.forEach((g, i) => stack.push({ node: g, level: level + 1, path: [...path, 'groups', i] }));
  }
  return undefined;
}

const RuleGroupShape: z.ZodType<RuleGroup> = z.lazy(() =>
  z.object({
    match: z.enum(['all', 'any', 'none']).default('all'),
    conditions: z.array(RuleCondition).max(100).nullish(),
    groups: z.array(RuleGroupShape).max(20).nullish(),
  }),
);
/**
 * A rules tree: conditions and nested groups, matched all, any or none, within `RULE_BOUNDS` (its size is checked
 * before the tree is parsed, so an oversized or too deeply nested body is a 400 naming it, never work or a crash).
 */
export const RuleGroup = z
  .unknown()
  .superRefine((tree, ctx) => {
    const problem = oversize(tree);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: tree });
  })
  .pipe(RuleGroupShape);

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
