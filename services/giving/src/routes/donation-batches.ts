import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { actorOf, batchOf, crud, IdParams, type ZodTypeProvider } from '@church/common';
import { donationBatches } from '../db/schema';
import { givingDeps } from '../deps';
import { removeBatch, saveBatches } from '../domain/batches';
import { listBatches, withTotals } from '../repos/batches';
import { Batch, BatchSave } from '../schemas';

const base = '/giving/donationbatches';

/** `/giving/donationbatches`: batches with their donation count and total; deleting one deletes its donations. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);

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
  app.post(base, { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(BatchSave), response: { 200: z.array(Batch) } } }, async (req) =>
    withTotals(app.db, req.auth.churchId, await saveBatches(deps, actorOf(req), req.body)),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: z.object({ deletedDonations: z.number().int() }) } } }, async (req) => ({
    deletedDonations: await removeBatch(deps, actorOf(req), req.params.id),
  }));
}
