import { and, desc, eq, inArray, or } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '@church/common';
import { formSubmissions, forms, groupMembers, groups, people } from '../db/schema';

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

export async function timeline(db: DbOrTx, churchId: string, personIds: string[], groupIds: string[], limit = 500): Promise<TimelineEvent[]> {
  const events: TimelineEvent[] = [];
  if (personIds.length) {
    const added = await db
      .select({ personId: people.id, personName: people.displayName, date: people.createdAt })
      .from(people)
      .where(and(eq(people.churchId, churchId), inArray(people.id, personIds), eq(people.removed, false)))
      .orderBy(desc(people.createdAt))
      .limit(limit);
    events.push(...added.map((r) => ({ type: 'personAdded' as const, ...r })));

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
      .where(and(eq(formSubmissions.churchId, churchId), eq(formSubmissions.contentType, 'person'), inArray(formSubmissions.contentId, personIds)))
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
      .where(and(eq(groupMembers.churchId, churchId), or(...who)))
      .orderBy(desc(groupMembers.joinDate))
      .limit(limit);
    events.push(...joined.map((r) => ({ type: 'groupJoined' as const, ...r })));
  }
  return events.sort((a, b) => b.date.getTime() - a.date.getTime()).slice(0, limit);
}
