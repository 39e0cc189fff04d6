import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import {
  answers,
  formSubmissions,
  groupJoinRequests,
  groupMembers,
  groups,
  householdPickups,
  households,
  memberPermissions,
  people,
  personFieldValues,
  personFields,
  userChurches,
  users,
  visibilityPreferences,
} from '../db/schema';

/** Membership's records about one person, for the export (the person record itself is read by the caller). */
export async function membershipRecordsOf(db: DbOrTx, churchId: string, personId: string, householdId: string | null) {
  const [household, groupRows, visibility, fieldValues, pickups, joinRequests, permissions, account] = await Promise.all([
    householdId ? db.select({ id: households.id, name: households.name }).from(households).where(and(eq(households.churchId, churchId), eq(households.id, householdId))) : [],
    db
      .select({ groupId: groupMembers.groupId, groupName: groups.name, leader: groupMembers.leader, joinDate: groupMembers.joinDate })
      .from(groupMembers)
      .innerJoin(groups, and(eq(groups.id, groupMembers.groupId), eq(groups.churchId, churchId)))
      .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, personId))),
    db.select().from(visibilityPreferences).where(and(eq(visibilityPreferences.churchId, churchId), eq(visibilityPreferences.personId, personId))),
    db
      .select({ field: personFields.name, value: personFieldValues.value })
      .from(personFieldValues)
      .innerJoin(personFields, and(eq(personFields.id, personFieldValues.fieldId), eq(personFields.churchId, churchId)))
      .where(and(eq(personFieldValues.churchId, churchId), eq(personFieldValues.personId, personId))),
    db.select().from(householdPickups).where(and(eq(householdPickups.churchId, churchId), eq(householdPickups.personId, personId))),
    db.select().from(groupJoinRequests).where(and(eq(groupJoinRequests.churchId, churchId), eq(groupJoinRequests.personId, personId))),
    db.select().from(memberPermissions).where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, personId))),
    db
      .select({ email: users.email, firstName: users.firstName, lastName: users.lastName, lastLogin: users.lastLogin, createdAt: users.createdAt })
      .from(userChurches)
      .innerJoin(users, eq(users.id, userChurches.userId))
      .where(and(eq(userChurches.churchId, churchId), eq(userChurches.personId, personId))),
  ]);
  return { household: household[0] ?? null, groups: groupRows, visibilityPreferences: visibility, customFields: fieldValues, pickupPermissions: pickups, groupJoinRequests: joinRequests, formPermissions: permissions, account: account[0] ?? null };
}

/**
 * Removes what identifies the person in membership, in the caller's transaction: the record keeps its id (giving's
 * donations and attendance's visits still count it) and becomes "Anonymized Person", removed and opted out; the
 * records that only describe the person go (memberships, preferences, custom values, pickup entries, join
 * requests, form permissions, the answers of forms submitted about them) and their login is unlinked from it.
 * Answers the user linked to it, if any.
 */
export async function anonymizePerson(db: DbOrTx, churchId: string, personId: string): Promise<{ userIds: string[]; photo: string | null }> {
  const [before] = await db.select({ userId: people.userId, photo: people.photo, householdId: people.householdId }).from(people).where(and(eq(people.churchId, churchId), eq(people.id, personId)));
  // A household's name is the family's: the person moves to one of their own, and an emptied one goes.
  const own = randomUUID();
  await db.insert(households).values({ id: own, churchId, name: 'Anonymized' });
  await db
    .update(people)
    .set({
      firstName: 'Anonymized',
      lastName: 'Person',
      displayName: 'Anonymized Person',
      middleName: null,
      nickName: null,
      prefix: null,
      suffix: null,
      email: null,
      homePhone: null,
      mobilePhone: null,
      workPhone: null,
      address1: null,
      address2: null,
      city: null,
      state: null,
      zip: null,
      birthDate: null,
      anniversary: null,
      gender: null,
      maritalStatus: null,
      photo: null,
      photoUpdated: null,
      nametagNotes: null,
      school: null,
      grade: null,
      conversationId: null,
      userId: null,
      householdId: own,
      householdRole: 'Head',
      optedOut: true,
      removed: true,
      updatedAt: new Date(),
    })
    .where(and(eq(people.churchId, churchId), eq(people.id, personId)));
  const subs = db.select({ id: formSubmissions.id }).from(formSubmissions).where(and(eq(formSubmissions.churchId, churchId), eq(formSubmissions.contentType, 'person'), eq(formSubmissions.contentId, personId)));
  await db.delete(answers).where(and(eq(answers.churchId, churchId), inArray(answers.formSubmissionId, subs)));
  await db.delete(groupMembers).where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, personId)));
  await db.delete(visibilityPreferences).where(and(eq(visibilityPreferences.churchId, churchId), eq(visibilityPreferences.personId, personId)));
  await db.delete(personFieldValues).where(and(eq(personFieldValues.churchId, churchId), eq(personFieldValues.personId, personId)));
  await db.delete(householdPickups).where(and(eq(householdPickups.churchId, churchId), eq(householdPickups.personId, personId)));
  await db.delete(groupJoinRequests).where(and(eq(groupJoinRequests.churchId, churchId), eq(groupJoinRequests.personId, personId)));
  await db.delete(memberPermissions).where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, personId)));
  if (before?.householdId) {
    const left = await db.select({ id: people.id }).from(people).where(and(eq(people.churchId, churchId), eq(people.householdId, before.householdId))).limit(1);
    if (!left.length) await db.delete(households).where(and(eq(households.churchId, churchId), eq(households.id, before.householdId)));
  }
  const links = await db.delete(userChurches).where(and(eq(userChurches.churchId, churchId), eq(userChurches.personId, personId))).returning({ userId: userChurches.userId });
  const userIds = [...new Set([...links.map((l) => l.userId), ...(before?.userId ? [before.userId] : [])])];
  return { userIds, photo: before?.photo ?? null };
}

/** The logins linked to the person in the church: the person's own user, and every user whose church link names them. */
export const usersOfPerson = (db: DbOrTx, churchId: string, personId: string): Promise<string[]> => usersOfPeople(db, churchId, [personId]);

/** The logins linked to any of these people in the church (two statements however many people). */
export async function usersOfPeople(db: DbOrTx, churchId: string, personIds: string[]): Promise<string[]> {
  if (!personIds.length) return [];
  const own = await db.select({ userId: people.userId }).from(people).where(and(eq(people.churchId, churchId), inArray(people.id, personIds)));
  const links = await db.select({ userId: userChurches.userId }).from(userChurches).where(and(eq(userChurches.churchId, churchId), inArray(userChurches.personId, personIds)));
  return [...new Set([...links.map((l) => l.userId), ...own.flatMap((p) => (p.userId ? [p.userId] : []))])];
}

/** A person of the church, removed or not. */
export async function anyPersonById(db: DbOrTx, churchId: string, personId: string) {
  const [row] = await db.select().from(people).where(and(eq(people.churchId, churchId), eq(people.id, personId))).limit(1);
  return row;
}
