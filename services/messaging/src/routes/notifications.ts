import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, actorOf, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { assertSelfOr } from '../domain/access';
import { NOTIFICATION_STAFF, ping, saveNotifications } from '../domain/notifications';
import { assertPeopleOfChurch, notify, pushToPerson } from '../domain/notify';
import { minuteLimiter } from '../domain/ping-limit';
import { emailDigest } from '../jobs/contracts';
import {
  deleteNotification,
  deleteNotificationsOf,
  findNotification,
  markRead,
  notificationsOf,
  unreadCounts,
} from '../repos/notifications';
import { ChurchIdParams, Empty } from '../schemas/common';
import { CreateMany, Marked, Notification, Ping, Queued, Removed, SaveNotification, SendTest, SendTestAnswer, UnreadCounts } from '../schemas/notifications';

const base = '/messaging/notifications';
const STAFF = NOTIFICATION_STAFF;
const VIEWERS = ['People.View', 'People.Edit'];
const PersonParams = z.object({ churchId: Id, personId: Id });

/** `/messaging/notifications`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);
  const limitPing = minuteLimiter(() => deps.config.PING_RATE_PER_MINUTE);
  const limitCreate = minuteLimiter(() => deps.config.NOTIFY_RATE_PER_MINUTE);

  // Asked on every page a member opens: one prepared, index-only statement.
  app.get(`${base}/unreadCount`, { config: { access: anyUser }, schema: { response: { 200: UnreadCounts } } }, async (req) =>
    req.auth.personId ? unreadCounts(app.db, req.auth.churchId, req.auth.personId) : { count: 0, notificationCount: 0, pmCount: 0 },
  );

  // The caller's notifications as they were before this read marked them read.
  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: z.array(Notification) } } }, async (req) => {
    if (!req.auth.personId) return [];
    const rows = await notificationsOf(app.db, req.auth.churchId, req.auth.personId);
    await markRead(app.db, req.auth.churchId, req.auth.personId);
    return rows;
  });

  // B1App's "clear all".
  app.delete(`${base}/my`, { config: { access: anyUser }, schema: { summary: 'Clear all of your notifications', response: { 200: Removed } } }, async (req) => ({
    removed: req.auth.personId ? await deleteNotificationsOf(app.db, req.auth.churchId, req.auth.personId) : 0,
  }));

  app.get(`${base}/tmpEmail`, { config: { access: 'public' }, schema: { response: { 200: Queued } } }, async () => {
    // One digest run per minute at most, however often this is called.
    await deps.queue.enqueue(emailDigest, {}, { jobId: `digest-now-${Math.floor(Date.now() / 60_000)}` });
    return { queued: true };
  });

  app.get(`${base}/:churchId/person/:personId`, { config: { access: anyUser }, schema: { params: PersonParams, response: { 200: z.array(Notification) } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    assertSelfOr(req.auth, req.params.personId, ...VIEWERS);
    return notificationsOf(app.db, req.auth.churchId, req.params.personId);
  });

  app.get(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Notification } } }, async (req) => {
    const row = req.params.churchId === req.auth.churchId ? await findNotification(app.db, req.auth.churchId, req.params.id) : undefined;
    if (!row) throw notFound('Notification');
    assertSelfOr(req.auth, row.personId, ...VIEWERS);
    return row;
  });

  // Your own, or anyone's with People.Edit; new ones are delivered (socket, push, email) by the job written with them.
  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SaveNotification), response: { 200: z.array(Notification) } } }, async (req) =>
    saveNotifications(deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  // Any member may notify people of the church (the caller is the trigger and is never notified), so many calls a
  // minute; none to notify is not an error.
  app.post(`${base}/create`, { config: { access: anyUser }, schema: { body: CreateMany, response: { 200: z.array(Notification) } } }, async (req) => {
    limitCreate(`${req.auth.churchId}|${req.auth.personId ?? req.auth.id}`);
    await assertPeopleOfChurch(deps, req.auth.churchId, req.body.peopleIds, (i) => `peopleIds[${i}]`, req.auth.personId);
    return notify(deps, { churchId: req.auth.churchId, personIds: req.body.peopleIds, message: req.body.message, contentType: req.body.contentType, contentId: req.body.contentId, link: req.body.link, triggeredByPersonId: req.auth.personId });
  });

  app.post(`${base}/markRead/:churchId/:personId`, { config: { access: anyUser }, schema: { params: PersonParams, response: { 200: Marked } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Person');
    assertSelfOr(req.auth, req.params.personId, ...STAFF);
    return { marked: await markRead(app.db, req.auth.churchId, req.params.personId) };
  });

  app.post(`${base}/sendTest`, { config: { access: anyUser }, schema: { body: SendTest, response: { 200: SendTestAnswer } } }, async (req) => {
    assertSelfOr(req.auth, req.body.personId, ...STAFF);
    return pushToPerson(deps, req.auth.churchId, req.body.personId, { title: req.body.title, body: 'This is a test notification.', contentType: 'test', contentId: req.body.personId });
  });

  app.post(`${base}/ping`, { config: { access: 'public' }, schema: { body: Ping, response: { 200: z.array(Notification) } } }, async (req) => {
    limitPing(req.body.churchId);
    return ping(deps, req.body);
  });

  app.delete(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Empty } } }, async (req) => {
    const row = req.params.churchId === req.auth.churchId ? await findNotification(app.db, req.auth.churchId, req.params.id) : undefined;
    if (!row) throw notFound('Notification');
    assertSelfOr(req.auth, row.personId, ...STAFF);
    await deleteNotification(app.db, req.auth.churchId, row.id);
    return {};
  });
}
