import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { actorOf, Id, IdParams, batchOf, checkReferences, decodeDataUrl, badRequest, getRow, itemParam, rowsByIds, saveRows, unauthorized, type Tx, type ZodTypeProvider } from '@church/common';
import { tasks } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { nextTaskNumber, openDirectoryUpdates, tasksOfGroups, tasksOfPerson, timeline, type TaskRow } from '../repos/tasks';
import { mayReadTask, normalizeChanges, requestedChangesText, toPersonChanges } from '../domain/directory-update';
import { changesOf, report } from '../domain/changes';
import { TASK_REFERENCES } from '../domain/references';
import { DirectoryUpdate, IdsQuery, LoadForGroupsBody, Task, TaskSave } from '../schemas';

const base = '/doing/tasks';
const List = z.array(Task);
type TaskInput = z.output<typeof TaskSave>;

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
  // them (People.Edit); anyone else 401 (B1App's directory asks for every profile it opens and shows them on one's own).
  app.get(`${base}/directoryUpdate/:personId`, { ...read, schema: { params: z.object({ personId: Id }), response: { 200: z.array(DirectoryUpdate) } } }, async (req) => {
    const self = !!req.auth.personId && req.auth.personId.toLowerCase() === req.params.personId.toLowerCase();
    if (!self && !hasPermission(req.auth, 'People.Edit')) throw unauthorized("Missing permission: People.Edit (another person's directory updates)");
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

  app.post(base, { ...read, schema: { querystring: z.object({ type: z.enum(['directoryUpdate']).optional() }), body: batchOf(TaskSave), response: { 200: List } } }, async (req) => {
    const churchId = req.auth.churchId;
    const directory = req.query.type === 'directoryUpdate';
    // Photos are stored before the transaction: a data URL becomes a file and the task keeps its address.
    const prepared = await Promise.all(req.body.map((item, i) => prepare(req, item, i, directory)));
    // the people and groups a task is about, by and for are the church's (membership's)
    await checkReferences(req, prepared, TASK_REFERENCES);
    // Approved directory updates reach membership before the transaction (never a call inside one): if membership
    // refuses, nothing is written and the task stays open.
    const approvals = await approvalsOf(req, prepared);
    for (const { personId, changes } of approvals) await membership.updatePerson(churchId, personId, changes);
    return app.deps.queue.transaction(app.db, async (tx) => {
      const stored = await rowsByIds(tx, tasks, churchId, prepared.flatMap((t) => (t.id ? [t.id.toLowerCase()] : [])));
      const byId = new Map(stored.map((t) => [t.id, t]));
      const rows = [];
      for (const [i, item] of prepared.entries()) rows.push(await toRow(tx, req, item, i, item.id ? byId.get(item.id.toLowerCase()) : undefined));
      const written = await saveRows(tx, tasks, churchId, rows, 'Task');
      await report(app.deps, actorOf(req), changesOf('task', written, stored), tx);
      return written;
    });
  });

  async function prepare(req: FastifyRequest, item: TaskInput, i: number, directory: boolean): Promise<TaskInput & { changes?: Record<string, unknown> }> {
    if (!directory && item.taskType !== 'directoryUpdate') return item;
    if (item.data === undefined) return { ...item, taskType: 'directoryUpdate' };
    const changes = normalizeChanges(item.data, itemParam(req, i, 'data'));
    if (typeof changes.photo === 'string' && changes.photo.startsWith('data:')) {
      const file = decodeDataUrl(changes.photo);
      if (!file || !/^image\/(png|jpe?g|webp|gif)$/.test(file.contentType)) throw badRequest(itemParam(req, i, 'data.photo'), 'must be a PNG, JPEG, WebP or GIF image');
      changes.photo = await app.deps.storage.put(`${req.auth.churchId}/directory-updates/${randomUUID()}.${file.extension}`, file.body, file.contentType);
    }
    return { ...item, taskType: 'directoryUpdate', changes };
  }

  const staff = (req: FastifyRequest) => hasPermission(req.auth, 'Plans.Edit');
  const refused = () => unauthorized('Missing permission: Plans.Edit (tasks of others)');

  async function toRow(tx: Tx, req: FastifyRequest, input: TaskInput & { changes?: Record<string, unknown> }, i: number, before: TaskRow | undefined) {
    const churchId = req.auth.churchId;
    const { approved, changes, data: _data, ...item } = input;
    const row: Record<string, unknown> = { ...item };
    if (changes) row.data = changes;
    if (approved !== undefined) row.resolution = approved ? 'approved' : 'rejected';
    if (!item.id) {
      row.taskNumber = await nextTaskNumber(tx, churchId);
      row.dateCreated = new Date();
      row.status = item.status ?? 'Open';
      if (!item.createdByType && req.auth.personId) Object.assign(row, { createdByType: 'person', createdById: req.auth.personId });
      if (item.taskType === 'directoryUpdate') {
        if (!changes) throw badRequest(itemParam(req, i, 'data'), 'must list the requested changes');
        row.associatedWithType = item.associatedWithType ?? 'person';
        row.associatedWithId = item.associatedWithId ?? req.auth.personId;
        if (!row.associatedWithId) throw badRequest(itemParam(req, i, 'associatedWithId'), 'is required');
        // a member files their own request; staff may file one for anyone
        if (!staff(req) && (row.associatedWithType !== 'person' || String(row.associatedWithId).toLowerCase() !== req.auth.personId?.toLowerCase())) throw refused();
        row.title ??= 'Directory update';
      } else {
        if (!staff(req)) throw refused();
        if (!item.title) throw badRequest(itemParam(req, i, 'title'), 'title is required');
      }
      if (row.status === 'Closed') row.dateClosed = new Date();
      return row;
    }
    if (!before) return row; // not the church's: the save answers 404
    // staff, or the person the task is assigned to
    const assignee = before.assignedToType === 'person' && !!req.auth.personId && before.assignedToId?.toLowerCase() === req.auth.personId.toLowerCase();
    if (!staff(req) && !assignee && !hasPermission(req.auth, 'People.Edit')) throw refused();
    if (item.status && item.status !== before.status) row.dateClosed = item.status === 'Closed' ? new Date() : null;
    return row;
  }

  /**
   * The directory updates this batch approves (an open one closed as approved), each checked: People.Edit (it
   * rewrites another person's record, as editing a person does), a person named, changes listed. Read before the
   * save's transaction, so membership is called outside it.
   */
  async function approvalsOf(req: FastifyRequest, items: Array<TaskInput & { changes?: Record<string, unknown> }>) {
    const ids = items.flatMap((t) => (t.id ? [t.id.toLowerCase()] : []));
    const stored = new Map((await rowsByIds(app.db, tasks, req.auth.churchId, ids)).map((t) => [t.id, t]));
    const out: Array<{ personId: string; changes: Record<string, unknown> }> = [];
    for (const [i, item] of items.entries()) {
      const before = item.id ? stored.get(item.id.toLowerCase()) : undefined;
      if (!before || before.taskType !== 'directoryUpdate' || before.status !== 'Open' || item.status !== 'Closed') continue;
      const resolution = item.approved !== undefined ? (item.approved ? 'approved' : 'rejected') : (item.resolution ?? before.resolution);
      if (resolution !== 'approved') continue;
      if (!hasPermission(req.auth, 'People.Edit')) throw unauthorized('Missing permission: People.Edit (approving a directory update)');
      const personId = before.associatedWithId;
      if (!personId || before.associatedWithType !== 'person' || !Id.safeParse(personId).success) throw badRequest(itemParam(req, i, 'associatedWithId'), 'the task names no person');
      const requested = (item.changes ?? before.data) as Record<string, unknown> | null;
      if (!requested || typeof requested !== 'object' || !Object.keys(requested).length) throw badRequest(itemParam(req, i, 'data'), 'the task lists no changes');
      out.push({ personId, changes: toPersonChanges(requested) });
    }
    return out;
  }
}
