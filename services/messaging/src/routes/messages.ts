import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { assertMayRead } from '../domain/access';
import { idempotencyKey } from '../domain/idempotency';
import { chatSender, react, removeMessage, saveMessages } from '../domain/posting';
import { realtimePush } from '../jobs/contracts';
import { getConversation } from '../repos/conversations';
import { findMessage, messagesOf } from '../repos/messages';
import { withReactions } from '../repos/reactions';
import { ChurchIdParams, Empty } from '../schemas/common';
import { Callout, CalloutAnswer, Message, MessageWithReactions, ReactionAnswer, ReactionBody, SaveMessage, SendMessage } from '../schemas/messages';

const base = '/messaging/messages';

/** `/messaging/messages`: a conversation's messages, posting (a member's save, a live chat's send), reactions, deletes. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);
  const send = chatSender(deps);

  app.get(
    `${base}/conversation/:conversationId`,
    { config: { access: anyUser }, schema: { params: z.object({ conversationId: Id }), response: { 200: z.array(MessageWithReactions) } } },
    async (req) => {
      const conv = await getConversation(app.db, req.auth.churchId, req.params.conversationId);
      await assertMayRead(app.db, req.auth, conv);
      return withReactions(app.db, conv.churchId, await messagesOf(app.db, conv.churchId, conv.id), req.auth.personId);
    },
  );

  // A live chat's catch-up when a viewer joins: the messages alone (live chats have no reactions).
  app.get(
    `${base}/catchup/:churchId/:conversationId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: Id }), response: { 200: z.array(Message) } } },
    async (req) => {
      const conv = await getConversation(app.db, req.params.churchId, req.params.conversationId);
      await assertMayRead(app.db, req.auth, conv);
      return messagesOf(app.db, conv.churchId, conv.id);
    },
  );

  app.get(`${base}/:churchId/:id`, { config: { access: 'public' }, schema: { params: ChurchIdParams, response: { 200: Message } } }, async (req) => {
    const m = await findMessage(app.db, req.params.churchId, req.params.id);
    if (!m) throw notFound('Message');
    await assertMayRead(app.db, req.auth, await getConversation(app.db, m.churchId, m.conversationId));
    return m;
  });

  app.post(`${base}`, { config: { access: anyUser }, schema: { body: batchOf(SaveMessage), response: { 200: z.array(Message) } } }, async (req) =>
    saveMessages(deps, req.auth, req.body, idempotencyKey(req.headers['idempotency-key']), (i, field) => itemParam(req, i, field)),
  );

  // The live chat's hot path (domain/posting: chatSender).
  app.post(`${base}/send`, { config: { access: 'public' }, schema: { body: batchOf(SendMessage), response: { 200: z.array(Message) } } }, async (req) =>
    send(req.auth, req.ip, req.body, idempotencyKey(req.headers['idempotency-key']), (i, field) => itemParam(req, i, field)),
  );

  app.post(
    `${base}/setCallout`,
    { config: { access: requires('Chat.Host or Content.Edit') }, schema: { body: Callout, response: { 200: CalloutAnswer } } },
    async (req) => {
      await deps.queue.enqueue(realtimePush, { churchId: req.auth.churchId, conversationId: req.body.conversationId, action: 'callout', data: [req.body.content] });
      return { conversationId: req.body.conversationId, content: req.body.content };
    },
  );

  // B1App's group chat: a tap on an emoji gives it, a second tap takes it back.
  app.post(`${base}/:id/reactions`, { config: { access: anyUser }, schema: { summary: 'Give or take back your emoji on a message', params: IdParams, body: ReactionBody, response: { 200: ReactionAnswer } } }, async (req) =>
    react(deps, req.auth, req.params.id, req.body.emoji),
  );

  // The spec's path, and the apps' (B1App's chats and the live chat delete by the message's id alone).
  app.delete(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Empty } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Message');
    await removeMessage(deps, req.auth, req.params.id);
    return {};
  });
  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { summary: 'Delete a message by its id (its author or a moderator)', params: IdParams, response: { 200: Empty } } }, async (req) => {
    await removeMessage(deps, req.auth, req.params.id);
    return {};
  });
}
