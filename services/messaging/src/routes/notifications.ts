import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, batchOf, itemParam, notFound, tooManyRequests, unauthorized, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { notifications } from '../db/schema';
import { assertSelfOr, isStaff } from '../domain/access';
import { notify, pushToPerson, unreadCount } from '../domain/notify';
import { contacts } from '../domain/people';
import { ChurchIdParams, ContentId, ContentType } from '../schemas';

const STAFF = ['People.Edit'];
const VIEWERS = ['People.View', 'People.Edit'];

const SaveNotification = z.object({
  id: Id.optional(),
  personId: Id,
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  link: z.string().max(2000).nullish(),
  isNew: z.boolean().optional(),
  deliveryMethod: z.string().max(50).nullish(),
});

const CreateMany = z.object({
  peopleIds: z.array(Id).min(1).max(5000),
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  link: z.string().max(2000).nullish(),
});

const Ping = z.object({
  churchId: Id,
  personId: Id,
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  triggeredByPersonId: Id.nullish(),
});

/** Per church and minute, on this replica: the public `ping` trigger cannot flood anyone. */
const pings = new Map<string, { minute: number; count: number }>();
function limitPing(churchId: string, perMinute: number) {
  const minute = Math.floor(Date.now() / 60_000);
  const entry = pings.get(churchId);
  if (!entry || entry.minute !== minute) {
    if (pings.size > 10_000) pings.clear();
    pings.set(churchId, { minute, count: 1 });
    return;
  }
  if (++entry.count > perMinute) throw tooManyRequests(60 - Math.floor((Date.now() / 1000) % 60));
}

/** `/messaging/notifications`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);

  app.get('/messaging/notifications/unreadCount', { config: { access: anyUser } }, async (req) => ({
    count: req.auth.personId ? await unreadCount(app, req.auth.churchId, req.auth.personId) : 0,
  }));

  app.get('/messaging/notifications/my', { config: { access: anyUser } }, async (req) => {
    if (!req.auth.personId) return [];
    const where = and(eq(notifications.churchId, req.auth.churchId), eq(notifications.personId, req.auth.personId));
    const rows = await app.db.select().from(notifications).where(where).orderBy(desc(notifications.timeSent)).limit(500);
    await app.db.update(notifications).set({ isNew: false }).where(and(where, eq(notifications.isNew, true)));
    return rows;
  });

  app.get('/messaging/notifications/tmpEmail', { config: { access: 'public' } }, async () => {
    // One digest run per minute at most, however often this is called.
    const minute = Math.floor(Date.now() / 60_000);
    await app.deps.queue.enqueue('messaging.emailDigest', {}, { jobId: `digest-now-${minute}` });
    return { queued: true };
  });

  app.get('/messaging/notifications/:churchId/person/:personId', { config: { access: anyUser }, schema: { params: z.object({ churchId: Id, personId: Id }) } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    assertSelfOr(req.auth, req.params.personId, ...VIEWERS);
    return app.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.churchId, req.auth.churchId), eq(notifications.personId, req.params.personId)))
      .orderBy(desc(notifications.timeSent))
      .limit(500);
  });

  app.get('/messaging/notifications/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    const [row] = req.params.churchId === req.auth.churchId ? await app.db.select().from(notifications).where(and(eq(notifications.churchId, req.auth.churchId), eq(notifications.id, req.params.id))) : [];
    if (!row) throw notFound('Notification');
    assertSelfOr(req.auth, row.personId, ...VIEWERS);
    return row;
  });

  app.post('/messaging/notifications', { config: { access: anyUser }, schema: { body: batchOf(SaveNotification) } }, async (req) => {
    const churchId = req.auth.churchId;
    const staff = isStaff(req.auth, ...STAFF);
    const created: string[] = [];
    const out = await app.db.transaction(async (tx) => {
      const rows = [];
      for (const [i, item] of req.body.entries()) {
        if (!staff && item.personId !== req.auth.personId) throw unauthorized(`${itemParam(req, i, 'personId')}: only your own notifications without People.Edit`);
        const { id, ...values } = item;
        if (id) {
          const [existing] = await tx.select().from(notifications).where(and(eq(notifications.churchId, churchId), eq(notifications.id, id)));
          if (!existing || (!staff && existing.personId !== req.auth.personId)) throw notFound('Notification');
          const [row] = await tx.update(notifications).set(values).where(eq(notifications.id, id)).returning();
          rows.push(row!);
        } else {
          const [row] = await tx
            .insert(notifications)
            .values({ ...values, id: randomUUID(), churchId, triggeredByPersonId: req.auth.personId })
            .returning();
          created.push(row!.id);
          rows.push(row!);
        }
      }
      return rows;
    });
    if (created.length) await app.deps.queue.enqueue('messaging.deliverNotifications', { churchId, ids: created });
    return out;
  });

  app.post('/messaging/notifications/create', { config: { access: anyUser }, schema: { body: CreateMany } }, async (req) =>
    notify(deps(), { churchId: req.auth.churchId, personIds: req.body.peopleIds, message: req.body.message, contentType: req.body.contentType, contentId: req.body.contentId, link: req.body.link, triggeredByPersonId: req.auth.personId }),
  );

  app.post('/messaging/notifications/markRead/:churchId/:personId', { config: { access: anyUser }, schema: { params: z.object({ churchId: Id, personId: Id }) } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Person');
    assertSelfOr(req.auth, req.params.personId, ...STAFF);
    const rows = await app.db
      .update(notifications)
      .set({ isNew: false })
      .where(and(eq(notifications.churchId, req.auth.churchId), eq(notifications.personId, req.params.personId), eq(notifications.isNew, true)))
      .returning({ id: notifications.id });
    return { marked: rows.length };
  });

  app.post('/messaging/notifications/sendTest', { config: { access: anyUser }, schema: { body: z.object({ personId: Id, title: z.string().trim().min(1).max(200) }) } }, async (req) => {
    assertSelfOr(req.auth, req.body.personId, ...STAFF);
    const result = await pushToPerson(deps(), req.auth.churchId, req.body.personId, { title: req.body.title, body: 'This is a test notification.', contentType: 'test', contentId: req.body.personId });
    return result;
  });

  app.post('/messaging/notifications/ping', { config: { access: 'public' }, schema: { body: Ping } }, async (req) => {
    limitPing(req.body.churchId, deps().config.PING_RATE_PER_MINUTE);
    const ids = [req.body.personId, ...(req.body.triggeredByPersonId ? [req.body.triggeredByPersonId] : [])];
    // membership answers only the church's live people: an unknown church or person finds nobody.
    const found = await contacts(deps(), req.body.churchId, { ids });
    if (!found.some((p) => p.id === req.body.personId)) throw notFound('Person');
    if (req.body.triggeredByPersonId && !found.some((p) => p.id === req.body.triggeredByPersonId)) throw notFound('Triggering person');
    const rows = await notify(deps(), {
      churchId: req.body.churchId,
      personIds: [req.body.personId],
      message: req.body.message,
      contentType: req.body.contentType,
      contentId: req.body.contentId,
      triggeredByPersonId: req.body.triggeredByPersonId,
    });
    return rows;
  });

  app.delete('/messaging/notifications/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    const [row] = req.params.churchId === req.auth.churchId ? await app.db.select().from(notifications).where(and(eq(notifications.churchId, req.auth.churchId), eq(notifications.id, req.params.id))) : [];
    if (!row) throw notFound('Notification');
    assertSelfOr(req.auth, row.personId, ...STAFF);
    await app.db.delete(notifications).where(eq(notifications.id, row.id));
    return {};
  });
}
