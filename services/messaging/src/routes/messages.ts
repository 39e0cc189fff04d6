import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { Id, badRequest, batchOf, itemParam, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { messages } from '../db/schema';
import { PRIVATE_TYPE, assertConversationAccess, assertPrivateAccess, deniedConversationTypes, displayNameOf, isPersonNote } from '../domain/access';
import { chatPoster } from '../domain/chat-posts';
import { announceMessages } from '../domain/messages';
import { getConversation, insertMessage, messagesOf, postMessages, refreshPosts, type ChatConversation, type ChatPost, type ChatPostResult, type ConversationRow, type MessageRow } from '../repos/conversations';
import { ChurchIdParams, DisplayName, MessageText } from '../schemas';

const SaveMessage = z.object({
  id: Id.optional(),
  conversationId: Id,
  content: MessageText,
  messageType: z.string().trim().max(50).optional(),
  displayName: DisplayName.nullish(),
  personId: Id.nullish(),
});

const SendMessage = z.object({
  churchId: Id,
  conversationId: Id,
  personId: Id.nullish(),
  displayName: DisplayName.nullish(),
  content: MessageText.min(1),
  messageType: z.string().trim().max(50).optional(),
});

/** `/messaging/messages`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);
  const postToChat = chatPoster(app.db);

  const readable = async (churchId: string, conversationId: string, auth: Parameters<typeof assertConversationAccess>[0]) => {
    const conv = await getConversation(app.db, churchId, conversationId);
    assertConversationAccess(auth, conv.contentType);
    if (isPersonNote(conv.contentType) && auth?.churchId !== churchId) throw unauthorized('Missing permission');
    await assertPrivateAccess(app.db, auth, conv);
    return conv;
  };

  app.get('/messaging/messages/conversation/:conversationId', { config: { access: anyUser }, schema: { params: z.object({ conversationId: Id }) } }, async (req) => {
    await readable(req.auth.churchId, req.params.conversationId, req.auth);
    return messagesOf(app.db, req.auth.churchId, req.params.conversationId);
  });

  app.get('/messaging/messages/catchup/:churchId/:conversationId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: Id }) } }, async (req) => {
    await readable(req.params.churchId, req.params.conversationId, req.auth);
    return messagesOf(app.db, req.params.churchId, req.params.conversationId);
  });

  app.get('/messaging/messages/:churchId/:id', { config: { access: 'public' }, schema: { params: ChurchIdParams } }, async (req) => {
    const [m] = await app.db.select().from(messages).where(and(eq(messages.churchId, req.params.churchId), eq(messages.id, req.params.id)));
    if (!m) throw notFound('Message');
    await readable(req.params.churchId, m.conversationId, req.auth);
    return m;
  });

  app.post('/messaging/messages', { config: { access: anyUser }, schema: { body: batchOf(SaveMessage) } }, async (req) => {
    const churchId = req.auth.churchId;
    const editor = hasPermission(req.auth, 'Content.Edit', 'MessagingApi');
    const convs = new Map<string, ConversationRow>();
    const result = await app.db.transaction(async (tx) => {
      const saved: Array<{ row: MessageRow; isNew: boolean }> = [];
      for (const [i, item] of req.body.entries()) {
        let conv = convs.get(item.conversationId);
        if (!conv) {
          conv = await getConversation(tx, churchId, item.conversationId).catch(() => {
            throw badRequest(itemParam(req, i, 'conversationId'), 'no such conversation');
          });
          assertConversationAccess(req.auth, conv.contentType);
          await assertPrivateAccess(tx, req.auth, conv);
          convs.set(conv.id, conv);
        }
        if (item.id) {
          const [existing] = await tx.select().from(messages).where(and(eq(messages.churchId, churchId), eq(messages.id, item.id)));
          if (!existing) throw notFound('Message');
          if (existing.conversationId !== item.conversationId) throw badRequest(itemParam(req, i, 'conversationId'), 'a message cannot move to another conversation');
          const author = !!req.auth.personId && existing.personId === req.auth.personId;
          if (!author && !editor) throw unauthorized('Only the author or Content.Edit may edit a message');
          // The stored author (person and name) stays: an edit never reassigns it.
          const [row] = await tx
            .update(messages)
            .set({ content: item.content, messageType: item.messageType ?? existing.messageType, timeUpdated: new Date() })
            .where(eq(messages.id, existing.id))
            .returning();
          saved.push({ row: row!, isNew: false });
        } else {
          const row = await insertMessage(tx, churchId, {
            conversationId: conv.id,
            personId: req.auth.personId,
            displayName: item.displayName || displayNameOf(req.auth),
            content: item.content,
            messageType: item.messageType,
          });
          saved.push({ row, isNew: true });
        }
      }
      return saved;
    });
    for (const conv of convs.values()) {
      const mine = result.filter((s) => s.row.conversationId === conv.id);
      await announceMessages(deps(), churchId, conv, mine.map((s) => s.row), mine.map((s) => s.isNew));
    }
    return result.map((s) => s.row);
  });

  // A live chat's hot path: one message is one post to its chat's line (domain/chat-posts): the conversation's gate
  // and, when the gate lets it through, the message with its conversation's counters, in one statement shared with
  // the posts to that chat in flight meanwhile. Several messages in one request go the same way one by one, in a
  // transaction: the first one refused undoes the others.
  app.post('/messaging/messages/send', { config: { access: 'public' }, schema: { body: batchOf(SendMessage) } }, async (req) => {
    const send = async (i: number, post: (churchId: string, conversationId: string, message: ChatPost) => Promise<ChatPostResult>) => {
      const item = req.body[i]!;
      // Only a token of the same church counts: it names the author and opens person notes; a public caller posts
      // anonymously under a display name.
      const auth = req.auth?.churchId === item.churchId ? req.auth : null;
      const personId = auth ? auth.personId : null;
      const posted = await post(item.churchId, item.conversationId, {
        personId,
        displayName: item.displayName || (personId ? displayNameOf(auth) : null) || 'Anonymous',
        content: item.content,
        messageType: item.messageType,
        ip: req.ip,
        deniedTypes: deniedConversationTypes(auth),
      });
      if (!posted) throw badRequest(itemParam(req, i, 'conversationId'), 'no such conversation');
      // the statement refused what these refuse, in the same order: nothing was saved when they throw
      assertConversationAccess(auth, posted.conversation.contentType);
      if (posted.conversation.blocked) throw unauthorized('This address may not post in this conversation');
      if (!posted.message && posted.conversation.contentType === PRIVATE_TYPE) throw unauthorized('Only the two people of a private conversation may post in it');
      if (!posted.message) throw new Error('the conversation refused a message its gate lets through');
      return { conversation: posted.conversation, message: posted.message };
    };
    const sent =
      req.body.length === 1
        ? [await send(0, postToChat)]
        : await app.db.transaction(async (tx) => {
            const out: Array<Awaited<ReturnType<typeof send>>> = [];
            for (let i = 0; i < req.body.length; i++) out.push(await send(i, async (churchId, conversationId, message) => (await postMessages(tx, churchId, conversationId, [message]))[0]));
            return out;
          });
    const byConversation = new Map<string, { conversation: ChatConversation; messages: MessageRow[] }>();
    for (const { conversation, message } of sent) {
      const key = `${conversation.churchId}|${conversation.id}`;
      const group = byConversation.get(key) ?? { conversation, messages: [] };
      group.messages.push(message);
      byConversation.set(key, group);
    }
    for (const { conversation, messages } of byConversation.values()) await announceMessages(deps(), conversation.churchId, conversation, messages, messages.map(() => true));
    return sent.map((s) => s.message);
  });

  app.post(
    '/messaging/messages/setCallout',
    {
      config: { access: requires('Chat.Host or Content.Edit') },
      schema: { body: z.object({ conversationId: z.string().trim().min(1).max(100), content: z.string().max(2000).default('') }) },
    },
    async (req) => {
      await deps().providers.realtime.publish(req.auth.churchId, req.body.conversationId, { action: 'callout', data: req.body.content });
      return { conversationId: req.body.conversationId, content: req.body.content };
    },
  );

  app.delete('/messaging/messages/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Message');
    const churchId = req.auth.churchId;
    const [m] = await app.db.select().from(messages).where(and(eq(messages.churchId, churchId), eq(messages.id, req.params.id)));
    if (!m) throw notFound('Message');
    const conv = await getConversation(app.db, churchId, m.conversationId);
    assertConversationAccess(req.auth, conv.contentType);
    const author = !!req.auth.personId && m.personId === req.auth.personId;
    const editor = hasPermission(req.auth, 'Content.Edit', 'MessagingApi');
    const groupId = conv.contentType === 'group' || conv.contentType === 'groupAnnouncement' ? conv.contentId : null;
    const leader = !isPersonNote(conv.contentType) && !!groupId && req.auth.leaderGroupIds.includes(groupId);
    if (!author && !editor && !leader && !isPersonNote(conv.contentType)) throw unauthorized('Only the author, Content.Edit or the group leader may delete a message');
    await app.db.transaction(async (tx) => {
      await tx.delete(messages).where(eq(messages.id, m.id));
      await refreshPosts(tx, churchId, conv.id);
    });
    await deps().providers.realtime.publish(churchId, conv.id, { action: 'deleteMessage', data: m.id });
    return {};
  });
}
