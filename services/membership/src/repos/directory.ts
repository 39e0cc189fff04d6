import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { groupMembers, people, visibilityPreferences } from '../db/schema';
import type { PersonRecord } from '../domain/person';
import { peopleScope, peopleWhere } from './people';

/**
 * The people the directory lists, by name: every live person of the church (`statuses` null: staff), or the live
 * people of those statuses who have not opted out.
 */
export function directoryPeople(db: DbOrTx, churchId: string, statuses: readonly string[] | null): Promise<PersonRecord[]> {
  if (!statuses) return peopleWhere(db, peopleScope(churchId));
  return peopleWhere(db, peopleScope(churchId, {}, inArray(people.membershipStatus, [...statuses]), eq(people.optedOut, false)));
}

/** The saved visibility preferences of the people, by person id (one statement). */
export async function preferencesByPerson(db: DbOrTx, churchId: string, personIds: string[]) {
  if (!personIds.length) return new Map<string, typeof visibilityPreferences.$inferSelect>();
  const rows = await db
    .select()
    .from(visibilityPreferences)
    .where(and(eq(visibilityPreferences.churchId, churchId), inArray(visibilityPreferences.personId, personIds)));
  return new Map(rows.map((r) => [r.personId, r]));
}

/** The people who share at least one group with the person (the person left out). */
export async function groupmatesOf(db: DbOrTx, churchId: string, personId: string): Promise<Set<string>> {
  const mine = db
    .select({ groupId: groupMembers.groupId })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, personId)));
  const rows = await db
    .selectDistinct({ personId: groupMembers.personId })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), ne(groupMembers.personId, personId), sql`${groupMembers.groupId} in ${mine}`));
  return new Set(rows.map((r) => r.personId));
}
