import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, desc, eq, inArray, or } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, itemParam, notFound, type DbOrTx, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { conversations, notifications, privateMessages } from '../db/schema';
import { displayNameOf } from '../domain/access';
import { insertNotifications } from '../domain/notify';
import { createConversation, findConversation, insertMessage, withPosts } from '../repos/conversations';
import { MessageText } from '../schemas';

const SavePrivate = z.object({
  id: Id.optional(),
  toPersonId: Id,
  conversationId: Id.nullish(),
  content: MessageText.min(1).optional(),
  displayName: z.string().trim().max(200).nullish(),
  deliveryMethod: z.string().max(50).nullish(),
});

type PrivateRow = typeof privateMessages.$inferSelect;

function me(auth: Claims): string {
  if (!auth.personId) throw badRequest('personId', 'the token has no person; private messages need one', 'header');
  return auth.personId;
}

/**
 * A conversation a new pair may take: a `privateMessage` one that no other pair holds. Any other (a person note, a
 * group's, another pair's) would show its last message to the pair, so it is refused (400).
 */
async function pairConversation(tx: DbOrTx, churchId: string, conversationId: string, param: string) {
  const conv = await findConversation(tx, churchId, conversationId);
  if (!conv) throw badRequest(param, 'no such conversation');
  if (conv.contentType !== 'privateMessage') throw badRequest(param, 'must be a privateMessage conversation');
  const [taken] = await tx.select({ id: privateMessages.id }).from(privateMessages).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.conversationId, conv.id))).limit(1);
  if (taken) throw badRequest(param, 'belongs to another private conversation');
  return conv;
}

/** `/messaging/privatemessages`: one conversation per pair of people; `notifyPersonId` holds who has not read it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);

  const expand = async (churchId: string, rows: PrivateRow[]) => {
    if (!rows.length) return [];
    const convRows = await app.db.select().from(conversations).where(and(eq(conversations.churchId, churchId), inArray(conversations.id, rows.map((r) => r.conversationId))));
    const withMsgs = new Map((await withPosts(app.db, churchId, convRows)).map((c) => [c.id, c]));
    return rows.map((r) => {
      const conv = withMsgs.get(r.conversationId);
      return { ...r, conversation: conv ? { ...conv, messages: conv.lastPost ? [conv.lastPost] : [] } : null };
    });
  };

  app.get('/messaging/privatemessages', { config: { access: anyUser } }, async (req) => {
    const personId = me(req.auth);
    const churchId = req.auth.churchId;
    const rows = await app.db
      .select()
      .from(privateMessages)
      .where(and(eq(privateMessages.churchId, churchId), or(eq(privateMessages.fromPersonId, personId), eq(privateMessages.toPersonId, personId))))
      .orderBy(desc(privateMessages.updatedAt))
      .limit(500);
    const out = await expand(churchId, rows);
    await app.db.update(privateMessages).set({ notifyPersonId: null }).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.notifyPersonId, personId)));
    return out;
  });

  app.get('/messaging/privatemessages/existing/:personId', { config: { access: anyUser }, schema: { params: z.object({ personId: Id }) } }, async (req) => {
    const personId = me(req.auth);
    const other = req.params.personId;
    const [row] = await app.db
      .select()
      .from(privateMessages)
      .where(
        and(
          eq(privateMessages.churchId, req.auth.churchId),
          or(and(eq(privateMessages.fromPersonId, personId), eq(privateMessages.toPersonId, other)), and(eq(privateMessages.fromPersonId, other), eq(privateMessages.toPersonId, personId))),
        ),
      )
      .limit(1);
    if (!row) return {};
    return (await expand(req.auth.churchId, [row]))[0]!;
  });

  app.get('/messaging/privatemessages/:id', { config: { access: anyUser }, schema: { params: z.object({ id: Id }) } }, async (req) => {
    const personId = me(req.auth);
    const churchId = req.auth.churchId;
    const [row] = await app.db.select().from(privateMessages).where(and(eq(privateMessages.churchId, churchId), eq(privateMessages.id, req.params.id)));
    if (!row || (row.fromPersonId !== personId && row.toPersonId !== personId)) throw notFound('Private message');
    if (row.notifyPersonId === personId) {
      await app.db.update(privateMessages).set({ notifyPersonId: null }).where(eq(privateMessages.id, row.id));
      row.notifyPersonId = null;
      await app.db
        .update(notifications)
        .set({ isNew: false })
        .where(and(eq(notifications.churchId, churchId), eq(notifications.personId, personId), eq(notifications.contentType, 'privateMessage'), eq(notifications.contentId, row.conversationId)));
    }
    return (await expand(churchId, [row]))[0]!;
  });

  app.post('/messaging/privatemessages', { config: { access: anyUser }, schema: { body: batchOf(SavePrivate) } }, async (req) => {
    const from = me(req.auth);
    const churchId = req.auth.churchId;
    const name = displayNameOf(req.auth);
    const saved = await app.db.transaction(async (tx) => {
      const out: PrivateRow[] = [];
      for (const [i, item] of req.body.entries()) {
        if (item.toPersonId === from) throw badRequest(itemParam(req, i, 'toPersonId'), 'cannot message yourself');
        let [row] = await tx
          .select()
          .from(privateMessages)
          .where(
            and(
              eq(privateMessages.churchId, churchId),
              item.id
                ? eq(privateMessages.id, item.id)
                : or(
                    and(eq(privateMessages.fromPersonId, from), eq(privateMessages.toPersonId, item.toPersonId)),
                    and(eq(privateMessages.fromPersonId, item.toPersonId), eq(privateMessages.toPersonId, from)),
                  ),
            ),
          )
          .limit(1);
        if (item.id && (!row || (row.fromPersonId !== from && row.toPersonId !== from))) throw notFound('Private message');
        if (!row) {
          const conv = item.conversationId
            ? await pairConversation(tx, churchId, item.conversationId, itemParam(req, i, 'conversationId'))
            : await createConversation(tx, churchId, { contentType: 'privateMessage', contentId: from, title: name ? `Message from ${name}` : 'Private message', visibility: 'hidden' });
          [row] = await tx
            .insert(privateMessages)
            .values({ id: randomUUID(), churchId, conversationId: conv.id, fromPersonId: from, toPersonId: item.toPersonId, deliveryMethod: item.deliveryMethod ?? null })
            .returning();
        }
        const recipient = row!.fromPersonId === from ? row!.toPersonId : row!.fromPersonId;
        if (item.content) await insertMessage(tx, churchId, { conversationId: row!.conversationId, personId: from, displayName: item.displayName || name, content: item.content, messageType: 'privateMessage' });
        [row] = await tx.update(privateMessages).set({ notifyPersonId: recipient, updatedAt: new Date() }).where(eq(privateMessages.id, row!.id)).returning();
        out.push(row!);
      }
      return out;
    });
    const d = deps();
    const expanded = await expand(churchId, saved);
    for (const pm of expanded) {
      const recipient = pm.notifyPersonId!;
      await d.providers.realtime.publishToPerson(churchId, recipient, { churchId, conversationId: pm.conversationId, action: 'privateMessage', data: pm });
      // The recipient's notification and push (preferences decide push and email).
      const rows = await insertNotifications(d, {
        churchId,
        personIds: [recipient],
        message: `${name ?? 'Someone'} sent you a private message`,
        contentType: 'privateMessage',
        contentId: pm.conversationId,
        link: `/messages/${pm.id}`,
        triggeredByPersonId: from,
      });
      if (rows.length) await d.queue.enqueue('messaging.deliverNotifications', { churchId, ids: rows.map((r) => r.id) });
    }
    return expanded;
  });

}
