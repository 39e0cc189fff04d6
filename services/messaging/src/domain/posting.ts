import { hasPermission, type Claims } from '@church/auth';
import { badRequest, conflict, notFound, unauthorized, type Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { realtimePush } from '../jobs/contracts';
import { getConversation, type ConversationRow } from '../repos/conversations';
import { deleteMessage, editMessage, findMessage, insertMessage, messagesByIds, postMessages, type ChatPost, type ChatPostResult, type MessageRow } from '../repos/messages';
import { deleteReactionsOfMessage, reactionsOf, toggleReaction } from '../repos/reactions';
import { PRIVATE_TYPE, assertConversationAccess, assertMayRead, assertPrivateAccess, deniedConversationTypes, displayNameOf, isPersonNote } from './access';
import { announceMessages, type Announced } from './messages';
import { chatPoster } from './chat-posts';
import { messageIdFor } from './idempotency';
import { privateMessagePosted } from './private';

/** A message as `POST /messages/send` takes it (`id`: the client's own, so a retry finds it). */
export interface SendItem {
  id?: string;
  churchId: string;
  conversationId: string;
  displayName?: string | null;
  content: string;
  messageType?: string;
}

/** A message as `POST /messages` takes it (`id`: an edit of that message). */
export interface SaveItem {
  id?: string;
  conversationId: string;
  content: string;
  messageType?: string;
  displayName?: string | null;
}

/** Where an item's field is, for a 400 naming it (`[2].conversationId`). */
type Param = (i: number, field: string) => string;

/** In `tx`, the effects of new messages of one conversation: pushes, notifications, a private conversation's turn. */
async function posted(deps: Pick<MessagingDeps, 'queue'>, tx: Tx, conv: Announced, fresh: MessageRow[]): Promise<void> {
  if (!fresh.length) return;
  await announceMessages(deps, tx, conv, fresh, fresh.map(() => true));
  if (conv.contentType === PRIVATE_TYPE) await privateMessagePosted(deps, tx, conv.churchId, conv.id, fresh[fresh.length - 1]!);
}

/**
 * Live chat posting (`POST /messages/send`, public). One message (a chat's post) goes through its chat's line
 * (`chatPoster`): one statement and one commit for the posts to that chat in flight, the push and notifications in
 * the same transaction (the outbox). Several messages in one request go the same way one by one, in one transaction:
 * the first one refused undoes the rest. The author is the token's person when a token of that church is sent (it
 * also opens person notes), else anonymous under the given name; `personId` from the body is never trusted.
 */
export function chatSender(deps: MessagingDeps) {
  const onPosted = (tx: Tx, results: ChatPostResult[]) => {
    const fresh = results.filter((r) => !!r?.message);
    return fresh.length ? posted(deps, tx, fresh[0]!.conversation, fresh.map((r) => r!.message!)) : Promise.resolve();
  };
  const postToChat = chatPoster(deps.db, onPosted);
  return async (auth: Claims | null | undefined, ip: string, items: SendItem[], key: string | undefined, param: Param): Promise<MessageRow[]> => {
    const postOf = (item: SendItem, i: number): ChatPost => {
      const caller = auth?.churchId === item.churchId ? auth : null;
      const personId = caller ? caller.personId : null;
      const id = item.id ?? (key ? messageIdFor(key, { churchId: item.churchId, conversationId: item.conversationId, caller: personId ?? `anonymous ${ip}`, index: i, content: item.content }) : undefined);
      return {
        id,
        personId,
        displayName: item.displayName || (personId ? displayNameOf(caller) : null) || 'Anonymous',
        content: item.content,
        messageType: item.messageType,
        ip,
        deniedTypes: deniedConversationTypes(caller),
      };
    };
    // the statement refused what these refuse, in the same order: nothing was saved when they throw
    const check = (i: number, result: ChatPostResult) => {
      const item = items[i]!;
      if (!result) throw badRequest(param(i, 'conversationId'), 'no such conversation');
      assertConversationAccess(auth?.churchId === item.churchId ? auth : null, result.conversation.contentType);
      if (result.conversation.blocked) throw unauthorized('This address may not post in this conversation');
      if (!result.passed && result.conversation.contentType === PRIVATE_TYPE) throw unauthorized('Only the two people of a private conversation may post in it');
      if (!result.passed) throw new Error('the conversation refused a message its gate lets through');
      return result;
    };
    let results: Array<NonNullable<ChatPostResult>>;
    if (items.length === 1) results = [check(0, await postToChat(items[0]!.churchId, items[0]!.conversationId, postOf(items[0]!, 0)))];
    else {
      results = await deps.db.transaction(async (tx) => {
        const out: Array<NonNullable<ChatPostResult>> = [];
        for (const [i, item] of items.entries()) out.push(check(i, (await postMessages(tx, item.churchId, item.conversationId, [postOf(item, i)]))[0]));
        const byConversation = new Map<string, Array<NonNullable<ChatPostResult>>>();
        for (const r of out.filter((x) => x.message)) byConversation.set(`${r.conversation.churchId}|${r.conversation.id}`, [...(byConversation.get(`${r.conversation.churchId}|${r.conversation.id}`) ?? []), r]);
        for (const group of byConversation.values()) await posted(deps, tx, group[0]!.conversation, group.map((r) => r.message!));
        return out;
      });
    }
    // Ids already taken: a retry answers the message it posted before (no second post, no second push); an id of
    // another conversation is refused.
    const repeated = results.filter((r) => !r.message);
    const earlier = new Map((await messagesByIds(deps.db, repeated.map((r) => r.id))).map((m) => [m.id, m]));
    return results.map((r, i) => {
      if (r.message) return r.message;
      const m = earlier.get(r.id);
      if (!m || m.churchId !== r.conversation.churchId || m.conversationId !== r.conversation.id) throw conflict(`${param(i, 'id')} is already the id of another message`);
      return m;
    });
  };
}

/**
 * `POST /messages` (a member's save): new messages and edits, in one transaction with their effects. An edit is
 * the author's, or Content.Edit's (the stored author never changes). With an `Idempotency-Key`, a retried request
 * finds the messages it posted.
 */
export async function saveMessages(deps: MessagingDeps, auth: Claims, items: SaveItem[], key: string | undefined, param: Param): Promise<MessageRow[]> {
  const churchId = auth.churchId;
  const editor = hasPermission(auth, 'Content.Edit', 'MessagingApi');
  return deps.db.transaction(async (tx) => {
    const convs = new Map<string, ConversationRow>();
    const saved: Array<{ row: MessageRow; isNew: boolean; repeat?: boolean }> = [];
    for (const [i, item] of items.entries()) {
      let conv = convs.get(item.conversationId);
      if (!conv) {
        conv = await getConversation(tx, churchId, item.conversationId).catch(() => {
          throw badRequest(param(i, 'conversationId'), 'no such conversation');
        });
        assertConversationAccess(auth, conv.contentType);
        await assertPrivateAccess(tx, auth, conv);
        convs.set(conv.id, conv);
      }
      if (item.id) {
        const existing = await findMessage(tx, churchId, item.id);
        if (!existing) throw notFound('Message');
        if (existing.conversationId !== item.conversationId) throw badRequest(param(i, 'conversationId'), 'a message cannot move to another conversation');
        const author = !!auth.personId && existing.personId === auth.personId;
        if (!author && !editor) throw unauthorized('Only the author or Content.Edit may edit a message');
        saved.push({ row: await editMessage(tx, churchId, existing.id, { content: item.content, messageType: item.messageType ?? existing.messageType }), isNew: false });
        continue;
      }
      const id = key ? messageIdFor(key, { churchId, conversationId: conv.id, caller: auth.personId ?? auth.id, index: i, content: item.content }) : undefined;
      const row = await insertMessage(tx, churchId, { id, conversationId: conv.id, personId: auth.personId, displayName: item.displayName || displayNameOf(auth), content: item.content, messageType: item.messageType });
      if (row) saved.push({ row, isNew: true });
      else {
        const [earlier] = await messagesByIds(tx, [id!]);
        if (!earlier || earlier.churchId !== churchId || earlier.conversationId !== conv.id) throw conflict(`${param(i, 'id')} is already the id of another message`);
        saved.push({ row: earlier, isNew: false, repeat: true });
      }
    }
    for (const conv of convs.values()) {
      const mine = saved.filter((s) => !s.repeat && s.row.conversationId === conv.id);
      await announceMessages(deps, tx, conv, mine.map((s) => s.row), mine.map((s) => s.isNew));
      const fresh = mine.filter((s) => s.isNew);
      if (conv.contentType === PRIVATE_TYPE && fresh.length) await privateMessagePosted(deps, tx, churchId, conv.id, fresh[fresh.length - 1]!.row);
    }
    return saved.map((s) => s.row);
  });
}

/**
 * Deletes a message and pushes `deleteMessage` to its conversation (`data: {id, conversationId}`), in one transaction.
 * Allowed to its author and to moderators: Content.Edit; Chat.Host in a live chat (anonymous posts allowed); the
 * leader of a group for that group's conversations; anyone with the notes permission for person notes. A paired
 * private conversation is moderated by no one: only its author deletes a message there.
 */
export async function removeMessage(deps: MessagingDeps, auth: Claims, id: string): Promise<void> {
  const churchId = auth.churchId;
  const m = await findMessage(deps.db, churchId, id);
  if (!m) throw notFound('Message');
  const conv = await getConversation(deps.db, churchId, m.conversationId);
  assertConversationAccess(auth, conv.contentType);
  await assertPrivateAccess(deps.db, auth, conv);
  const author = !!auth.personId && m.personId === auth.personId;
  if (!author && !mayModerate(auth, conv)) throw unauthorized('Only the author or a moderator (Content.Edit, the chat host, the group leader) may delete a message');
  await deps.db.transaction(async (tx) => {
    await deleteReactionsOfMessage(tx, churchId, m.id);
    await deleteMessage(tx, churchId, m);
    await deps.queue.enqueue(realtimePush, { churchId, conversationId: conv.id, action: 'deleteMessage', data: [{ id: m.id, conversationId: conv.id }] }, { tx });
  });
}

const GROUP_TYPES = new Set(['group', 'groupAnnouncement']);

function mayModerate(auth: Claims, conv: ConversationRow): boolean {
  if (isPersonNote(conv.contentType)) return true; // the notes permission, checked by the caller
  if (conv.contentType === PRIVATE_TYPE) return false;
  if (hasPermission(auth, 'Content.Edit', 'MessagingApi')) return true;
  if (conv.allowAnonymousPosts && hasPermission(auth, 'Chat.Host', 'MessagingApi')) return true;
  return GROUP_TYPES.has(conv.contentType) && auth.leaderGroupIds.includes(conv.groupId ?? conv.contentId);
}

/**
 * Gives or takes back the caller's emoji on a message, in one transaction with a `reaction` push to the conversation
 * (`data: {messageId, conversationId, personId, emoji, added}`). Whoever may read the conversation may react.
 */
export async function react(deps: MessagingDeps, auth: Claims, messageId: string, emoji: string) {
  const personId = auth.personId;
  if (!personId) throw badRequest('personId', 'the token has no person; a reaction is a person\'s', 'header');
  const churchId = auth.churchId;
  const m = await findMessage(deps.db, churchId, messageId);
  if (!m) throw notFound('Message');
  const conv = await getConversation(deps.db, churchId, m.conversationId);
  await assertMayRead(deps.db, auth, conv);
  const added = await deps.db.transaction(async (tx) => {
    const added = await toggleReaction(tx, { churchId, messageId: m.id, conversationId: conv.id, personId, emoji });
    await deps.queue.enqueue(realtimePush, { churchId, conversationId: conv.id, action: 'reaction', data: [{ messageId: m.id, conversationId: conv.id, personId, emoji, added }] }, { tx });
    return added;
  });
  const reactions = (await reactionsOf(deps.db, churchId, [m.id], personId)).get(m.id) ?? [];
  return { messageId: m.id, emoji, added, reactions };
}
