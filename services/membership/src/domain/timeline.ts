import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '@church/common';
import { formSubmissions, forms, groupMembers, groups, people } from '../db/schema';
import { MEMBER_LEVEL_STATUSES } from './person';

/**
 * A people/groups timeline built from membership's own records: when a person was added, when someone
 * joined a group, when a form about a person was submitted. Newest first, at most `limit` events.
 */
export const TimelineEvent = z.object({
  type: z.enum(['personAdded', 'groupJoined', 'formSubmitted']),
  date: z.date(),
  personId: z.string(),
  personName: z.string().nullish(),
  groupId: z.string().nullish(),
  groupName: z.string().nullish(),
  formId: z.string().nullish(),
  formName: z.string().nullish(),
  formSubmissionId: z.string().nullish(),
});
export type TimelineEvent = z.output<typeof TimelineEvent>;

/**
 * Whom a timeline may show, by the people routes' rules: People.View holders anyone (`all`); a Member-level
 * viewer the members and staff who have not opted out, plus themself; anyone else only themself. Form
 * submissions (what someone answered, who submitted it) only to People.View holders, or about oneself.
 */
export interface TimelineViewer {
  all: boolean;
  membersOnly: boolean;
  personId: string | null;
}

/** The people of events this viewer may see (undefined: no limit). */
function visiblePeople(viewer: TimelineViewer): SQL | undefined {
  if (viewer.all) return undefined;
  const self = viewer.personId ? eq(people.id, viewer.personId) : sql`false`;
  if (!viewer.membersOnly) return self;
  return or(self, and(inArray(people.membershipStatus, MEMBER_LEVEL_STATUSES), eq(people.optedOut, false)));
}

export async function timeline(db: DbOrTx, churchId: string, personIds: string[], groupIds: string[], viewer: TimelineViewer, limit = 500): Promise<TimelineEvent[]> {
  const events: TimelineEvent[] = [];
  const visible = visiblePeople(viewer);
  const ownOnly = viewer.all ? personIds : personIds.filter((id) => viewer.personId && id.toLowerCase() === viewer.personId.toLowerCase());
  if (personIds.length) {
    const added = await db
      .select({ personId: people.id, personName: people.displayName, date: people.createdAt })
      .from(people)
      .where(and(eq(people.churchId, churchId), inArray(people.id, personIds), eq(people.removed, false), visible))
      .orderBy(desc(people.createdAt))
      .limit(limit);
    events.push(...added.map((r) => ({ type: 'personAdded' as const, ...r })));
  }
  if (ownOnly.length) {
    const submitted = await db
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
      .where(and(eq(formSubmissions.churchId, churchId), eq(formSubmissions.contentType, 'person'), inArray(formSubmissions.contentId, ownOnly)))
      .orderBy(desc(formSubmissions.submissionDate))
      .limit(limit);
    events.push(...submitted.map((r) => ({ type: 'formSubmitted' as const, ...r, personId: r.personId! })));
  }
  if (personIds.length || groupIds.length) {
    const who = [personIds.length ? inArray(groupMembers.personId, personIds) : undefined, groupIds.length ? inArray(groupMembers.groupId, groupIds) : undefined];
    const joined = await db
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
      .where(and(eq(groupMembers.churchId, churchId), or(...who), visible))
      .orderBy(desc(groupMembers.joinDate))
      .limit(limit);
    events.push(...joined.map((r) => ({ type: 'groupJoined' as const, ...r })));
  }
  return events.sort((a, b) => b.date.getTime() - a.date.getTime()).slice(0, limit);
}
