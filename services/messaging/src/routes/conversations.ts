import type { FastifyInstance } from 'fastify';
import { and, desc, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { Id, IdList, badRequest, batchOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { conversations, messages } from '../db/schema';
import { assertConversationAccess, assertPrivateAccess, canSeeConversation, displayNameOf, isPersonNote, withoutClosedPrivate } from '../domain/access';
import { announceMessages } from '../domain/messages';
import { groupIdsOf } from '../domain/people';
import { createConversation, getConversation, insertMessage, messagesOf, withPosts } from '../repos/conversations';
import { ChurchIdParams, ContentId, ContentParams, ContentType, MessageText, Page } from '../schemas';

const SaveConversation = z.object({
  id: Id.optional(),
  contentType: ContentType,
  contentId: ContentId,
  title: z.string().max(500).nullish(),
  groupId: Id.nullish(),
  visibility: z.string().max(50).nullish(),
  allowAnonymousPosts: z.boolean().optional(),
});

const Start = z.object({
  groupId: Id.nullish(),
  contentType: ContentType,
  contentId: ContentId,
  title: z.string().max(500).nullish(),
  comment: MessageText.min(1),
  visibility: z.string().max(50).nullish(),
});

/** Types of conversation that are posts (a group's feed). */
const POST_TYPES = ['group', 'groupAnnouncement', 'post'];

/** `/messaging/conversations`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);

  app.get('/messaging/conversations/timeline/ids', { config: { access: anyUser }, schema: { querystring: z.object({ ids: IdList }) } }, async (req) => {
    if (!req.query.ids.length) return [];
    const rows = await app.db.select().from(conversations).where(and(eq(conversations.churchId, req.auth.churchId), inArray(conversations.id, req.query.ids)));
    return withPosts(app.db, req.auth.churchId, await withoutClosedPrivate(app.db, req.auth, rows.filter((r) => canSeeConversation(req.auth, r.contentType))));
  });

  app.get('/messaging/conversations/messages/:contentType/:contentId', { config: { access: anyUser }, schema: { params: ContentParams, querystring: Page } }, async (req) => {
    assertConversationAccess(req.auth, req.params.contentType);
    const rows = await withoutClosedPrivate(
      app.db,
      req.auth,
      await app.db
        .select()
        .from(conversations)
        .where(and(eq(conversations.churchId, req.auth.churchId), eq(conversations.contentType, req.params.contentType), eq(conversations.contentId, req.params.contentId)))
        .orderBy(desc(conversations.dateCreated)),
    );
    const out = [];
    for (const c of rows) out.push({ ...c, messages: await messagesOf(app.db, req.auth.churchId, c.id, req.query), page: req.query.page, limit: req.query.limit });
    return out;
  });

  const posts = async (churchId: string, groupIds: string[]) => {
    if (!groupIds.length) return [];
    const rows = await app.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.churchId, churchId), inArray(conversations.contentType, POST_TYPES), or(inArray(conversations.groupId, groupIds), inArray(conversations.contentId, groupIds)), isNotNull(conversations.lastPostId)))
      .orderBy(desc(conversations.dateCreated))
      .limit(500);
    const withMessages = await withPosts(app.db, churchId, rows);
    return withMessages.sort((a, b) => (b.lastPost?.timeSent?.getTime() ?? 0) - (a.lastPost?.timeSent?.getTime() ?? 0));
  };

  app.get('/messaging/conversations/posts', { config: { access: anyUser } }, async (req) => {
    if (!req.auth.personId) return [];
    // Membership names the caller's groups; should it not answer, the feed degrades to the groups the token leads.
    const member = await groupIdsOf(deps(), req.auth.churchId, req.auth.personId).catch((err: unknown) => {
      req.log.warn({ err }, 'posts: membership did not answer; using leaderGroupIds');
      return [] as string[];
    });
    const groupIds = [...new Set([...member, ...req.auth.leaderGroupIds])];
    return posts(req.auth.churchId, groupIds);
  });

  app.get('/messaging/conversations/posts/group/:groupId', { config: { access: anyUser }, schema: { params: z.object({ groupId: Id }) } }, async (req) =>
    posts(req.auth.churchId, [req.params.groupId]),
  );

  app.get(
    '/messaging/conversations/current/:churchId/:contentType/:contentId',
    { config: { access: 'public' }, schema: { params: ContentParams.extend({ churchId: Id }) } },
    async (req) => {
      const { churchId, contentType } = req.params;
      assertConversationAccess(req.auth, contentType);
      if (isPersonNote(contentType) && req.auth?.churchId !== churchId) throw unauthorized('Missing permission');
      let contentId: string;
      try {
        contentId = app.deps.secrets.decrypt(req.params.contentId);
      } catch {
        throw badRequest('contentId', 'must be the encrypted content id', 'params');
      }
      const [current] = await app.db
        .select()
        .from(conversations)
        .where(and(eq(conversations.churchId, churchId), eq(conversations.contentType, contentType), eq(conversations.contentId, contentId)))
        .orderBy(desc(conversations.dateCreated))
        .limit(1);
      if (current) await assertPrivateAccess(app.db, req.auth, current);
      return current ?? createConversation(app.db, churchId, { contentType, contentId, title: `${contentType} conversation`, visibility: 'public', allowAnonymousPosts: true });
    },
  );

  app.get('/messaging/conversations/:churchId/:contentType/:contentId', { config: { access: 'public' }, schema: { params: ContentParams.extend({ churchId: Id }) } }, async (req) => {
    assertConversationAccess(req.auth, req.params.contentType);
    if (isPersonNote(req.params.contentType) && req.auth?.churchId !== req.params.churchId) throw unauthorized('Missing permission');
    const rows = await app.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.churchId, req.params.churchId), eq(conversations.contentType, req.params.contentType), eq(conversations.contentId, req.params.contentId)))
      .orderBy(desc(conversations.dateCreated));
    return withoutClosedPrivate(app.db, req.auth, rows);
  });

  app.get('/messaging/conversations/:churchId/:id', { config: { access: 'public' }, schema: { params: ChurchIdParams } }, async (req) => {
    const conv = await getConversation(app.db, req.params.churchId, req.params.id);
    assertConversationAccess(req.auth, conv.contentType);
    if (isPersonNote(conv.contentType) && req.auth?.churchId !== conv.churchId) throw unauthorized('Missing permission');
    await assertPrivateAccess(app.db, req.auth, conv);
    return conv;
  });

  app.post('/messaging/conversations', { config: { access: anyUser }, schema: { body: batchOf(SaveConversation) } }, async (req) => {
    const churchId = req.auth.churchId;
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        assertConversationAccess(req.auth, item.contentType);
        if (item.id) {
          const existing = await getConversation(tx, churchId, item.id);
          assertConversationAccess(req.auth, existing.contentType);
          await assertPrivateAccess(tx, req.auth, existing);
          const { id, ...changes } = item;
          const [row] = await tx.update(conversations).set(changes).where(and(eq(conversations.churchId, churchId), eq(conversations.id, id))).returning();
          out.push(row!);
        } else {
          out.push(await createConversation(tx, churchId, item));
        }
      }
      return out;
    });
  });

  app.post('/messaging/conversations/start', { config: { access: anyUser }, schema: { body: Start } }, async (req) => {
    const churchId = req.auth.churchId;
    assertConversationAccess(req.auth, req.body.contentType);
    const { conv, message } = await app.db.transaction(async (tx) => {
      const conv = await createConversation(tx, churchId, {
        contentType: req.body.contentType,
        contentId: req.body.contentId,
        title: req.body.title,
        groupId: req.body.groupId,
        visibility: req.body.visibility,
      });
      const message = await insertMessage(tx, churchId, { conversationId: conv.id, personId: req.auth.personId, displayName: displayNameOf(req.auth), content: req.body.comment });
      return { conv, message };
    });
    await announceMessages(deps(), churchId, conv, [message], [true]);
    return getConversation(app.db, churchId, conv.id);
  });

  app.delete('/messaging/conversations/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Conversation');
    const conv = await getConversation(app.db, req.auth.churchId, req.params.id);
    assertConversationAccess(req.auth, conv.contentType);
    if (!isPersonNote(conv.contentType)) {
      const [first] = conv.firstPostId ? await app.db.select().from(messages).where(eq(messages.id, conv.firstPostId)) : [];
      const leads = conv.groupId ? req.auth.leaderGroupIds.includes(conv.groupId) : req.auth.leaderGroupIds.includes(conv.contentId);
      const allowed = hasPermission(req.auth, 'Content.Edit', 'MessagingApi') || leads || (!!first && !!req.auth.personId && first.personId === req.auth.personId);
      if (!allowed) throw unauthorized('Missing permission: Content.Edit, group leader or the conversation starter');
    }
    await app.db.transaction(async (tx) => {
      await tx.delete(messages).where(and(eq(messages.churchId, req.auth.churchId), eq(messages.conversationId, conv.id)));
      await tx.delete(conversations).where(and(eq(conversations.churchId, req.auth.churchId), eq(conversations.id, conv.id)));
    });
    return {};
  });
}
