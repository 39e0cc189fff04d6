import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { actorOf, Id, IdParams, batchOf, getRow, itemParam, unauthorized, type ZodTypeProvider } from '@church/common';
import { tasks } from '../db/schema';
import { doingDeps } from '../deps';
import { membershipClient } from '../clients/membership';
import { openDirectoryUpdates, tasksOfGroups, tasksOfPerson, timeline } from '../repos/tasks';
import { mayReadTask, requestedChangesText } from '../domain/directory-update';
import { saveTasks } from '../domain/tasks';
import { DirectoryUpdate, IdsQuery, LoadForGroupsBody, Task, TaskSave } from '../schemas';

const base = '/doing/tasks';
const List = z.array(Task);

/**
 * `/doing/tasks`: numbered tasks; directory updates carry a person's requested changes until approved. Read by anyone
 * signed in for their own (spec). Written by holders of Plans.Edit (issue 31), with two exceptions: a person files
 * their own directory update, and the person a task is assigned to may update it (close it, note it).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const membership = membershipClient(app.deps.internal);

  /** The caller's groups, from membership; the token's led groups when membership cannot answer. */
  const groupsOf = async (req: FastifyRequest): Promise<string[]> => {
    if (!req.auth.personId) return [];
    try {
      const [me] = await membership.peopleFacts(req.auth.churchId, [req.auth.personId]);
      return me?.groupIds ?? req.auth.leaderGroupIds;
    } catch (err) {
      req.log.warn({ err }, 'membership unavailable; tasks of led groups only');
      return req.auth.leaderGroupIds;
    }
  };
  const mine = async (req: FastifyRequest, open: boolean) => (req.auth.personId ? tasksOfPerson(app.db, req.auth.churchId, req.auth.personId, await groupsOf(req), open) : []);

  app.get(base, { ...read, schema: { response: { 200: List } } }, (req) => mine(req, true));
  app.get(`${base}/closed`, { ...read, schema: { response: { 200: List } } }, (req) => mine(req, false));
  app.get(`${base}/timeline`, { ...read, schema: { querystring: z.object({ taskIds: IdsQuery }), response: { 200: List } } }, async (req) =>
    (await timeline(app.db, req.auth.churchId, req.query.taskIds)).filter((task) => mayReadTask(req.auth, task)),
  );
  // B1App's profile page lists them (`.length`, `.map`) and `JSON.parse`s each one's `data` as `[{field, label, value}]`.
  // They are a person's requested contact details, not yet approved: the person themselves, or staff who may approve
  // them (People.Edit); anyone else reads none. B1App's directory asks for every profile it opens and shows an
  // "Access denied" alert on an error, so another member gets the empty list (as the timeline leaves them out).
  app.get(`${base}/directoryUpdate/:personId`, { ...read, schema: { params: z.object({ personId: Id }), response: { 200: z.array(DirectoryUpdate) } } }, async (req) => {
    const self = !!req.auth.personId && req.auth.personId.toLowerCase() === req.params.personId.toLowerCase();
    if (!self && !hasPermission(req.auth, 'People.Edit')) return [];
    return (await openDirectoryUpdates(app.db, req.auth.churchId, req.params.personId)).map((task) => ({ ...task, data: requestedChangesText(task.data) }));
  });
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: Task } } }, async (req) => {
    const task = await getRow(app.db, tasks, req.auth.churchId, req.params.id, 'Task');
    if (!mayReadTask(req.auth, task)) throw unauthorized("Missing permission: People.Edit (another person's directory update)");
    return task;
  });
  app.post(`${base}/loadForGroups`, { ...read, schema: { body: LoadForGroupsBody, response: { 200: List } } }, async (req) =>
    (await tasksOfGroups(app.db, req.auth.churchId, req.body.groupIds, req.body.status)).filter((task) => mayReadTask(req.auth, task)),
  );

  // Plans.Edit, a person's own directory update, or the assignee's update of their task (domain/tasks.ts).
  app.post(base, { ...read, schema: { querystring: z.object({ type: z.enum(['directoryUpdate']).optional() }), body: batchOf(TaskSave), response: { 200: List } } }, (req) =>
    saveTasks(doingDeps(app), actorOf(req), req.body, req.query.type === 'directoryUpdate', (i, f) => itemParam(req, i, f)),
  );
}
