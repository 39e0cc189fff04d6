import { hasPermission, type Claims } from '@church/auth';
import { REMOTE, assertReferences, badRequest, rowsByIds, saveRows, unauthorized, type DbOrTx, type References } from '@church/common';
import type { MessagingDeps } from '../deps';
import { conversations } from '../db/schema';
import { realtimePush } from '../jobs/contracts';
import { conversationsForContent, createConversation, deleteConversationRow, getConversation, type ConversationRow, type ConversationValues } from '../repos/conversations';
import { deleteMessagesOf, findMessage, insertMessage, messagesOf } from '../repos/messages';
import { deletePair, pairOfConversation } from '../repos/private-messages';
import { deleteReactionsOfConversation, withReactions } from '../repos/reactions';
import { assertConversationAccess, assertNoteChurch, assertPrivateAccess, displayNameOf, isPersonNote, withoutClosedPrivate } from './access';
import { announceMessages, contentRoom } from './messages';

/** The conversations about a piece of content, each with a page of its messages (newest first) and their reactions. */
export async function conversationsPage(db: DbOrTx, auth: Claims, contentType: string, contentId: string, page: { page: number; limit: number }) {
  const rows = await withoutClosedPrivate(db, auth, await conversationsForContent(db, auth.churchId, contentType, contentId));
  const out = [];
  for (const c of rows) out.push({ ...c, messages: await withReactions(db, c.churchId, await messagesOf(db, c.churchId, c.id, page), auth.personId), page: page.page, limit: page.limit });
  return out;
}

/**
 * What a conversation names: its group, and its content by type (a group's chat, a person's notes); other types
 * (a live stream's chat, a post, a private room) name content kept elsewhere or the conversation itself.
 */
const CONVERSATION_REFERENCES: References = {
  groupId: REMOTE.groups,
  contentId: (item) => (item.contentType === 'group' ? REMOTE.groups : isPersonNote(item.contentType as string) ? REMOTE.people : undefined),
};

/**
 * The batch save: every item's type (and an existing conversation's) open to the caller, then one transaction. A new
 * conversation that is not a live chat is announced to its content's room (`conversationActivity`, `created`): B1Admin's
 * person page learns that someone started the person's notes.
 */
export async function saveConversations(deps: MessagingDeps, auth: Claims, items: Array<ConversationValues & { id?: string }>): Promise<ConversationRow[]> {
  const churchId = auth.churchId;
  for (const item of items) assertConversationAccess(auth, item.contentType);
  await assertReferences(deps, churchId, items as unknown as Array<Record<string, unknown>>, CONVERSATION_REFERENCES);
  return deps.db.transaction(async (tx) => {
    const existing = await rowsByIds(tx, conversations, churchId, items.map((i) => i.id).filter((id): id is string => !!id));
    for (const conv of existing) {
      assertConversationAccess(auth, conv.contentType);
      await assertPrivateAccess(tx, auth, conv);
    }
    const saved = await saveRows(tx, conversations, churchId, items, 'Conversation');
    const created = saved.filter((c, i) => !items[i]!.id && !c.allowAnonymousPosts);
    for (const c of created) {
      await deps.queue.enqueue(
        realtimePush,
        { churchId, conversationId: contentRoom(c), action: 'conversationActivity', data: [{ contentType: c.contentType, contentId: c.contentId, conversationId: c.id, kind: 'created' }] },
        { tx },
      );
    }
    return saved;
  });
}

/**
 * A live chat's conversation: the newest one for the content, or a new one (anonymous posts allowed). The content
 * id comes sealed with the shared ENCRYPTION_KEY (content seals it the same way); one that does not open is a 400.
 */
export async function currentConversation(
  deps: Pick<MessagingDeps, 'db' | 'secrets'>,
  auth: Claims | null | undefined,
  where: { churchId: string; contentType: string; sealedContentId: string },
): Promise<ConversationRow> {
  const { churchId, contentType } = where;
  assertConversationAccess(auth, contentType);
  assertNoteChurch(auth, { churchId, contentType });
  let contentId: string;
  try {
    contentId = deps.secrets.decrypt(where.sealedContentId);
  } catch {
    throw badRequest('contentId', 'must be the encrypted content id', 'params');
  }
  const [current] = await conversationsForContent(deps.db, churchId, contentType, contentId, 1);
  if (current) {
    await assertPrivateAccess(deps.db, auth, current);
    return current;
  }
  return createConversation(deps.db, churchId, { contentType, contentId, title: `${contentType} conversation`, visibility: 'public', allowAnonymousPosts: true });
}

/** A conversation with its first message (`POST /start`): both, and the message's effects, in one transaction. */
export async function startConversation(deps: MessagingDeps, auth: Claims, body: ConversationValues & { comment: string }): Promise<ConversationRow> {
  assertConversationAccess(auth, body.contentType);
  const churchId = auth.churchId;
  await assertReferences(deps, churchId, [body as unknown as Record<string, unknown>], CONVERSATION_REFERENCES);
  const id = await deps.db.transaction(async (tx) => {
    const conv = await createConversation(tx, churchId, { contentType: body.contentType, contentId: body.contentId, title: body.title, groupId: body.groupId, visibility: body.visibility });
    const message = (await insertMessage(tx, churchId, { conversationId: conv.id, personId: auth.personId, displayName: displayNameOf(auth), content: body.comment }))!;
    await announceMessages(deps, tx, conv, [message], [true]);
    return conv.id;
  });
  return getConversation(deps.db, churchId, id);
}

/**
 * Deletes a conversation with its messages and reactions (and a private one's pair). Allowed to Content.Edit, the
 * group's leader, or the person who wrote its first message; person notes by their notes permission; a paired
 * private conversation to its two people only.
 */
export async function deleteConversation(deps: MessagingDeps, auth: Claims, id: string): Promise<void> {
  const churchId = auth.churchId;
  const conv = await getConversation(deps.db, churchId, id);
  assertConversationAccess(auth, conv.contentType);
  await assertPrivateAccess(deps.db, auth, conv);
  if (!isPersonNote(conv.contentType)) {
    const first = conv.firstPostId ? await findMessage(deps.db, churchId, conv.firstPostId) : undefined;
    const leads = auth.leaderGroupIds.includes(conv.groupId ?? conv.contentId);
    const starter = !!first && !!auth.personId && first.personId === auth.personId;
    if (!hasPermission(auth, 'Content.Edit', 'MessagingApi') && !leads && !starter) throw unauthorized('Missing permission: Content.Edit, group leader or the conversation starter');
  }
  await deps.db.transaction(async (tx) => {
    await deleteReactionsOfConversation(tx, churchId, conv.id);
    await deleteMessagesOf(tx, churchId, conv.id);
    const pair = await pairOfConversation(tx, churchId, conv.id);
    if (pair) await deletePair(tx, churchId, pair.id);
    await deleteConversationRow(tx, churchId, conv.id);
  });
}
