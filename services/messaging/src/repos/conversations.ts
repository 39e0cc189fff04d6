import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { notFound, preparedReader, type DbOrTx } from '@church/common';
import { blockedIps, conversations, messages } from '../db/schema';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export async function findConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await db.select().from(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id))).limit(1);
  return row;
}

/** A named parameter of a prepared statement, cast to its type. */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

// The two statements of a live chat's message (`POST /messages/send`), rendered once: drizzle's query building
// and row mapping cost this route more CPU than PostgreSQL spends on them (see `prepared` in @church/common).
const conversationColumns = getTableColumns(conversations);
// the subquery names its values, not the outer columns: drizzle writes a one-table select's columns unqualified,
// and inside the subquery those would name blocked_ips' own
const blockedCaller = sql<boolean>`exists (select 1 from ${blockedIps} b where b.church_id = ${p('churchId', 'uuid')} and b.conversation_id = ${p('id', 'uuid')} and b.ip_address = ${p('ip', 'text')})`.as('blocked_caller');
const readForPost = preparedReader({ ...conversationColumns, blocked: blockedCaller }, (qb) =>
  qb
    .select({ ...conversationColumns, blocked: blockedCaller })
    .from(conversations)
    .where(and(eq(conversations.churchId, sql.placeholder('churchId')), eq(conversations.id, sql.placeholder('id'))))
    .limit(1),
);
const insertOne = preparedReader(getTableColumns(messages), () =>
  sql.join(
    [
      sql`with moved as (update ${conversations} set last_post_id = ${p('id', 'uuid')}, post_count = post_count + 1, first_post_id = coalesce(first_post_id, ${p('id', 'uuid')})`,
      sql`where church_id = ${p('churchId', 'uuid')} and id = ${p('conversationId', 'uuid')})`,
      sql`insert into ${messages} (id, church_id, conversation_id, person_id, display_name, content, message_type)`,
      sql`values (${p('id', 'uuid')}, ${p('churchId', 'uuid')}, ${p('conversationId', 'uuid')}, ${p('personId', 'uuid')}, ${p('displayName', 'text')}, ${p('content', 'text')}, ${p('messageType', 'text')})`,
      sql`returning *`,
    ],
    sql` `,
  ),
);

/** A conversation to post in, and whether `ip` is blocked from it, in one round trip. */
export async function conversationForPost(db: DbOrTx, churchId: string, id: string, ip: string): Promise<{ conversation: ConversationRow; blocked: boolean } | undefined> {
  const [row] = await readForPost(db, { churchId, id, ip });
  if (!row) return undefined;
  const { blocked, ...conversation } = row;
  return { conversation, blocked };
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

/**
 * Inserts a message and moves the conversation's first/last post and count, in one statement (the update is a
 * data-modifying CTE of the insert). Outside a transaction that statement is its own: the conversation's row,
 * which every message of a busy live chat updates, stays locked only while the statement runs and commits, never
 * across a round trip to this process (a COMMIT sent after the update).
 */
export async function insertMessage(
  db: DbOrTx,
  churchId: string,
  m: { conversationId: string; personId: string | null; displayName: string | null; content: string; messageType?: string | null },
): Promise<MessageRow> {
  const values = { id: randomUUID(), churchId, conversationId: m.conversationId, personId: m.personId, displayName: m.displayName, content: m.content, messageType: m.messageType || 'comment' };
  const [row] = await insertOne(db, values);
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
