import { randomUUID } from 'node:crypto';
import { and, desc, eq, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { privateMessages } from '../db/schema';

export type PrivateRow = typeof privateMessages.$inferSelect;

/** The pairs (if any) holding these conversations. */
export async function pairsOfConversations(db: DbOrTx, convs: Array<{ id: string; churchId: string }>): Promise<PrivateRow[]> {
  if (!convs.length) return [];
  return db
    .select()
    .from(privateMessages)
    .where(or(...convs.map((c) => and(eq(privateMessages.churchId, c.churchId), eq(privateMessages.conversationId, c.id)))));
}

/** The pair holding a conversation. */
export async function pairOfConversation(db: DbOrTx, churchId: string, conversationId: string): Promise<PrivateRow | undefined> {
  const [row] = await db.select().from(privateMessages).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.conversationId, conversationId))).limit(1);
  return row;
}

const mine = (personId: string) => or(eq(privateMessages.fromPersonId, personId), eq(privateMessages.toPersonId, personId));
/** Not taken out of this person's inbox. */
const shownTo = (personId: string) =>
  or(and(eq(privateMessages.fromPersonId, personId), eq(privateMessages.hiddenByFrom, false)), and(eq(privateMessages.toPersonId, personId), eq(privateMessages.hiddenByTo, false)));

/** A person's private conversations, most recently active first (those they took out of their inbox left out). */
export async function inboxOf(db: DbOrTx, churchId: string, personId: string, limit = 500): Promise<PrivateRow[]> {
  return db
    .select()
    .from(privateMessages)
    .where(and(eq(privateMessages.churchId, churchId), mine(personId), shownTo(personId)))
    .orderBy(desc(privateMessages.updatedAt))
    .limit(limit);
}

/** Marks every private conversation waiting for this person as read. */
export async function markInboxRead(db: DbOrTx, churchId: string, personId: string): Promise<void> {
  await db.update(privateMessages).set({ notifyPersonId: null }).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.notifyPersonId, personId)));
}

export async function findPrivate(db: DbOrTx, churchId: string, id: string): Promise<PrivateRow | undefined> {
  const [row] = await db.select().from(privateMessages).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.id, id)));
  return row;
}

/** The pair of these two people, whichever wrote first. */
export async function pairBetween(db: DbOrTx, churchId: string, a: string, b: string): Promise<PrivateRow | undefined> {
  const [row] = await db
    .select()
    .from(privateMessages)
    .where(
      and(
        eq(privateMessages.churchId, churchId),
        or(and(eq(privateMessages.fromPersonId, a), eq(privateMessages.toPersonId, b)), and(eq(privateMessages.fromPersonId, b), eq(privateMessages.toPersonId, a))),
      ),
    )
    .limit(1);
  return row;
}

export async function insertPair(db: DbOrTx, values: { churchId: string; conversationId: string; fromPersonId: string; toPersonId: string; deliveryMethod?: string | null }): Promise<PrivateRow> {
  const [row] = await db
    .insert(privateMessages)
    .values({ id: randomUUID(), ...values, deliveryMethod: values.deliveryMethod ?? null })
    .returning();
  return row!;
}

/**
 * A new message in the pair's conversation: it waits for `recipient`, moves the conversation up both inboxes and
 * brings it back to an inbox it was taken out of.
 */
export async function touchPair(db: DbOrTx, churchId: string, id: string, recipient: string): Promise<PrivateRow> {
  const [row] = await db
    .update(privateMessages)
    .set({ notifyPersonId: recipient, updatedAt: new Date(), hiddenByFrom: false, hiddenByTo: false })
    .where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.id, id)))
    .returning();
  return row!;
}

/** The pair's conversation no longer waits for this person. */
export async function clearWaiting(db: DbOrTx, churchId: string, id: string, personId: string): Promise<void> {
  await db
    .update(privateMessages)
    .set({ notifyPersonId: null })
    .where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.id, id), eq(privateMessages.notifyPersonId, personId)));
}

/**
 * Takes the conversation out of this person's inbox (the other keeps it); answers the row as it now is, with
 * `hiddenByFrom` and `hiddenByTo` both set once both have taken it out.
 */
export async function hideFor(db: DbOrTx, row: PrivateRow, personId: string): Promise<PrivateRow> {
  const [updated] = await db
    .update(privateMessages)
    .set({
      hiddenByFrom: row.fromPersonId === personId ? true : sql`${privateMessages.hiddenByFrom}`,
      hiddenByTo: row.toPersonId === personId ? true : sql`${privateMessages.hiddenByTo}`,
      notifyPersonId: sql`case when ${privateMessages.notifyPersonId} = ${personId}::uuid then null else ${privateMessages.notifyPersonId} end`,
    })
    .where(and(eq(privateMessages.churchId, row.churchId), eq(privateMessages.id, row.id)))
    .returning();
  return updated!;
}

export async function deletePair(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(privateMessages).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.id, id)));
}
