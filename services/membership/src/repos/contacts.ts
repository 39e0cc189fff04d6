import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx, PersonContact, PersonFacts } from '@church/common';
import { churches, groupMembers, groups, people } from '../db/schema';
import { phoneDigits } from './people';

// What other modules ask of membership over signed internal routes (`membershipInternal` in @church/common):
// one statement for the people and one for their group links, never a query per person.

const contactColumns = {
  id: people.id,
  firstName: people.firstName,
  lastName: people.lastName,
  displayName: people.displayName,
  email: people.email,
  mobilePhone: people.mobilePhone,
  optedOut: people.optedOut,
};
const byName = [asc(people.lastName), asc(people.firstName), asc(people.id)];
const live = (churchId: string, ...extra: Array<SQL | undefined>) => and(eq(people.churchId, churchId), eq(people.removed, false), ...extra)!;

export async function churchBrief(db: DbOrTx, churchId: string) {
  const [row] = await db.select({ id: churches.id, name: churches.name, subDomain: churches.subDomain }).from(churches).where(eq(churches.id, churchId)).limit(1);
  return row;
}

/**
 * Contacts of live people: by ids, of every member of a live group (`groupId`, with `leader`), or both (the
 * group's members among the ids). Without a group `leader` is false.
 */
export async function contactsOf(db: DbOrTx, churchId: string, opts: { ids?: string[]; groupId?: string }): Promise<Array<PersonContact & { leader: boolean }>> {
  const idFilter = opts.ids ? inArray(people.id, opts.ids.length ? opts.ids : ['00000000-0000-0000-0000-000000000000']) : undefined;
  if (opts.groupId) {
    return db
      .select({ ...contactColumns, leader: groupMembers.leader })
      .from(groupMembers)
      .innerJoin(groups, and(eq(groups.churchId, churchId), eq(groups.id, groupMembers.groupId), eq(groups.removed, false)))
      .innerJoin(people, live(churchId, eq(people.id, groupMembers.personId), idFilter))
      .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.groupId, opts.groupId)))
      .orderBy(...byName);
  }
  if (!opts.ids?.length) return [];
  return db
    .select({ ...contactColumns, leader: sql<boolean>`false` })
    .from(people)
    .where(live(churchId, idFilter))
    .orderBy(...byName);
}

const isoDate = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** Every live person of the church (or those of `ids`) with the facts automations select on. */
export async function peopleFacts(db: DbOrTx, churchId: string, ids?: string[]): Promise<PersonFacts[]> {
  if (ids && !ids.length) return [];
  const idFilter = ids ? inArray(people.id, ids) : undefined;
  const [rows, links] = await Promise.all([
    db
      .select({
        ...contactColumns,
        birthDate: people.birthDate,
        anniversary: people.anniversary,
        gender: people.gender,
        maritalStatus: people.maritalStatus,
        membershipStatus: people.membershipStatus,
        campusId: people.campusId,
        householdId: people.householdId,
      })
      .from(people)
      .where(live(churchId, idFilter))
      .orderBy(...byName),
    db
      .select({ personId: groupMembers.personId, groupId: groupMembers.groupId, leader: groupMembers.leader })
      .from(groupMembers)
      .innerJoin(groups, and(eq(groups.churchId, churchId), eq(groups.id, groupMembers.groupId), eq(groups.removed, false)))
      .where(and(eq(groupMembers.churchId, churchId), ids ? inArray(groupMembers.personId, ids) : undefined))
      .orderBy(asc(groupMembers.groupId)),
  ]);
  const byPerson = new Map<string, { groupIds: string[]; leaderGroupIds: string[] }>();
  for (const l of links) {
    let entry = byPerson.get(l.personId);
    if (!entry) byPerson.set(l.personId, (entry = { groupIds: [], leaderGroupIds: [] }));
    entry.groupIds.push(l.groupId);
    if (l.leader) entry.leaderGroupIds.push(l.groupId);
  }
  return rows.map((r) => ({
    ...r,
    birthDate: isoDate(r.birthDate),
    anniversary: isoDate(r.anniversary),
    groupIds: byPerson.get(r.id)?.groupIds ?? [],
    leaderGroupIds: byPerson.get(r.id)?.leaderGroupIds ?? [],
  }));
}

/**
 * The digit strings a phone number matches: its digits, and with or without the leading country code 1 of a
 * North American number (`5550100000` ↔ `15550100000`).
 */
export function phoneVariants(phone: string): string[] {
  const digits = phone.replace(/\D/g, '');
  const variants = new Set([digits]);
  if (digits.length === 10) variants.add(`1${digits}`);
  if (digits.length === 11 && digits.startsWith('1')) variants.add(digits.slice(1));
  return [...variants];
}

/**
 * Sets `optedOut` on every live person of the church whose mobile phone has these digits (one statement, served
 * by people_church_mobile_digits_idx); the ids of the people matched.
 */
export async function setOptedOutByPhone(db: DbOrTx, churchId: string, phone: string, optedOut: boolean): Promise<string[]> {
  const rows = await db
    .update(people)
    .set({ optedOut, updatedAt: new Date() })
    .where(live(churchId, inArray(phoneDigits(people.mobilePhone), phoneVariants(phone))))
    .returning({ id: people.id });
  return rows.map((r) => r.id).sort();
}
