import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { groupJoinRequests, groupMembers, groups, people } from '../db/schema';

export type JoinRequestRow = typeof groupJoinRequests.$inferSelect;

/** Requests with the person's name and photo and the group's name, newest first. */
export function joinRequestsWhere(db: DbOrTx, churchId: string, where: SQL | undefined) {
  return db
    .select({
      request: groupJoinRequests,
      displayName: people.displayName,
      firstName: people.firstName,
      lastName: people.lastName,
      photo: people.photo,
      email: people.email,
      groupName: groups.name,
    })
    .from(groupJoinRequests)
    .leftJoin(people, and(eq(people.id, groupJoinRequests.personId), eq(people.churchId, churchId)))
    .leftJoin(groups, and(eq(groups.id, groupJoinRequests.groupId), eq(groups.churchId, churchId)))
    .where(and(eq(groupJoinRequests.churchId, churchId), where))
    .orderBy(desc(groupJoinRequests.requestDate), desc(groupJoinRequests.id));
}
export type JoinRequestWithNames = Awaited<ReturnType<typeof joinRequestsWhere>>[number];

export const pendingOf = (groupId?: string) => and(eq(groupJoinRequests.status, 'pending'), groupId ? eq(groupJoinRequests.groupId, groupId) : undefined);
export const ofPerson = (personId: string) => eq(groupJoinRequests.personId, personId);
export const byId = (id: string) => eq(groupJoinRequests.id, id);

export async function findJoinRequest(db: DbOrTx, churchId: string, id: string): Promise<JoinRequestRow | undefined> {
  const [row] = await db.select().from(groupJoinRequests).where(and(eq(groupJoinRequests.churchId, churchId), eq(groupJoinRequests.id, id))).limit(1).for('update');
  return row;
}

export async function pendingRequest(db: DbOrTx, churchId: string, groupId: string, personId: string): Promise<JoinRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(groupJoinRequests)
    .where(and(eq(groupJoinRequests.churchId, churchId), eq(groupJoinRequests.groupId, groupId), eq(groupJoinRequests.personId, personId), eq(groupJoinRequests.status, 'pending')))
    .limit(1);
  return row;
}

/** Inserts a pending request; undefined when one is already pending (the partial unique index decides races). */
export async function insertJoinRequest(db: DbOrTx, row: typeof groupJoinRequests.$inferInsert): Promise<JoinRequestRow | undefined> {
  const [saved] = await db.insert(groupJoinRequests).values(row).onConflictDoNothing().returning();
  return saved;
}

export async function decideJoinRequest(db: DbOrTx, churchId: string, id: string, values: Partial<typeof groupJoinRequests.$inferInsert>): Promise<JoinRequestRow> {
  const [row] = await db
    .update(groupJoinRequests)
    .set(values)
    .where(and(eq(groupJoinRequests.churchId, churchId), eq(groupJoinRequests.id, id)))
    .returning();
  return row!;
}

/** The people who lead a group (they hear of requests). */
export async function leadersOf(db: DbOrTx, churchId: string, groupId: string): Promise<string[]> {
  const rows = await db
    .select({ personId: groupMembers.personId })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.groupId, groupId), eq(groupMembers.leader, true)));
  return rows.map((r) => r.personId);
}
