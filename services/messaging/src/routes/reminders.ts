import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requires } from '@church/auth';
import { IdParams, actorOf, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { assertMayManage, previewEvent, removeReminder, saveReminder } from '../domain/reminders';
import { definitionsOf, type Target } from '../repos/reminders';
import { Empty } from '../schemas/common';
import { PreviewQuery, Reminder, ReminderPreview, Reminders, SaveReminder } from '../schemas/reminders';

const base = '/messaging/reminders';
const tags = ['Reminders'];
/** Events' reminders: their editors, and the leaders of their group (narrowed to that group in the handler). */
const eventEditors = requires('Content.Edit or Group Leader');
/** Plan types' and tasks' reminders: serving's editors. */
const servingEditors = requires('Content.Edit or Plans.Edit');

/**
 * `/messaging/reminders` (B1Admin's and B1App's reminder editors): one reminder per event, plan type (inherited by
 * each of its plans) and task, planned and sent by the scheduler (`domain/reminder-schedule.ts`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  const list = async (req: FastifyRequest, target: Target) => {
    await assertMayManage(deps, req.auth, target.entityType, target.entityId ?? null);
    return definitionsOf(app.db, req.auth.churchId, target);
  };

  /** Saves the one reminder of an entity or scope and plans its sends in the same transaction. */
  const save = (req: FastifyRequest, target: Target, body: SaveReminder) => saveReminder(deps, actorOf(req), target, body);

  const read = (summary: string) => ({ tags, summary, params: IdParams, response: { 200: Reminders } });
  const write = (summary: string) => ({ tags, summary, params: IdParams, body: SaveReminder, response: { 200: Reminder } });

  app.get(`${base}/event/:id`, { config: { access: eventEditors }, schema: read("An event's reminder") }, (req) => list(req, { entityType: 'event', entityId: req.params.id }));
  app.post(`${base}/event/:id`, { config: { access: eventEditors }, schema: write("Set an event's reminder") }, (req) => save(req, { entityType: 'event', entityId: req.params.id }, req.body));
  app.get(
    `${base}/event/:id/preview`,
    { config: { access: eventEditors }, schema: { tags, summary: "Who an event's reminder would reach, and when", params: IdParams, querystring: PreviewQuery, response: { 200: ReminderPreview } } },
    async (req) => {
      await assertMayManage(deps, req.auth, 'event', req.params.id);
      return previewEvent(deps, req.auth.churchId, req.params.id, req.query);
    },
  );
  app.get(`${base}/scope/plan/:id`, { config: { access: servingEditors }, schema: read("A plan type's reminder (for each of its plans)") }, (req) =>
    list(req, { entityType: 'plan', scopeId: req.params.id }),
  );
  app.post(`${base}/scope/plan/:id`, { config: { access: servingEditors }, schema: write("Set a plan type's reminder (for each of its plans)") }, (req) =>
    save(req, { entityType: 'plan', scopeId: req.params.id }, req.body),
  );
  app.get(`${base}/task/:id`, { config: { access: servingEditors }, schema: read("A task's reminder") }, (req) => list(req, { entityType: 'task', entityId: req.params.id }));
  app.post(`${base}/task/:id`, { config: { access: servingEditors }, schema: write("Set a task's reminder") }, (req) => save(req, { entityType: 'task', entityId: req.params.id }, req.body));

  // Its reminders not yet sent go with it.
  app.delete(
    `${base}/:id`,
    { config: { access: requires('Content.Edit or Plans.Edit or Group Leader') }, schema: { tags, summary: 'Remove a reminder', params: IdParams, response: { 200: Empty } } },
    async (req) => {
      await removeReminder(deps, actorOf(req), req.params.id);
      return {};
    },
  );
}
