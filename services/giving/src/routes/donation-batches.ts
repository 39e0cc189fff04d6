import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { batchOf, crud, IdParams, notFound, reportChanges, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { donationBatches } from '../db/schema';
import { deleteBatch, listBatches, withTotals } from '../repos/batches';
import { deleteAllocationsOf } from '../repos/fund-donations';
import { deleteDonationsOfBatch } from '../repos/manual-donations';
import { Batch, BatchSave } from '../schemas';

const base = '/giving/donationbatches';

/** `/giving/donationbatches`: batches with their donation count and total; deleting one deletes its donations. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  crud(app, {
    path: base,
    name: 'Batch',
    table: donationBatches,
    item: Batch,
    save: BatchSave,
    only: ['list', 'get'],
    view: requires('Donations.ViewSummary'),
    edit: requires('Donations.Edit'),
    readers: { list: (req) => listBatches(app.db, req.auth.churchId), get: async (req, id) => (await listBatches(app.db, req.auth.churchId, id))[0] },
  });

  // The batch save answers its batches with their totals (an updated batch keeps its donations).
  app.post(base, { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(BatchSave), response: { 200: z.array(Batch) } } }, async (req) => {
    const churchId = req.auth.churchId;
    // A batch without a date is today's; without a name, named after its day.
    const rows = req.body.map((item): { id?: string; name?: string; batchDate?: Date | null } => {
      if (item.id) return { id: item.id, ...(item.name ? { name: item.name } : {}), ...(item.batchDate !== undefined ? { batchDate: item.batchDate ?? null } : {}) };
      const batchDate = item.batchDate ?? new Date();
      return { name: item.name ?? `Batch ${batchDate.toISOString().slice(0, 10)}`, batchDate };
    });
    const saved = await app.db.transaction(async (tx) => {
      const before = new Map((await rowsByIds(tx, donationBatches, churchId, rows.flatMap((r) => (r.id ? [r.id.toLowerCase()] : [])))).map((r) => [r.id, r]));
      const written = await saveRows(tx, donationBatches, churchId, rows, 'Batch');
      await reportChanges(app.deps, written.map((after) => ({ churchId, entityType: 'donationBatch', entityId: after.id, action: before.has(after.id) ? 'updated' : 'created', before: before.get(after.id), after })), { req, tx });
      return written;
    });
    return withTotals(app.db, churchId, saved);
  });

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: z.object({ deletedDonations: z.number().int() }) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const removed = await app.db.transaction(async (tx) => {
      const batch = await deleteBatch(tx, churchId, req.params.id);
      if (!batch) throw notFound('Batch');
      const gone = await deleteDonationsOfBatch(tx, churchId, batch.id);
      const allocations = await deleteAllocationsOf(tx, churchId, gone.map((d) => d.id));
      await reportChanges(
        app.deps,
        [
          { churchId, entityType: 'donationBatch', entityId: batch.id, action: 'destroyed', before: batch },
          ...gone.map((d) => ({ churchId, entityType: 'donation', entityId: d.id, action: 'destroyed', before: d })),
          ...allocations.map((a) => ({ churchId, entityType: 'fundDonation', entityId: a.id, action: 'destroyed', before: a })),
        ],
        { req, tx },
      );
      return gone.length;
    });
    return { deletedDonations: removed };
  });
}
