import { randomUUID } from 'node:crypto';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { groupMembers, people, settings, visibilityPreferences } from '../db/schema';
import { peopleScope, peopleWhere, type PersonRecord } from './people';

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

export type PreferencesRow = typeof visibilityPreferences.$inferSelect;
export type Visibilities = Partial<Pick<PreferencesRow, 'address' | 'phoneNumber' | 'email'>>;

export async function preferencesOf(db: DbOrTx, churchId: string, personId: string): Promise<PreferencesRow | undefined> {
  const [row] = await db
    .select()
    .from(visibilityPreferences)
    .where(and(eq(visibilityPreferences.churchId, churchId), eq(visibilityPreferences.personId, personId)))
    .limit(1);
  return row;
}

/**
 * The person's preferences row (one per person): a new one with `initial`, or only `changed` set on the existing
 * one (nothing but its `updatedAt` when `changed` is empty).
 */
export async function upsertPreferences(
  db: DbOrTx,
  churchId: string,
  initial: { personId: string; address: string; phoneNumber: string; email: string },
  changed: Visibilities,
): Promise<PreferencesRow> {
  const [row] = await db
    .insert(visibilityPreferences)
    .values({ ...initial, id: randomUUID(), churchId })
    .onConflictDoUpdate({
      target: [visibilityPreferences.churchId, visibilityPreferences.personId],
      set: Object.keys(changed).length ? { ...changed, updatedAt: new Date() } : { updatedAt: new Date() },
    })
    .returning();
  return row!;
}

/** The church's `directoryVisibility` setting as stored (undefined when it has none). */
export async function directorySetting(db: DbOrTx, churchId: string): Promise<string | null | undefined> {
  const [row] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(and(eq(settings.churchId, churchId), eq(settings.keyName, 'directoryVisibility')))
    .limit(1);
  return row?.value;
}

/** The caller's membership status as the church records it now (the token's copy may be older). */
export async function statusOf(db: DbOrTx, churchId: string, personId: string | null): Promise<string | undefined> {
  if (!personId) return undefined;
  const [row] = await db
    .select({ status: people.membershipStatus })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.id, personId), eq(people.removed, false)))
    .limit(1);
  return row?.status;
}

/** True when the two people are in at least one common group. */
export async function shareAGroup(db: DbOrTx, churchId: string, a: string, b: string): Promise<boolean> {
  const mine = db
    .select({ groupId: groupMembers.groupId })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, a)));
  const [row] = await db
    .select({ one: sql<number>`1` })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, b), sql`${groupMembers.groupId} in ${mine}`))
    .limit(1);
  return Boolean(row);
}
