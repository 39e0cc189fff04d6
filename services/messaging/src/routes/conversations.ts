import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdList, batchOf, notFound, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { groupIdsOf } from '../clients/membership';
import { assertConversationAccess, assertMayRead, assertNoteChurch, canSeeConversation, withoutClosedPrivate } from '../domain/access';
import { conversationsPage, currentConversation, deleteConversation, saveConversations, startConversation } from '../domain/conversations';
import { conversationsByIds, conversationsForContent, getConversation, postsOfGroups, withPosts } from '../repos/conversations';
import { ChurchIdParams, ContentParams, Empty, Page } from '../schemas/common';
import { Conversation, ConversationWithMessages, ConversationWithPosts, SaveConversation, Start } from '../schemas/conversations';

const base = '/messaging/conversations';

/** Types of conversation that are posts (a group's feed). */
const POST_TYPES = ['group', 'groupAnnouncement', 'post'];

/** `/messaging/conversations`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  app.get(
    `${base}/timeline/ids`,
    { config: { access: anyUser }, schema: { querystring: z.object({ ids: IdList }), response: { 200: z.array(ConversationWithPosts) } } },
    async (req) => {
      const rows = (await conversationsByIds(app.db, req.auth.churchId, req.query.ids)).filter((r) => canSeeConversation(req.auth, r.contentType));
      return withPosts(app.db, req.auth.churchId, await withoutClosedPrivate(app.db, req.auth, rows));
    },
  );

  app.get(
    `${base}/messages/:contentType/:contentId`,
    { config: { access: anyUser }, schema: { params: ContentParams, querystring: Page, response: { 200: z.array(ConversationWithMessages) } } },
    async (req) => {
      assertConversationAccess(req.auth, req.params.contentType);
      return conversationsPage(app.db, req.auth, req.params.contentType, req.params.contentId, req.query);
    },
  );

  const posts = async (churchId: string, groupIds: string[]) =>
    (await withPosts(app.db, churchId, await postsOfGroups(app.db, churchId, POST_TYPES, groupIds))).sort(
      (a, b) => (b.lastPost?.timeSent?.getTime() ?? 0) - (a.lastPost?.timeSent?.getTime() ?? 0),
    );

  app.get(`${base}/posts`, { config: { access: anyUser }, schema: { response: { 200: z.array(ConversationWithPosts) } } }, async (req) => {
    if (!req.auth.personId) return [];
    // Membership names the caller's groups; should it not answer, the feed degrades to the groups the token leads.
    const member = await groupIdsOf(deps, req.auth.churchId, req.auth.personId).catch((err: unknown) => {
      req.log.warn({ err }, 'posts: membership did not answer; using leaderGroupIds');
      return [] as string[];
    });
    return posts(req.auth.churchId, [...new Set([...member, ...req.auth.leaderGroupIds])]);
  });

  app.get(
    `${base}/posts/group/:groupId`,
    { config: { access: anyUser }, schema: { params: z.object({ groupId: Id }), response: { 200: z.array(ConversationWithPosts) } } },
    async (req) => posts(req.auth.churchId, [req.params.groupId]),
  );

  // The live chat's conversation: the newest one for the content, or a new one (anonymous posts allowed). The content
  // id is sealed with the shared ENCRYPTION_KEY (content seals it the same way).
  app.get(
    `${base}/current/:churchId/:contentType/:contentId`,
    { config: { access: 'public' }, schema: { params: ContentParams.extend({ churchId: Id }), response: { 200: Conversation } } },
    async (req) => currentConversation(deps, req.auth, { churchId: req.params.churchId, contentType: req.params.contentType, sealedContentId: req.params.contentId }),
  );

  app.get(
    `${base}/:churchId/:contentType/:contentId`,
    { config: { access: 'public' }, schema: { params: ContentParams.extend({ churchId: Id }), response: { 200: z.array(Conversation) } } },
    async (req) => {
      const { churchId, contentType, contentId } = req.params;
      assertConversationAccess(req.auth, contentType);
      assertNoteChurch(req.auth, { churchId, contentType });
      return withoutClosedPrivate(app.db, req.auth, await conversationsForContent(app.db, churchId, contentType, contentId));
    },
  );

  app.get(`${base}/:churchId/:id`, { config: { access: 'public' }, schema: { params: ChurchIdParams, response: { 200: Conversation } } }, async (req) => {
    const conv = await getConversation(app.db, req.params.churchId, req.params.id);
    await assertMayRead(app.db, req.auth, conv);
    return conv;
  });

  app.post(`${base}`, { config: { access: anyUser }, schema: { body: batchOf(SaveConversation), response: { 200: z.array(Conversation) } } }, async (req) =>
    saveConversations(deps, req.auth, req.body),
  );

  app.post(`${base}/start`, { config: { access: anyUser }, schema: { body: Start, response: { 200: Conversation } } }, async (req) => startConversation(deps, req.auth, req.body));

  app.delete(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Empty } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Conversation');
    await deleteConversation(deps, req.auth, req.params.id);
    return {};
  });
}
