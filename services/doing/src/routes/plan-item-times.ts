import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, badRequest, batchOf, crud, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { planItemTimes, planItems, times } from '../db/schema';
import { requireRef } from '../repos/refs';
import { PlanItemTime, PlanItemTimeSave } from '../schemas';

const base = '/doing/planItemTimes';
const List = z.array(PlanItemTime);

/**
 * `/doing/planItemTimes`: which items of a plan's service order are left out of which of its times (B1Admin's
 * PlanItemEdit, ServiceOrder, PrintPlan). Part of the service order, so the same access as plan items (spec: a JWT).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const order = [asc(planItemTimes.planItemId), asc(planItemTimes.timeId)];
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) =>
    app.db.select().from(planItemTimes).where(and(eq(planItemTimes.churchId, req.auth.churchId), eq(planItemTimes.planId, req.params.planId))).orderBy(...order),
  );
  app.get(`${base}/planItem/:planItemId`, { ...read, schema: { params: z.object({ planItemId: Id }), response: { 200: List } } }, (req) =>
    app.db.select().from(planItemTimes).where(and(eq(planItemTimes.churchId, req.auth.churchId), eq(planItemTimes.planItemId, req.params.planItemId))).orderBy(...order),
  );
  // One row per item and time: a new row for a pair that is already stored updates that row (the editor adds
  // what it did not see stored, and two editors may add the same pair).
  app.post(base, { ...read, schema: { body: batchOf(PlanItemTimeSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      const saved = [];
      for (const [i, item] of req.body.entries()) {
        const planItem = await requireRef<{ planId: string }>(tx, planItems, churchId, item.planItemId, itemParam(req, i, 'planItemId'), 'Plan item');
        const time = await requireRef<{ planId: string }>(tx, times, churchId, item.timeId, itemParam(req, i, 'timeId'), 'Time');
        if (time.planId !== planItem.planId) throw badRequest(itemParam(req, i, 'timeId'), 'is a time of another plan than the item');
        const values = { planId: planItem.planId, planItemId: item.planItemId, timeId: item.timeId, ...(item.excluded === undefined ? {} : { excluded: item.excluded }) };
        if (item.id) {
          const [row] = await tx.update(planItemTimes).set({ ...values, updatedAt: new Date() }).where(and(eq(planItemTimes.churchId, churchId), eq(planItemTimes.id, item.id))).returning();
          if (!row) throw notFound('Plan item time');
          saved.push(row);
        } else {
          const [row] = await tx
            .insert(planItemTimes)
            .values({ id: randomUUID(), churchId, ...values })
            .onConflictDoUpdate({ target: [planItemTimes.churchId, planItemTimes.planItemId, planItemTimes.timeId], set: { excluded: sql`excluded.excluded`, updatedAt: new Date() } })
            .returning();
          saved.push(row!);
        }
      }
      return saved;
    }),
  );
  crud(app, { path: base, table: planItemTimes, item: PlanItemTime, save: PlanItemTimeSave, view: anyUser, edit: anyUser, only: ['get', 'delete'], name: 'Plan item time' });
}
