import type { Claims } from '@church/auth';
import { REMOTE, assertReferences, badRequest, notFound, type DbOrTx, type Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { realtimePush } from '../jobs/contracts';
import { conversationsByIds, createConversation, deleteConversationRow, findConversation, withPosts } from '../repos/conversations';
import { deleteMessagesOf, insertMessage, type MessageRow } from '../repos/messages';
import { markRead } from '../repos/notifications';
import { clearWaiting, deletePair, findPrivate, hideFor, insertPair, pairBetween, pairOfConversation, touchPair, type PrivateRow } from '../repos/private-messages';
import { deleteReactionsOfConversation } from '../repos/reactions';
import { PRIVATE_TYPE, displayNameOf } from './access';
import { notify } from './notify';

/**
 * A message posted in a paired private conversation (through any route): in `tx`, the conversation now waits for the
 * other person (their unread count and inbox) and they get a `privateMessage` push with the message, as the apps'
 * inboxes and notification bridges read it.
 */
export async function privateMessagePosted(deps: Pick<MessagingDeps, 'queue'>, tx: Tx, churchId: string, conversationId: string, message: MessageRow): Promise<PrivateRow | undefined> {
  const pair = await pairOfConversation(tx, churchId, conversationId);
  if (!pair || !message.personId) return undefined;
  const recipient = pair.fromPersonId === message.personId ? pair.toPersonId : pair.fromPersonId;
  const row = await touchPair(tx, churchId, pair.id, recipient);
  await deps.queue.enqueue(realtimePush, { churchId, personId: recipient, conversationId, action: 'privateMessage', data: [{ ...row, message }] }, { tx });
  return row;
}

/** The caller's person: private messages are between people. */
export function me(auth: Claims): string {
  if (!auth.personId) throw badRequest('personId', 'the token has no person; private messages need one', 'header');
  return auth.personId;
}

/** Pairs with their conversation and its last message (`conversation.messages`), as the inboxes read them. */
export async function expandPairs(db: DbOrTx, churchId: string, rows: PrivateRow[]) {
  if (!rows.length) return [];
  const convs = new Map((await withPosts(db, churchId, await conversationsByIds(db, churchId, rows.map((r) => r.conversationId)))).map((c) => [c.id, c]));
  return rows.map((r) => {
    const conv = convs.get(r.conversationId);
    return { ...r, conversation: conv ? { ...conv, messages: conv.lastPost ? [conv.lastPost] : [] } : null };
  });
}

/** Opening a pair's conversation: it no longer waits for the caller, nor do its notifications. */
export async function openPair(db: DbOrTx, row: PrivateRow, personId: string): Promise<PrivateRow> {
  if (row.notifyPersonId !== personId) return row;
  await clearWaiting(db, row.churchId, row.id, personId);
  await markRead(db, row.churchId, personId, { contentType: PRIVATE_TYPE, contentId: row.conversationId });
  return { ...row, notifyPersonId: null };
}

/**
 * A conversation a new pair may take: a `privateMessage` one that no other pair holds. Any other (a person note, a
 * group's, another pair's) would show its last message to the pair, so it is refused (400).
 */
async function freeConversation(tx: DbOrTx, churchId: string, conversationId: string, param: string) {
  const conv = await findConversation(tx, churchId, conversationId);
  if (!conv) throw badRequest(param, 'no such conversation');
  if (conv.contentType !== PRIVATE_TYPE) throw badRequest(param, 'must be a privateMessage conversation');
  if (await pairOfConversation(tx, churchId, conv.id)) throw badRequest(param, 'belongs to another private conversation');
  return conv;
}

export interface PairItem {
  id?: string;
  toPersonId: string;
  conversationId?: string | null;
  content?: string;
  displayName?: string | null;
  deliveryMethod?: string | null;
}

/**
 * `POST /privatemessages`: each item names the other person (and may carry a first message); the sender is the
 * token's person. One pair per two people: an existing pair is reused, a new one takes the given conversation (a
 * free `privateMessage` one) or a new one. A message makes the conversation wait for the other person, pushes to
 * them and notifies them, in the same transaction.
 */
export async function savePairs(deps: MessagingDeps, auth: Claims, items: PairItem[], param: (i: number, field: string) => string) {
  const from = me(auth);
  const churchId = auth.churchId;
  const name = displayNameOf(auth);
  // the other person is a person of the church (membership asked before the transaction opens)
  await assertReferences(deps, churchId, items as unknown as Array<Record<string, unknown>>, { toPersonId: REMOTE.people }, param);
  const saved = await deps.db.transaction(async (tx) => {
    const out: PrivateRow[] = [];
    for (const [i, item] of items.entries()) {
      if (item.toPersonId === from) throw badRequest(param(i, 'toPersonId'), 'cannot message yourself');
      let row = item.id ? await findPrivate(tx, churchId, item.id) : await pairBetween(tx, churchId, from, item.toPersonId);
      if (item.id && (!row || (row.fromPersonId !== from && row.toPersonId !== from))) throw notFound('Private message');
      if (!row) {
        const conv = item.conversationId
          ? await freeConversation(tx, churchId, item.conversationId, param(i, 'conversationId'))
          : await createConversation(tx, churchId, { contentType: PRIVATE_TYPE, contentId: from, title: name ? `Message from ${name}` : 'Private message', visibility: 'hidden' });
        row = await insertPair(tx, { churchId, conversationId: conv.id, fromPersonId: from, toPersonId: item.toPersonId, deliveryMethod: item.deliveryMethod });
        // the other person's inbox has a new conversation (B1App's messages screen listens for it)
        await deps.queue.enqueue(realtimePush, { churchId, personId: item.toPersonId, conversationId: row.conversationId, action: 'privateRoomAdded', data: [row] }, { tx });
      }
      if (item.content) {
        const message = (await insertMessage(tx, churchId, { conversationId: row.conversationId, personId: from, displayName: item.displayName || name, content: item.content, messageType: PRIVATE_TYPE }))!;
        await deps.queue.enqueue(realtimePush, { churchId, conversationId: row.conversationId, action: 'message', data: [message] }, { tx });
        row = (await privateMessagePosted(deps, tx, churchId, row.conversationId, message))!;
        await notify(
          deps,
          {
            churchId,
            personIds: [row.notifyPersonId!],
            message: `${name ?? 'Someone'} sent you a private message`,
            contentType: PRIVATE_TYPE,
            contentId: row.conversationId,
            link: `/messages/${row.id}`,
            triggeredByPersonId: from,
          },
          tx,
        );
      }
      out.push(row);
    }
    return out;
  });
  return expandPairs(deps.db, churchId, saved);
}

/**
 * Takes a private conversation out of the caller's inbox (`DELETE /privatemessages/:id`); the other person keeps it,
 * and a new message brings it back. Once both have taken it out nobody reads it: the conversation, its messages and
 * reactions go.
 */
export async function hidePair(deps: MessagingDeps, auth: Claims, id: string): Promise<void> {
  const personId = me(auth);
  const churchId = auth.churchId;
  await deps.db.transaction(async (tx) => {
    const row = await findPrivate(tx, churchId, id);
    if (!row || (row.fromPersonId !== personId && row.toPersonId !== personId)) throw notFound('Private message');
    const hidden = await hideFor(tx, row, personId);
    await markRead(tx, churchId, personId, { contentType: PRIVATE_TYPE, contentId: row.conversationId });
    if (!hidden.hiddenByFrom || !hidden.hiddenByTo) return;
    await deletePair(tx, churchId, row.id);
    await deleteReactionsOfConversation(tx, churchId, row.conversationId);
    await deleteMessagesOf(tx, churchId, row.conversationId);
    await deleteConversationRow(tx, churchId, row.conversationId);
  });
}
