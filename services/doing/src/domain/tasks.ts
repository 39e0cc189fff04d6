import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { Id, assertReferences, badRequest, decodeDataUrl, rowsByIds, saveRows, unauthorized, type Actor, type Tx } from '@church/common';
import type { DoingDeps } from '../deps';
import { tasks } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { nextTaskNumber, type TaskRow } from '../repos/tasks';
import type { TaskSave } from '../schemas';
import { changesOf, report } from './changes';
import { normalizeChanges, toPersonChanges } from './directory-update';
import type { Param } from './plans';
import { TASK_REFERENCES } from './references';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module' | 'storage'>;
type TaskInput = z.output<typeof TaskSave>;
type Prepared = TaskInput & { changes?: Record<string, unknown> };

const staff = (actor: Actor) => hasPermission(actor, 'Plans.Edit');
const refused = () => unauthorized('Missing permission: Plans.Edit (tasks of others)');

/**
 * A batch of tasks saved. Written by holders of Plans.Edit, with two exceptions: a person files their own directory
 * update (`directory`: the batch is of directory updates), and the person a task is assigned to may update it (close
 * it, note it). Photos are stored before the transaction (a data URL becomes a file and the task keeps its address);
 * the people and groups a task is about, by and for are the church's (membership's); approved directory updates
 * reach membership before the transaction (never a call inside one): if membership refuses, nothing is written and
 * the task stays open.
 */
export async function saveTasks(deps: Deps, actor: Actor, input: TaskInput[], directory: boolean, param: Param): Promise<TaskRow[]> {
  const churchId = actor.churchId;
  const prepared = await Promise.all(input.map((item, i) => prepare(deps, actor, item, i, directory, param)));
  await assertReferences(deps, churchId, prepared, TASK_REFERENCES, param);
  const approvals = await approvalsOf(deps, actor, prepared, param);
  const membership = membershipClient(deps.internal);
  for (const { personId, changes } of approvals) await membership.updatePerson(churchId, personId, changes);
  return deps.queue.transaction(deps.db, async (tx) => {
    const stored = await rowsByIds(tx, tasks, churchId, prepared.flatMap((t) => (t.id ? [t.id.toLowerCase()] : [])));
    const byId = new Map(stored.map((t) => [t.id, t]));
    const rows = [];
    for (const [i, item] of prepared.entries()) rows.push(await toRow(tx, actor, item, i, item.id ? byId.get(item.id.toLowerCase()) : undefined, param));
    const written = await saveRows(tx, tasks, churchId, rows, 'Task');
    await report(deps, actor, changesOf('task', written, stored), tx);
    return written;
  });
}

/** A directory update's requested changes read (its photo stored as a file); other tasks as they came. */
async function prepare(deps: Deps, actor: Actor, item: TaskInput, i: number, directory: boolean, param: Param): Promise<Prepared> {
  if (!directory && item.taskType !== 'directoryUpdate') return item;
  if (item.data === undefined) return { ...item, taskType: 'directoryUpdate' };
  const changes = normalizeChanges(item.data, param(i, 'data'));
  if (typeof changes.photo === 'string' && changes.photo.startsWith('data:')) {
    const file = decodeDataUrl(changes.photo);
    if (!file || !/^image\/(png|jpe?g|webp|gif)$/.test(file.contentType)) throw badRequest(param(i, 'data.photo'), 'must be a PNG, JPEG, WebP or GIF image');
    changes.photo = await deps.storage.put(`${actor.churchId}/directory-updates/${randomUUID()}.${file.extension}`, file.body, file.contentType);
  }
  return { ...item, taskType: 'directoryUpdate', changes };
}

/** The row a task input saves, once the caller may write it (a new task numbered, the caller its creator). */
async function toRow(tx: Tx, actor: Actor, input: Prepared, i: number, before: TaskRow | undefined, param: Param) {
  const churchId = actor.churchId;
  const { approved, changes, data: _data, ...item } = input;
  const row: Record<string, unknown> = { ...item };
  if (changes) row.data = changes;
  if (approved !== undefined) row.resolution = approved ? 'approved' : 'rejected';
  if (!item.id) {
    row.taskNumber = await nextTaskNumber(tx, churchId);
    row.dateCreated = new Date();
    row.status = item.status ?? 'Open';
    if (!item.createdByType && actor.personId) Object.assign(row, { createdByType: 'person', createdById: actor.personId });
    if (item.taskType === 'directoryUpdate') {
      if (!changes) throw badRequest(param(i, 'data'), 'must list the requested changes');
      row.associatedWithType = item.associatedWithType ?? 'person';
      row.associatedWithId = item.associatedWithId ?? actor.personId;
      if (!row.associatedWithId) throw badRequest(param(i, 'associatedWithId'), 'is required');
      // a member files their own request; staff may file one for anyone
      if (!staff(actor) && (row.associatedWithType !== 'person' || String(row.associatedWithId).toLowerCase() !== actor.personId?.toLowerCase())) throw refused();
      row.title ??= 'Directory update';
    } else {
      if (!staff(actor)) throw refused();
      if (!item.title) throw badRequest(param(i, 'title'), 'title is required');
    }
    if (row.status === 'Closed') row.dateClosed = new Date();
    return row;
  }
  if (!before) return row; // not the church's: the save answers 404
  // staff, or the person the task is assigned to
  const assignee = before.assignedToType === 'person' && !!actor.personId && before.assignedToId?.toLowerCase() === actor.personId.toLowerCase();
  if (!staff(actor) && !assignee && !hasPermission(actor, 'People.Edit')) throw refused();
  if (item.status && item.status !== before.status) row.dateClosed = item.status === 'Closed' ? new Date() : null;
  return row;
}

/**
 * The directory updates this batch approves (an open one closed as approved), each checked: People.Edit (it
 * rewrites another person's record, as editing a person does), a person named, changes listed. Read before the
 * save's transaction, so membership is called outside it.
 */
async function approvalsOf(deps: Deps, actor: Actor, items: Prepared[], param: Param) {
  const ids = items.flatMap((t) => (t.id ? [t.id.toLowerCase()] : []));
  const stored = new Map((await rowsByIds(deps.db, tasks, actor.churchId, ids)).map((t) => [t.id, t]));
  const out: Array<{ personId: string; changes: Record<string, unknown> }> = [];
  for (const [i, item] of items.entries()) {
    const before = item.id ? stored.get(item.id.toLowerCase()) : undefined;
    if (!before || before.taskType !== 'directoryUpdate' || before.status !== 'Open' || item.status !== 'Closed') continue;
    const resolution = item.approved !== undefined ? (item.approved ? 'approved' : 'rejected') : (item.resolution ?? before.resolution);
    if (resolution !== 'approved') continue;
    if (!hasPermission(actor, 'People.Edit')) throw unauthorized('Missing permission: People.Edit (approving a directory update)');
    const personId = before.associatedWithId;
    if (!personId || before.associatedWithType !== 'person' || !Id.safeParse(personId).success) throw badRequest(param(i, 'associatedWithId'), 'the task names no person');
    const requested = (item.changes ?? before.data) as Record<string, unknown> | null;
    if (!requested || typeof requested !== 'object' || !Object.keys(requested).length) throw badRequest(param(i, 'data'), 'the task lists no changes');
    out.push({ personId, changes: toPersonChanges(requested) });
  }
  return out;
}
