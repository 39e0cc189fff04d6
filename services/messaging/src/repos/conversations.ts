import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { notFound, preparedReader, type DbOrTx } from '@church/common';
import { blockedIps, conversations, messages, privateMessages } from '../db/schema';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export async function findConversation(db: DbOrTx, churchId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await db.select().from(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id))).limit(1);
  return row;
}

/** A named parameter of a prepared statement, cast to its type. */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

// A message with its conversation's counters, rendered once: drizzle's query building and row mapping cost more
// CPU than PostgreSQL spends on the statement (see `prepared` in @church/common).
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

// A live chat's messages in one round trip: each message's gate (the conversation found, its type open to that
// caller, the caller's address not blocked) and, for those it lets through, the messages with their conversation's
// counters, in one statement and one commit. The messages are stamped in order (`clock_timestamp()` per row, after
// the sort) so each keeps a time of its own, as when they were saved one by one.
const messageColumns = getTableColumns(messages);
const gateFields = {
  gateItem: sql<number>`g.item`.as('gate_item'),
  gateContentType: sql<string>`g.content_type`.as('gate_content_type'),
  gateAllowAnonymousPosts: sql<boolean>`g.allow_anonymous_posts`.as('gate_allow_anonymous_posts'),
  gateBlocked: sql<boolean>`g.blocked`.as('gate_blocked'),
};
const postMany = preparedReader({ ...messageColumns, ...gateFields }, () =>
  sql.join(
    [
      sql`with conv as (select c.content_type, c.allow_anonymous_posts from ${conversations} c where c.church_id = ${p('churchId', 'uuid')} and c.id = ${p('conversationId', 'uuid')}),`,
      sql`g as (select i.*, conv.content_type, conv.allow_anonymous_posts,`,
      sql`exists (select 1 from ${blockedIps} b where b.church_id = ${p('churchId', 'uuid')} and b.conversation_id = ${p('conversationId', 'uuid')} and b.ip_address = i.ip) as blocked`,
      sql`from unnest(${p('ids', 'uuid[]')}, ${p('personIds', 'uuid[]')}, ${p('displayNames', 'text[]')}, ${p('contents', 'text[]')}, ${p('messageTypes', 'text[]')}, ${p('ips', 'text[]')}, ${p('denied', 'text[]')})`,
      sql`with ordinality as i(id, person_id, display_name, content, message_type, ip, denied, item) cross join conv),`,
      // `denied`: the types that caller may not read (person notes without the notes permission), comma-separated
      // a paired private conversation takes posts from its two people only
      sql`allowed as (select * from g where not g.blocked and g.content_type <> all(string_to_array(g.denied, ','))`,
      sql`and (g.content_type <> 'privateMessage' or not exists (select 1 from ${privateMessages} pm where pm.church_id = ${p('churchId', 'uuid')} and pm.conversation_id = ${p('conversationId', 'uuid')})`,
      sql`or exists (select 1 from ${privateMessages} pm where pm.church_id = ${p('churchId', 'uuid')} and pm.conversation_id = ${p('conversationId', 'uuid')}`,
      sql`and (pm.from_person_id = g.person_id or pm.to_person_id = g.person_id)))),`,
      sql`moved as (update ${conversations} set post_count = post_count + (select count(*) from allowed),`,
      sql`last_post_id = (select id from allowed order by item desc limit 1), first_post_id = coalesce(first_post_id, (select id from allowed order by item limit 1))`,
      sql`where church_id = ${p('churchId', 'uuid')} and id = ${p('conversationId', 'uuid')} and exists (select 1 from allowed)),`,
      sql`ins as (insert into ${messages} (id, church_id, conversation_id, person_id, display_name, content, message_type, time_sent)`,
      sql`select a.id, ${p('churchId', 'uuid')}, ${p('conversationId', 'uuid')}, a.person_id, a.display_name, a.content, a.message_type, clock_timestamp() from allowed a order by a.item returning *)`,
      sql`select ins.*, g.item as gate_item, g.content_type as gate_content_type, g.allow_anonymous_posts as gate_allow_anonymous_posts, g.blocked as gate_blocked`,
      sql`from g left join ins on ins.id = g.id order by g.item`,
    ],
    sql` `,
  ),
);

/** One message for `postMessages`: the caller's address and the conversation types it may not read travel with it. */
export interface ChatPost {
  personId: string | null;
  displayName: string | null;
  content: string;
  messageType?: string | null;
  ip: string;
  deniedTypes: string[];
}

/** The conversation a post went to, as its gate saw it (`blocked`: the caller's address). */
export interface ChatConversation {
  id: string;
  churchId: string;
  contentType: string;
  allowAnonymousPosts: boolean;
  blocked: boolean;
}

/** What became of a post: undefined when there is no such conversation; the message null when its gate refused it. */
export type ChatPostResult = { conversation: ChatConversation; message: MessageRow | null } | undefined;

/**
 * Posts messages to one conversation in one statement, each unless its gate refuses it (the caller may not read
 * `deniedTypes`, or `ip` is blocked, or the conversation is private and `personId` is not one of its two people);
 * answers each post's result, in order. Outside a transaction the statement is its own, so the conversation's row
 * stays locked only while it runs and commits.
 */
export async function postMessages(db: DbOrTx, churchId: string, conversationId: string, posts: ChatPost[]): Promise<ChatPostResult[]> {
  const ids = posts.map(() => randomUUID());
  const rows = await postMany(db, {
    churchId,
    conversationId,
    ids,
    personIds: posts.map((m) => m.personId),
    displayNames: posts.map((m) => m.displayName),
    contents: posts.map((m) => m.content),
    messageTypes: posts.map((m) => m.messageType || 'comment'),
    ips: posts.map((m) => m.ip),
    denied: posts.map((m) => m.deniedTypes.join(',')),
  });
  const out: ChatPostResult[] = posts.map(() => undefined);
  for (const row of rows) {
    const { gateItem, gateContentType, gateAllowAnonymousPosts, gateBlocked, ...message } = row;
    out[Number(gateItem) - 1] = {
      conversation: { id: conversationId, churchId, contentType: gateContentType, allowAnonymousPosts: gateAllowAnonymousPosts, blocked: gateBlocked },
      message: message.id ? message : null,
    };
  }
  return out;
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
