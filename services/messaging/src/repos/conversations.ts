import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { notFound, type DbOrTx } from '@church/common';
import { conversations } from '../db/schema';
import { churchMessagesByIds, type MessageRow } from './messages';

export type ConversationRow = typeof conversations.$inferSelect;
export type { MessageRow } from './messages';

export async function findConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await db.select().from(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id))).limit(1);
  return row;
}

export async function getConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow> {
  const row = await findConversation(db, churchId, id);
  if (!row) throw notFound('Conversation');
  return row;
}

export async function conversationsByIds(db: DbOrTx, churchId: string, ids: string[]): Promise<ConversationRow[]> {
  if (!ids.length) return [];
  return db.select().from(conversations).where(and(eq(conversations.churchId, churchId), inArray(conversations.id, ids)));
}

/** The conversations about one piece of content, newest first (`limit` for the current one). */
export async function conversationsForContent(db: DbOrTx, churchId: string, contentType: string, contentId: string, limit?: number): Promise<ConversationRow[]> {
  const q = db
    .select()
    .from(conversations)
    .where(and(eq(conversations.churchId, churchId), eq(conversations.contentType, contentType), eq(conversations.contentId, contentId)))
    .orderBy(desc(conversations.dateCreated));
  return limit ? q.limit(limit) : q;
}

/** Conversations of these types with at least one message, about these groups (by `groupId` or `contentId`). */
export async function postsOfGroups(db: DbOrTx, churchId: string, types: string[], groupIds: string[], limit = 500): Promise<ConversationRow[]> {
  if (!groupIds.length) return [];
  return db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.churchId, churchId),
        inArray(conversations.contentType, types),
        or(inArray(conversations.groupId, groupIds), inArray(conversations.contentId, groupIds)),
        isNotNull(conversations.lastPostId),
      ),
    )
    .orderBy(desc(conversations.dateCreated))
    .limit(limit);
}

export interface ConversationValues {
  contentType: string;
  contentId: string;
  title?: string | null;
  groupId?: string | null;
  visibility?: string | null;
  allowAnonymousPosts?: boolean;
}

export async function createConversation(db: DbOrTx, churchId: string, c: ConversationValues): Promise<ConversationRow> {
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

export async function deleteConversationRow(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id)));
}

export type WithPosts = ConversationRow & { firstPost: MessageRow | null; lastPost: MessageRow | null; messages: MessageRow[] };

/** Conversations with their first and last messages: as `firstPost` and `lastPost`, and as `messages` (one when they are the same). */
export async function withPosts(db: DbOrTx, churchId: string, rows: ConversationRow[]): Promise<WithPosts[]> {
  const ids = [...new Set(rows.flatMap((r) => [r.firstPostId, r.lastPostId]).filter((x): x is string => !!x))];
  const byId = new Map((await churchMessagesByIds(db, churchId, ids)).map((m) => [m.id, m]));
  return rows.map((r) => {
    const firstPost = (r.firstPostId && byId.get(r.firstPostId)) || null;
    const lastPost = (r.lastPostId && byId.get(r.lastPostId)) || null;
    const messages = [firstPost, lastPost && lastPost !== firstPost ? lastPost : null].filter((m): m is MessageRow => !!m);
    return { ...r, firstPost, lastPost, messages };
  });
}
