import type { Tx } from '@church/common';
import type { MessagingDeps } from '../deps';
import { contacts } from '../clients/membership';
import { messageNotifications, realtimePush } from '../jobs/contracts';
import { findConversation } from '../repos/conversations';
import { churchMessagesByIds, participantsOf, type MessageRow } from '../repos/messages';
import { PRIVATE_TYPE } from './access';
import { notifyRows, notificationsFor } from './notify';
import { onceInTx } from './once';

const GROUP_TYPES = new Set(['group', 'groupAnnouncement']);

/** What a push of a conversation's change needs to know of it. */
export interface Announced {
  id: string;
  churchId: string;
  contentType: string;
  contentId: string;
  allowAnonymousPosts: boolean;
}

/**
 * The room of a piece of content (`content-<type>-<id>`): screens about the content (a person's page with their
 * notes) listen there for `conversationActivity`, without knowing the conversation.
 */
export const contentRoom = (c: { contentType: string; contentId: string }) => `content-${c.contentType}-${c.contentId}`;

/**
 * The effects of messages saved in `tx`, enqueued in it so they exist exactly when the messages do: the real-time push
 * to the conversation (a local job: after the commit, in this process), the content room's `conversationActivity`, and
 * for the new ones the notifications of the people concerned. A live chat (anonymous posts allowed) is watched in
 * real time: it notifies no one, and its room gets no activity (the chat's own sockets have every message).
 */
export async function announceMessages(deps: Pick<MessagingDeps, 'queue'>, tx: Tx, conv: Announced, saved: MessageRow[], isNew: boolean[]): Promise<void> {
  if (!saved.length) return;
  const { churchId } = conv;
  await deps.queue.enqueue(realtimePush, { churchId, conversationId: conv.id, action: 'message', data: saved }, { tx });
  if (conv.allowAnonymousPosts) return;
  await deps.queue.enqueue(
    realtimePush,
    { churchId, conversationId: contentRoom(conv), action: 'conversationActivity', data: [{ contentType: conv.contentType, contentId: conv.contentId, conversationId: conv.id, kind: 'message' }] },
    { tx },
  );
  const fresh = saved.filter((_m, i) => isNew[i]);
  if (fresh.length) await deps.queue.enqueue(messageNotifications, { churchId, conversationId: conv.id, messageIds: fresh.map((m) => m.id) }, { tx });
}

/**
 * Who hears of new messages: for group conversations the group's members (from membership), otherwise the people
 * who took part in the conversation; never the author. All of them in one transaction with their delivery and the
 * record that job `key` wrote them.
 */
export async function notifyOfMessages(deps: MessagingDeps, churchId: string, conversationId: string, messageIds: string[], key: string): Promise<void> {
  const conv = await findConversation(deps.db, churchId, conversationId);
  if (!conv) return;
  const posted = await churchMessagesByIds(deps.db, churchId, messageIds);
  if (!posted.length) return;
  const groupId = conv.groupId ?? (GROUP_TYPES.has(conv.contentType) ? conv.contentId : null);
  const ofGroup = !!groupId && GROUP_TYPES.has(conv.contentType) && /^[0-9a-f-]{36}$/i.test(groupId);
  const people = ofGroup ? (await contacts(deps, churchId, { groupId: groupId! })).map((c) => c.id) : await participantsOf(deps.db, churchId, conversationId);
  const where = conv.title ? ` in ${conv.title}` : '';
  const rows = posted.flatMap((m) =>
    notificationsFor({
      churchId,
      personIds: people,
      message: `${m.displayName || 'Someone'} posted${where}: ${m.content.slice(0, 140)}`,
      contentType: conv.contentType,
      // a private conversation's notifications name the conversation, as its pair's do (opening it clears them)
      contentId: conv.contentType === PRIVATE_TYPE ? conv.id : conv.contentId,
      link: ofGroup ? `/groups/details/${groupId}` : null,
      triggeredByPersonId: m.personId,
    }),
  );
  // once per job (`key`): a second run of it writes no second notifications
  await onceInTx(deps, key, 'notify', (tx) => notifyRows(deps, churchId, rows, tx));
}
