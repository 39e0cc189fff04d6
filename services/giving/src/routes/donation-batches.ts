import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { batchOf, getRow, IdParams, listRows, notFound, type ZodTypeProvider } from '@church/common';
import { donationBatches, donations, fundDonations } from '../db/schema';
import { batchTotals } from '../repos/donations';
import { Batch, BatchSave } from '../schemas';

type BatchRow = typeof donationBatches.$inferSelect;

/** `/giving/donationbatches`: batches with their donation count and total; deleting one deletes its donations. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const withTotals = async (churchId: string, rows: BatchRow[]) => {
    const totals = await batchTotals(app.db, churchId, rows.map((r) => r.id));
    return rows.map((r) => ({ id: r.id, name: r.name, batchDate: r.batchDate, donationCount: totals.get(r.id)?.count ?? 0, totalAmount: totals.get(r.id)?.total ?? 0 }));
  };

  app.get('/giving/donationbatches', { config: { access: requires('Donations.ViewSummary') }, schema: { response: { 200: z.array(Batch) } } }, async (req) =>
    withTotals(req.auth.churchId, (await listRows(app.db, donationBatches, req.auth.churchId, { orderBy: [desc(donationBatches.batchDate), desc(donationBatches.createdAt)] })) as BatchRow[]),
  );

  app.get('/giving/donationbatches/:id', { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: Batch } } }, async (req) =>
    (await withTotals(req.auth.churchId, [(await getRow(app.db, donationBatches, req.auth.churchId, req.params.id, 'Batch')) as BatchRow]))[0]!,
  );

  app.post('/giving/donationbatches', { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(BatchSave), response: { 200: z.array(Batch) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const saved = await app.db.transaction(async (tx) => {
      const out: BatchRow[] = [];
      for (const item of req.body) {
        if (item.id) {
          const [row] = await tx
            .update(donationBatches)
            .set({ ...(item.name ? { name: item.name } : {}), ...(item.batchDate !== undefined ? { batchDate: item.batchDate ?? null } : {}), updatedAt: new Date() })
            .where(and(eq(donationBatches.churchId, churchId), eq(donationBatches.id, item.id)))
            .returning();
          if (!row) throw notFound('Batch');
          out.push(row);
        } else {
          const batchDate = item.batchDate ?? new Date();
          const [row] = await tx
            .insert(donationBatches)
            .values({ id: randomUUID(), churchId, name: item.name ?? `Batch ${batchDate.toISOString().slice(0, 10)}`, batchDate })
            .returning();
          out.push(row!);
        }
      }
      return out;
    });
    return withTotals(churchId, saved);
  });

  app.delete('/giving/donationbatches/:id', { config: { access: requires('Donations.Edit') }, schema: { params: IdParams } }, async (req) => {
    const churchId = req.auth.churchId;
    const removed = await app.db.transaction(async (tx) => {
      const [batch] = await tx.delete(donationBatches).where(and(eq(donationBatches.churchId, churchId), eq(donationBatches.id, req.params.id))).returning({ id: donationBatches.id });
      if (!batch) throw notFound('Batch');
      const gone = await tx.delete(donations).where(and(eq(donations.churchId, churchId), eq(donations.batchId, batch.id))).returning({ id: donations.id });
      if (gone.length) await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.donationId, gone.map((d) => d.id))));
      return gone.length;
    });
    return { deletedDonations: removed };
  });
}
