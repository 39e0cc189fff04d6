import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { formSubmissions, forms, groupMembers, groups, people } from '../db/schema';
import { MEMBER_LEVEL_STATUSES } from '../lib/people';

/**
 * Whose events a timeline read may return (domain/people/timeline.ts decides it from the caller): everyone (`all`); the
 * members and staff who have not opted out, plus oneself (`membersOnly`); else oneself only.
 */
export interface TimelineScope {
  all: boolean;
  membersOnly: boolean;
  personId: string | null;
}

/** The people of events this scope may see (undefined: no limit). */
function visiblePeople(scope: TimelineScope): SQL | undefined {
  if (scope.all) return undefined;
  const self = scope.personId ? eq(people.id, scope.personId) : sql`false`;
  if (!scope.membersOnly) return self;
  return or(self, and(inArray(people.membershipStatus, MEMBER_LEVEL_STATUSES), eq(people.optedOut, false)));
}

/** When each of these people was added, newest first. */
export function peopleAdded(db: DbOrTx, churchId: string, personIds: string[], scope: TimelineScope, limit: number) {
  return db
    .select({ personId: people.id, personName: people.displayName, date: people.createdAt })
    .from(people)
    .where(and(eq(people.churchId, churchId), inArray(people.id, personIds), eq(people.removed, false), visiblePeople(scope)))
    .orderBy(desc(people.createdAt))
    .limit(limit);
}

/** Form submissions about these people (content type `person`), newest first, with the form's name. */
export function formsSubmittedAbout(db: DbOrTx, churchId: string, personIds: string[], limit: number) {
  return db
    .select({
      personId: formSubmissions.contentId,
      date: formSubmissions.submissionDate,
      formId: formSubmissions.formId,
      formName: forms.name,
      formSubmissionId: formSubmissions.id,
      personName: people.displayName,
    })
    .from(formSubmissions)
    .leftJoin(forms, and(eq(forms.id, formSubmissions.formId), eq(forms.churchId, churchId)))
    .leftJoin(people, and(eq(people.id, formSubmissions.contentId), eq(people.churchId, churchId)))
    .where(and(eq(formSubmissions.churchId, churchId), eq(formSubmissions.contentType, 'person'), inArray(formSubmissions.contentId, personIds)))
    .orderBy(desc(formSubmissions.submissionDate))
    .limit(limit);
}

/** When these people joined groups, and when anyone joined these groups (live groups only), newest first. */
export function groupsJoined(db: DbOrTx, churchId: string, personIds: string[], groupIds: string[], scope: TimelineScope, limit: number) {
  const who = [personIds.length ? inArray(groupMembers.personId, personIds) : undefined, groupIds.length ? inArray(groupMembers.groupId, groupIds) : undefined];
  return db
    .select({
      personId: groupMembers.personId,
      date: groupMembers.joinDate,
      groupId: groupMembers.groupId,
      groupName: groups.name,
      personName: people.displayName,
    })
    .from(groupMembers)
    .innerJoin(groups, and(eq(groups.id, groupMembers.groupId), eq(groups.churchId, churchId), eq(groups.removed, false)))
    .leftJoin(people, and(eq(people.id, groupMembers.personId), eq(people.churchId, churchId)))
    .where(and(eq(groupMembers.churchId, churchId), or(...who), visiblePeople(scope)))
    .orderBy(desc(groupMembers.joinDate))
    .limit(limit);
}
