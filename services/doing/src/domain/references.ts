import { REMOTE, type Reference, type References } from '@church/common';

/**
 * The references doing's bodies carry, declared once and checked by the shared check (`@church/common`'s
 * references.ts: one query per own table, one signed `owned` call per kind of another module, before any transaction
 * opens). People, groups, campuses and households are other modules' records; the rest are doing's own tables.
 */

/** A person or a group, as a task's or a card's `…Type` says (`automation`, `system` or none: no church record to check). */
export const personOrGroup =
  (typeField: string) =>
  (item: Record<string, unknown>): Reference | undefined =>
    item[typeField] === 'person' ? REMOTE.people : item[typeField] === 'group' ? REMOTE.groups : undefined;

/** A task's about / created by / assigned to, each by its type. */
export const TASK_REFERENCES: References = {
  associatedWithId: personOrGroup('associatedWithType'),
  createdById: personOrGroup('createdByType'),
  assignedToId: personOrGroup('assignedToType'),
  conversationId: REMOTE.conversations,
};

/** What an automation condition's `value` names, by its field: the rest are words, dates and numbers. */
const CONDITION_VALUE_KINDS: Record<string, Reference> = { groupMember: REMOTE.groups, campusId: REMOTE.campuses, householdId: REMOTE.households };

/**
 * A condition's `value` (one id, or ids separated by commas for `in`/`notIn`) as the ids it names, for the check: an
 * item `{value: [ids]}` when its field names records, else `{}`.
 */
export const conditionValueIds = (item: { field?: string | null; value?: string | null }): Record<string, unknown> =>
  item.field && Object.hasOwn(CONDITION_VALUE_KINDS, item.field) && item.value
    ? {
        field: item.field,
        value: item.value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      }
    : {};

export const CONDITION_REFERENCES: References = { value: (item) => (typeof item.field === 'string' && Object.hasOwn(CONDITION_VALUE_KINDS, item.field) ? CONDITION_VALUE_KINDS[item.field] : undefined) };
