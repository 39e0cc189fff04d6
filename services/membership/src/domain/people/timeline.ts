import { z } from 'zod';
import { hasPermission, isMember } from '@church/auth';
import type { Actor, DbOrTx } from '@church/common';
import { formsSubmittedAbout, groupsJoined, peopleAdded, type TimelineScope } from '../../repos/timeline';

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
export type TimelineViewer = TimelineScope;

export async function timeline(db: DbOrTx, churchId: string, personIds: string[], groupIds: string[], viewer: TimelineViewer, limit = 500): Promise<TimelineEvent[]> {
  const events: TimelineEvent[] = [];
  const ownOnly = viewer.all ? personIds : personIds.filter((id) => viewer.personId && id.toLowerCase() === viewer.personId.toLowerCase());
  if (personIds.length) {
    events.push(...(await peopleAdded(db, churchId, personIds, viewer, limit)).map((r) => ({ type: 'personAdded' as const, ...r })));
  }
  if (ownOnly.length) {
    events.push(...(await formsSubmittedAbout(db, churchId, ownOnly, limit)).map((r) => ({ type: 'formSubmitted' as const, ...r, personId: r.personId! })));
  }
  if (personIds.length || groupIds.length) {
    events.push(...(await groupsJoined(db, churchId, personIds, groupIds, viewer, limit)).map((r) => ({ type: 'groupJoined' as const, ...r })));
  }
  return events.sort((a, b) => b.date.getTime() - a.date.getTime()).slice(0, limit);
}

/** The timeline the caller may see, by the people routes' who-sees-whom rules (see TimelineViewer). */
export function timelineFor(db: DbOrTx, actor: Actor, personIds: string[], groupIds: string[]): Promise<TimelineEvent[]> {
  const all = hasPermission(actor, 'People.View');
  return timeline(db, actor.churchId, personIds, groupIds, { all, membersOnly: !all && isMember(actor), personId: actor.personId ?? null });
}
