import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { notFound, type DbOrTx } from '@church/common';
import { conversations, messages } from '../db/schema';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export async function findConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await db.select().from(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id))).limit(1);
  return row;
}

export async function getConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow> {
  const row = await findConversation(db, churchId, id);
  if (!row) throw notFound('Conversation');
  return row;
}

/** Conversations with their first and last messages (`firstPost`, `lastPost`). */
export async function withPosts(db: DbOrTx, churchId: string, rows: ConversationRow[]) {
  const ids = [...new Set(rows.flatMap((r) => [r.firstPostId, r.lastPostId]).filter((x): x is string => !!x))];
  const posts = ids.length ? await db.select().from(messages).where(and(eq(messages.churchId, churchId), inArray(messages.id, ids))) : [];
  const byId = new Map(posts.map((p) => [p.id, p]));
  return rows.map((r) => ({ ...r, firstPost: (r.firstPostId && byId.get(r.firstPostId)) || null, lastPost: (r.lastPostId && byId.get(r.lastPostId)) || null }));
}

export async function messagesOf(db: DbOrTx, churchId: string, conversationId: string, page?: { page: number; limit: number }) {
  const q = db
    .select()
    .from(messages)
    .where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId)))
    .orderBy(page ? desc(messages.timeSent) : asc(messages.timeSent), asc(messages.id));
  return page ? q.limit(page.limit).offset((page.page - 1) * page.limit) : q;
}

/** Inserts a message and moves the conversation's first/last post and count. */
export async function insertMessage(
  db: DbOrTx,
  churchId: string,
  m: { conversationId: string; personId: string | null; displayName: string | null; content: string; messageType?: string | null },
): Promise<MessageRow> {
  const id = randomUUID();
  const [row] = await db
    .insert(messages)
    .values({ id, churchId, conversationId: m.conversationId, personId: m.personId, displayName: m.displayName, content: m.content, messageType: m.messageType || 'comment' })
    .returning();
  await db
    .update(conversations)
    .set({ lastPostId: id, postCount: sql`${conversations.postCount} + 1`, firstPostId: sql`coalesce(${conversations.firstPostId}, ${id}::uuid)` })
    .where(and(eq(conversations.churchId, churchId), eq(conversations.id, m.conversationId)));
  return row!;
}

/** After a message is deleted: the conversation's first/last post and count from what remains. */
export async function refreshPosts(db: DbOrTx, churchId: string, conversationId: string) {
  const all = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId)))
    .orderBy(asc(messages.timeSent), asc(messages.id));
  await db
    .update(conversations)
    .set({ firstPostId: all[0]?.id ?? null, lastPostId: all[all.length - 1]?.id ?? null, postCount: all.length })
    .where(and(eq(conversations.churchId, churchId), eq(conversations.id, conversationId)));
}

export async function createConversation(
  db: DbOrTx,
  churchId: string,
  c: { contentType: string; contentId: string; title?: string | null; groupId?: string | null; visibility?: string | null; allowAnonymousPosts?: boolean },
): Promise<ConversationRow> {
  const [row] = await db
    .insert(conversations)
    .values({
      id: randomUUID(),
      churchId,
      contentType: c.contentType,
      contentId: c.contentId,
      title: c.title ?? null,
      groupId: c.groupId ?? null,
      visibility: c.visibility ?? null,
      allowAnonymousPosts: c.allowAnonymousPosts ?? false,
    })
    .returning();
  return row!;
}
