import { randomUUID } from 'node:crypto';
import { and, eq, inArray, or } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { households, people } from '../db/schema';
import type { UserRow } from './users';

// The identity side writes people rows only where the spec makes it: the creator of a church (Staff) and a
// user selecting a church they have no person in (Guest). Everything else about people is the people routes'.

/** A person (in a household of their own, as people saves do) for a user joining a church. */
export async function insertPersonForUser(db: DbOrTx, churchId: string, user: UserRow, membershipStatus: 'Staff' | 'Guest') {
  const householdId = randomUUID();
  const first = user.firstName ?? '';
  const last = user.lastName ?? '';
  await db.insert(households).values({ id: householdId, churchId, name: last || first || user.email });
  const [person] = await db
    .insert(people)
    .values({
      id: randomUUID(),
      churchId,
      userId: user.id,
      firstName: first || null,
      lastName: last || null,
      displayName: `${first} ${last}`.trim() || user.email,
      email: user.email,
      membershipStatus,
      householdId,
      householdRole: 'Head',
    })
    .returning({ id: people.id, membershipStatus: people.membershipStatus });
  return person!;
}

/** A person of the church, not removed. */
export async function findPerson(db: DbOrTx, churchId: string, personId: string) {
  const [row] = await db
    .select({ id: people.id, userId: people.userId, email: people.email })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.id, personId), eq(people.removed, false)))
    .limit(1);
  return row;
}

export async function setOptedOut(db: DbOrTx, churchId: string, personId: string, optedOut: boolean): Promise<void> {
  await db
    .update(people)
    .set({ optedOut, updatedAt: new Date() })
    .where(and(eq(people.churchId, churchId), eq(people.id, personId)));
}

/** A deleted user's people stay (history refers to them) but no longer point at the account. */
export async function unlinkUser(db: DbOrTx, userId: string, churchIds: string[]): Promise<void> {
  if (!churchIds.length) return;
  await db
    .update(people)
    .set({ userId: null })
    .where(and(inArray(people.churchId, churchIds), eq(people.userId, userId)));
}

/** People of the church that are not removed, up to `limit` (to tell an abandoned church from a used one). */
export async function countPeople(db: DbOrTx, churchId: string, limit: number): Promise<number> {
  const rows = await db
    .select({ id: people.id })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.removed, false)))
    .limit(limit);
  return rows.length;
}

/** The person of the church already linked to this user through `people.user_id`, if any. */
export async function personOfUser(db: DbOrTx, churchId: string, userId: string) {
  const [row] = await db
    .select({ id: people.id })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.userId, userId), eq(people.removed, false)))
    .limit(1);
  return row;
}

/**
 * The user's people in these churches: those their links name (`linkedPersonIds`) and those linked to the user
 * through `people.user_id`, live ones only.
 */
export function peopleOfUserIn(db: DbOrTx, userId: string, churchIds: string[], linkedPersonIds: string[]) {
  return db
    .select({ id: people.id, churchId: people.churchId, userId: people.userId, membershipStatus: people.membershipStatus })
    .from(people)
    .where(
      and(
        inArray(people.churchId, churchIds),
        eq(people.removed, false),
        linkedPersonIds.length ? or(inArray(people.id, linkedPersonIds), eq(people.userId, userId)) : eq(people.userId, userId),
      ),
    );
}
