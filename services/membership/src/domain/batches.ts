import { randomUUID } from 'node:crypto';
import { badRequest, reportChanges, type Actor, type Db, type ModuleName, type Queue } from '@church/common';
import { findBatch, insertBatch, itemsOf, peopleNow, restorePerson, setBatchStatus, updateMany, type BatchRow } from '../repos/batches';
import { personChange } from './people/save';
import type { PersonRow, PersonValues } from '../repos/people';

/** How long a bulk change can be undone. */
export const UNDO_DAYS = 30;

type Deps = { module: ModuleName; queue: Queue };

/**
 * A bulk change of people (B1Admin's bulk edit and bulk delete) as one reviewable batch: the people's fields as
 * they were are kept (`batch_items`), the change is made, and each person's change is reported, all in one
 * transaction. Answers the ids changed and the batch.
 */
export async function bulkChangePeople(
  db: Db,
  deps: Deps,
  actor: Actor,
  change: { kind: 'update'; values: PersonValues } | { kind: 'delete' },
  ids: string[],
): Promise<{ ids: string[]; batchId: string }> {
  const { churchId } = actor;
  return db.transaction(async (tx) => {
    const before = (await peopleNow(tx, churchId, ids)).filter((p) => !p.removed) as PersonRow[];
    const fields = change.kind === 'update' ? (Object.keys(change.values) as Array<keyof PersonRow>) : (['removed'] as const);
    const changed = (await updateMany(tx, churchId, before.map((p) => p.id), change.kind === 'update' ? change.values : { removed: true })) as PersonRow[];
    const batchId = randomUUID();
    const now = new Date();
    const label = change.kind === 'update' ? `Updated ${fields.join(', ')} of ${changed.length} people` : `Deleted ${changed.length} people`;
    await insertBatch(
      tx,
      { id: batchId, churchId, userId: actor.id, label, source: change.kind === 'update' ? 'people/bulk-update' : 'people/bulk-delete', status: 'completed', itemCount: changed.length, createdAt: now, completedAt: now },
      before.map((p) => ({
        id: randomUUID(),
        churchId,
        batchId,
        entityType: 'person',
        entityId: p.id,
        action: change.kind === 'update' ? 'updated' : 'deleted',
        before: Object.fromEntries(fields.map((f) => [f, p[f] ?? null])),
      })),
    );
    const was = new Map(before.map((p) => [p.id, p]));
    await reportChanges(deps, changed.map((after) => personChange(churchId, was.get(after.id), after)), { req: actor, tx });
    return { ids: changed.map((p) => p.id), batchId };
  });
}

export interface UndoResult {
  restored: number;
  skippedConflicts: Array<{ entityType: string; entityId: string }>;
  failed: Array<{ entityType: string; entityId: string; reason: string }>;
  status: BatchRow['status'];
}

/**
 * Undoes a completed batch within `UNDO_DAYS`: each person's fields go back to what they were before it, except
 * people changed again since (their later change wins; they are reported as conflicts). One transaction; the batch
 * is then `undone`, or `partial` when some could not be restored.
 */
export async function undoBatch(db: Db, deps: Deps, actor: Actor, batchId: string): Promise<UndoResult | undefined> {
  const { churchId } = actor;
  return db.transaction(async (tx) => {
    const batch = await findBatch(tx, churchId, batchId, true);
    if (!batch) return undefined;
    if (batch.status !== 'completed') throw badRequest('status', `This batch is ${batch.status}, not completed`);
    const done = batch.completedAt ?? batch.createdAt;
    if (Date.now() - batch.createdAt.getTime() > UNDO_DAYS * 24 * 3600 * 1000) throw badRequest('id', `Batches can be undone for ${UNDO_DAYS} days`);
    const items = await itemsOf(tx, churchId, batch.id);
    const now = new Map((await peopleNow(tx, churchId, items.map((i) => i.entityId))).map((p) => [p.id, p as PersonRow]));
    const result: UndoResult = { restored: 0, skippedConflicts: [], failed: [], status: 'undone' };
    const changes = [];
    for (const item of items) {
      const current = now.get(item.entityId);
      if (!current) {
        result.failed.push({ entityType: item.entityType, entityId: item.entityId, reason: 'the record no longer exists' });
        continue;
      }
      // Changed again after the batch: the later change is kept.
      if (current.updatedAt.getTime() > done.getTime() + 1000) {
        result.skippedConflicts.push({ entityType: item.entityType, entityId: item.entityId });
        continue;
      }
      const after = await restorePerson(tx, churchId, item.entityId, item.before as Record<string, unknown>);
      result.restored++;
      changes.push(personChange(churchId, current, after as PersonRow, item.action === 'deleted' ? 'restored' : 'updated'));
    }
    if (result.skippedConflicts.length || result.failed.length) result.status = 'partial';
    await setBatchStatus(tx, churchId, batch.id, result.status);
    await reportChanges(deps, [...changes, { churchId, entityType: 'batch', entityId: batch.id, action: 'undone', after: { restored: result.restored } }], { req: actor, tx });
    return result;
  });
}
