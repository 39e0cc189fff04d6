import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import { preparedReader, type DbOrTx } from '@church/common';
import { blockedIps, conversations, messages, privateMessages } from '../db/schema';

export type MessageRow = typeof messages.$inferSelect;

/** A named parameter of a prepared statement, cast to its type. */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

const messageColumns = getTableColumns(messages);

// A message with its conversation's counters, rendered once: drizzle's query building and row mapping cost more
// CPU than PostgreSQL spends on the statement (see `prepared` in @church/common). A message id already taken
// (a retried request) inserts nothing and moves nothing: the statement answers no row.
const insertOne = preparedReader(messageColumns, () =>
  sql.join(
    [
      sql`with ins as (insert into ${messages} (id, church_id, conversation_id, person_id, display_name, content, message_type)`,
      sql`values (${p('id', 'uuid')}, ${p('churchId', 'uuid')}, ${p('conversationId', 'uuid')}, ${p('personId', 'uuid')}, ${p('displayName', 'text')}, ${p('content', 'text')}, ${p('messageType', 'text')})`,
      sql`on conflict (id) do nothing returning *),`,
      sql`moved as (update ${conversations} set last_post_id = ins.id, post_count = post_count + 1, first_post_id = coalesce(first_post_id, ins.id) from ins`,
      sql`where ${conversations}.church_id = ${p('churchId', 'uuid')} and ${conversations}.id = ${p('conversationId', 'uuid')})`,
      sql`select * from ins`,
    ],
    sql` `,
  ),
);

// A live chat's messages in one round trip: each message's gate (the conversation found, its type open to that
// caller, the caller's address not blocked, a paired private conversation's poster one of its two people) and,
// for those it lets through, the messages with their conversation's counters, in one statement. The messages are
// stamped in order (`clock_timestamp()` per row, after the sort, and a microsecond per place: a clock coarser than
// the inserts, as PGlite's, still gives each its own time, in order). An id already
// taken (a client's retry of the same message) inserts nothing and counts nothing: its row answers `gate_pass`
// without a message.
const gateFields = {
  gateItem: sql<number>`g.item`.as('gate_item'),
  gateContentType: sql<string>`g.content_type`.as('gate_content_type'),
  gateContentId: sql<string>`g.content_id`.as('gate_content_id'),
  gateAllowAnonymousPosts: sql<boolean>`g.allow_anonymous_posts`.as('gate_allow_anonymous_posts'),
  gateBlocked: sql<boolean>`g.blocked`.as('gate_blocked'),
  gatePass: sql<boolean>`g.pass`.as('gate_pass'),
};
const postMany = preparedReader({ ...messageColumns, ...gateFields }, () =>
  sql.join(
    [
      sql`with conv as (select c.content_type, c.content_id, c.allow_anonymous_posts from ${conversations} c where c.church_id = ${p('churchId', 'uuid')} and c.id = ${p('conversationId', 'uuid')}),`,
      sql`posts as (select i.*, conv.content_type, conv.content_id, conv.allow_anonymous_posts,`,
      sql`exists (select 1 from ${blockedIps} b where b.church_id = ${p('churchId', 'uuid')} and b.conversation_id = ${p('conversationId', 'uuid')} and b.ip_address = i.ip) as blocked`,
      sql`from unnest(${p('ids', 'uuid[]')}, ${p('personIds', 'uuid[]')}, ${p('displayNames', 'text[]')}, ${p('contents', 'text[]')}, ${p('messageTypes', 'text[]')}, ${p('ips', 'text[]')}, ${p('denied', 'text[]')})`,
      sql`with ordinality as i(id, person_id, display_name, content, message_type, ip, denied, item) cross join conv),`,
      // `denied`: the types that caller may not read (person notes without the notes permission), comma-separated;
      // a paired private conversation takes posts from its two people only
      sql`g as (select posts.*, (not posts.blocked and posts.content_type <> all(string_to_array(posts.denied, ','))`,
      sql`and (posts.content_type <> 'privateMessage' or not exists (select 1 from ${privateMessages} pm where pm.church_id = ${p('churchId', 'uuid')} and pm.conversation_id = ${p('conversationId', 'uuid')})`,
      sql`or exists (select 1 from ${privateMessages} pm where pm.church_id = ${p('churchId', 'uuid')} and pm.conversation_id = ${p('conversationId', 'uuid')}`,
      sql`and (pm.from_person_id = posts.person_id or pm.to_person_id = posts.person_id)))) as pass from posts),`,
      sql`ins as (insert into ${messages} (id, church_id, conversation_id, person_id, display_name, content, message_type, time_sent)`,
      sql`select g.id, ${p('churchId', 'uuid')}, ${p('conversationId', 'uuid')}, g.person_id, g.display_name, g.content, g.message_type, clock_timestamp() + g.item * interval '1 microsecond' from g where g.pass order by g.item`,
      sql`on conflict (id) do nothing returning *),`,
      sql`moved as (update ${conversations} set post_count = post_count + (select count(*) from ins),`,
      sql`last_post_id = (select g.id from ins join g on g.id = ins.id order by g.item desc limit 1),`,
      sql`first_post_id = coalesce(first_post_id, (select g.id from ins join g on g.id = ins.id order by g.item limit 1))`,
      sql`where church_id = ${p('churchId', 'uuid')} and id = ${p('conversationId', 'uuid')} and exists (select 1 from ins))`,
      sql`select ins.*, g.item as gate_item, g.content_type as gate_content_type, g.content_id as gate_content_id, g.allow_anonymous_posts as gate_allow_anonymous_posts, g.blocked as gate_blocked, g.pass as gate_pass`,
      sql`from g left join ins on ins.id = g.id order by g.item`,
    ],
    sql` `,
  ),
);

/** One message for `postMessages`: the caller's address and the conversation types it may not read travel with it. */
export interface ChatPost {
  /** the message's id when the client chose it (a retry finds the message it already posted); a new one otherwise */
  id?: string;
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
  contentId: string;
  allowAnonymousPosts: boolean;
  blocked: boolean;
}

/**
 * What became of a post: undefined when there is no such conversation. `passed`: its gate let it through; then
 * `message` is the new message, or null when the id was already taken (`id`: the message to answer instead).
 */
export type ChatPostResult = { conversation: ChatConversation; id: string; passed: boolean; message: MessageRow | null } | undefined;

/**
 * Posts messages to one conversation in one statement, each unless its gate refuses it (the caller may not read
 * `deniedTypes`, or `ip` is blocked, or the conversation is private and `personId` is not one of its two people);
 * answers each post's result, in order. Outside a transaction the statement is its own, so the conversation's row
 * stays locked only while it runs and commits.
 */
export async function postMessages(db: DbOrTx, churchId: string, conversationId: string, posts: ChatPost[]): Promise<ChatPostResult[]> {
  const ids = posts.map((m) => m.id ?? randomUUID());
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
    const { gateItem, gateContentType, gateContentId, gateAllowAnonymousPosts, gateBlocked, gatePass, ...message } = row;
    const i = Number(gateItem) - 1;
    out[i] = {
      conversation: { id: conversationId, churchId, contentType: gateContentType, contentId: gateContentId, allowAnonymousPosts: gateAllowAnonymousPosts, blocked: gateBlocked },
      id: ids[i]!,
      passed: gatePass,
      message: message.id ? message : null,
    };
  }
  return out;
}

export interface NewMessage {
  /** a client-chosen id (a retry finds the message it already posted); a new one otherwise */
  id?: string;
  conversationId: string;
  personId: string | null;
  displayName: string | null;
  content: string;
  messageType?: string | null;
}

/**
 * Inserts a message and moves the conversation's first/last post and count, in one statement (the update is a
 * data-modifying CTE of the insert); undefined when `m.id` is already taken. Outside a transaction that statement
 * is its own: the conversation's row, which every message of a busy chat updates, stays locked only while it runs.
 */
export async function insertMessage(db: DbOrTx, churchId: string, m: NewMessage): Promise<MessageRow | undefined> {
  const values = { id: m.id ?? randomUUID(), churchId, conversationId: m.conversationId, personId: m.personId, displayName: m.displayName, content: m.content, messageType: m.messageType || 'comment' };
  const [row] = await insertOne(db, values);
  return row;
}

export async function findMessage(db: DbOrTx, churchId: string, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.select().from(messages).where(and(eq(messages.churchId, churchId), eq(messages.id, id)));
  return row;
}

/** Messages by id whatever their church (a client-chosen id must be checked against the church that asks). */
export async function messagesByIds(db: DbOrTx, ids: string[]): Promise<MessageRow[]> {
  if (!ids.length) return [];
  return db.select().from(messages).where(inArray(messages.id, ids));
}

export async function churchMessagesByIds(db: DbOrTx, churchId: string, ids: string[]): Promise<MessageRow[]> {
  if (!ids.length) return [];
  return db.select().from(messages).where(and(eq(messages.churchId, churchId), inArray(messages.id, ids)));
}

/** A conversation's messages: all, oldest first, or a page of them, newest first. */
export async function messagesOf(db: DbOrTx, churchId: string, conversationId: string, page?: { page: number; limit: number }): Promise<MessageRow[]> {
  const q = db
    .select()
    .from(messages)
    .where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId)))
    .orderBy(page ? desc(messages.timeSent) : asc(messages.timeSent), asc(messages.id));
  return page ? q.limit(page.limit).offset((page.page - 1) * page.limit) : q;
}

/** The people who posted in a conversation. */
export async function participantsOf(db: DbOrTx, churchId: string, conversationId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ personId: messages.personId })
    .from(messages)
    .where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId), isNotNull(messages.personId)));
  return rows.map((r) => r.personId!);
}

/** An edit: new text (and type), the stored author kept. */
export async function editMessage(db: DbOrTx, churchId: string, id: string, values: { content: string; messageType: string }): Promise<MessageRow> {
  const [row] = await db
    .update(messages)
    .set({ ...values, timeUpdated: new Date() })
    .where(and(eq(messages.churchId, churchId), eq(messages.id, id)))
    .returning();
  return row!;
}

/** Removes a message and recounts its conversation's first/last post and count from what remains. */
export async function deleteMessage(db: DbOrTx, churchId: string, m: { id: string; conversationId: string }): Promise<void> {
  await db.delete(messages).where(and(eq(messages.churchId, churchId), eq(messages.id, m.id)));
  await refreshPosts(db, churchId, m.conversationId);
}

/** The conversation's first/last post and count from the messages it has. */
async function refreshPosts(db: DbOrTx, churchId: string, conversationId: string): Promise<void> {
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

/** Removes every message of a conversation. */
export async function deleteMessagesOf(db: DbOrTx, churchId: string, conversationId: string): Promise<void> {
  await db.delete(messages).where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId)));
}
