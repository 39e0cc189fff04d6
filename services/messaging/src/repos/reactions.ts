import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { messageReactions } from '../db/schema';

export interface ReactionSummary {
  emoji: string;
  count: number;
  mine: boolean;
}

/** Each message's reactions by emoji (in the order they were first given), `mine` for the person who asks. */
export async function reactionsOf(db: DbOrTx, churchId: string, messageIds: string[], personId: string | null | undefined): Promise<Map<string, ReactionSummary[]>> {
  const out = new Map<string, ReactionSummary[]>();
  if (!messageIds.length) return out;
  const rows = await db
    .select({ messageId: messageReactions.messageId, personId: messageReactions.personId, emoji: messageReactions.emoji })
    .from(messageReactions)
    .where(and(eq(messageReactions.churchId, churchId), inArray(messageReactions.messageId, messageIds)))
    .orderBy(messageReactions.createdAt);
  for (const r of rows) {
    const list = out.get(r.messageId) ?? [];
    let entry = list.find((e) => e.emoji === r.emoji);
    if (!entry) list.push((entry = { emoji: r.emoji, count: 0, mine: false }));
    entry.count++;
    if (personId && r.personId === personId) entry.mine = true;
    out.set(r.messageId, list);
  }
  return out;
}

/** Messages with their reactions (an empty list for none). */
export async function withReactions<M extends { id: string }>(db: DbOrTx, churchId: string, messages: M[], personId: string | null | undefined): Promise<Array<M & { reactions: ReactionSummary[] }>> {
  const byMessage = await reactionsOf(db, churchId, messages.map((m) => m.id), personId);
  return messages.map((m) => ({ ...m, reactions: byMessage.get(m.id) ?? [] }));
}

/**
 * Takes back the person's emoji on the message, or gives it when they had not: answers whether it is now given. Two
 * taps at once end as one reaction or none, never two rows.
 */
export async function toggleReaction(db: DbOrTx, r: { churchId: string; messageId: string; conversationId: string; personId: string; emoji: string }): Promise<boolean> {
  const removed = await db
    .delete(messageReactions)
    .where(and(eq(messageReactions.churchId, r.churchId), eq(messageReactions.messageId, r.messageId), eq(messageReactions.personId, r.personId), eq(messageReactions.emoji, r.emoji)))
    .returning({ id: messageReactions.id });
  if (removed.length) return false;
  await db
    .insert(messageReactions)
    .values({ id: randomUUID(), ...r })
    .onConflictDoNothing();
  return true;
}

/** A message's reactions go with it. */
export async function deleteReactionsOfMessage(db: DbOrTx, churchId: string, messageId: string): Promise<void> {
  await db.delete(messageReactions).where(and(eq(messageReactions.churchId, churchId), eq(messageReactions.messageId, messageId)));
}

/** A conversation's reactions go with it. */
export async function deleteReactionsOfConversation(db: DbOrTx, churchId: string, conversationId: string): Promise<void> {
  await db.delete(messageReactions).where(and(eq(messageReactions.churchId, churchId), eq(messageReactions.conversationId, conversationId)));
}
