import { and, eq, isNotNull } from 'drizzle-orm';
import type { MessagingDeps } from '../app';
import { conversations, messages } from '../db/schema';
import type { ConversationRow, MessageRow } from '../repos/conversations';
import { notify } from './notify';
import { contacts } from './people';

const GROUP_TYPES = new Set(['group', 'groupAnnouncement']);

/** Real-time push of saved messages to the conversation, then their notifications off the request. */
export async function announceMessages(deps: MessagingDeps, churchId: string, conv: Pick<ConversationRow, 'id' | 'allowAnonymousPosts'>, saved: MessageRow[], isNew: boolean[]) {
  for (const m of saved) await deps.providers.realtime.publish(churchId, conv.id, { action: 'message', data: m });
  const fresh = saved.filter((_m, i) => isNew[i]);
  // Live chat (anonymous posts allowed) is watched in real time; it notifies no one.
  if (fresh.length && !conv.allowAnonymousPosts) {
    await deps.queue.enqueue('messaging.messageNotifications', { churchId, conversationId: conv.id, messageIds: fresh.map((m) => m.id) });
  }
}

/**
 * Who hears of a new message: for group conversations the group's members (from membership), otherwise the
 * people who took part in the conversation; never the author.
 */
export async function notifyOfMessages(deps: MessagingDeps, churchId: string, conversationId: string, messageIds: string[]) {
  const [conv] = await deps.db.select().from(conversations).where(and(eq(conversations.churchId, churchId), eq(conversations.id, conversationId)));
  if (!conv) return;
  for (const messageId of messageIds) {
    const [m] = await deps.db.select().from(messages).where(and(eq(messages.churchId, churchId), eq(messages.id, messageId)));
    if (!m) continue;
    let people: string[];
    const groupId = conv.groupId ?? (GROUP_TYPES.has(conv.contentType) ? conv.contentId : null);
    if (groupId && GROUP_TYPES.has(conv.contentType) && /^[0-9a-f-]{36}$/i.test(groupId)) {
      people = (await contacts(deps, churchId, { groupId })).map((c) => c.id);
    } else {
      const rows = await deps.db
        .selectDistinct({ personId: messages.personId })
        .from(messages)
        .where(and(eq(messages.churchId, churchId), eq(messages.conversationId, conversationId), isNotNull(messages.personId)));
      people = rows.map((r) => r.personId!);
    }
    const who = m.displayName || 'Someone';
    const where = conv.title ? ` in ${conv.title}` : '';
    await notify(deps, {
      churchId,
      personIds: people.filter((p) => p !== m.personId),
      message: `${who} posted${where}: ${m.content.slice(0, 140)}`,
      contentType: conv.contentType,
      contentId: conv.contentId,
      link: groupId && GROUP_TYPES.has(conv.contentType) ? `/groups/details/${groupId}` : null,
      triggeredByPersonId: m.personId,
    });
  }
}
