import type { z } from 'zod';
import { notFound, reportChanges, rowsByIds, saveRows, type Actor } from '@church/common';
import { donationBatches } from '../db/schema';
import type { GivingDeps } from '../deps';
import { deleteBatch } from '../repos/batches';
import { deleteAllocationsOf } from '../repos/fund-donations';
import { deleteDonationsOfBatch } from '../repos/manual-donations';
import type { BatchSave } from '../schemas';

type BatchDeps = Pick<GivingDeps, 'db' | 'queue' | 'module'>;

/**
 * `POST /donationbatches`: batches saved in one transaction and reported (an updated batch keeps its donations).
 * A new batch without a date is today's; without a name, named after its day. Answers the rows in input order.
 */
export async function saveBatches(deps: BatchDeps, actor: Actor, body: Array<z.output<typeof BatchSave>>) {
  const churchId = actor.churchId;
  const rows = body.map((item): { id?: string; name?: string; batchDate?: Date | null } => {
    if (item.id) return { id: item.id, ...(item.name ? { name: item.name } : {}), ...(item.batchDate !== undefined ? { batchDate: item.batchDate ?? null } : {}) };
    const batchDate = item.batchDate ?? new Date();
    return { name: item.name ?? `Batch ${batchDate.toISOString().slice(0, 10)}`, batchDate };
  });
  return deps.db.transaction(async (tx) => {
    const before = new Map((await rowsByIds(tx, donationBatches, churchId, rows.flatMap((r) => (r.id ? [r.id.toLowerCase()] : [])))).map((r) => [r.id, r]));
    const written = await saveRows(tx, donationBatches, churchId, rows, 'Batch');
    await reportChanges(deps, written.map((after) => ({ churchId, entityType: 'donationBatch', entityId: after.id, action: before.has(after.id) ? 'updated' : 'created', before: before.get(after.id), after })), { req: actor, tx });
    return written;
  });
}

/** `DELETE /donationbatches/:id`: the batch with its donations and their allocations, each reported; answers how many donations went. */
export async function removeBatch(deps: BatchDeps, actor: Actor, id: string): Promise<number> {
  const churchId = actor.churchId;
  return deps.db.transaction(async (tx) => {
    const batch = await deleteBatch(tx, churchId, id);
    if (!batch) throw notFound('Batch');
    const gone = await deleteDonationsOfBatch(tx, churchId, batch.id);
    const allocations = await deleteAllocationsOf(tx, churchId, gone.map((d) => d.id));
    await reportChanges(
      deps,
      [
        { churchId, entityType: 'donationBatch', entityId: batch.id, action: 'destroyed', before: batch },
        ...gone.map((d) => ({ churchId, entityType: 'donation', entityId: d.id, action: 'destroyed', before: d })),
        ...allocations.map((a) => ({ churchId, entityType: 'fundDonation', entityId: a.id, action: 'destroyed', before: a })),
      ],
      { req: actor, tx },
    );
    return gone.length;
  });
}
