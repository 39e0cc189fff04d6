import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { and, eq } from 'drizzle-orm';
import { Id, badRequest, batchOf, crud, itemParam, listRows, saveRows, type ZodTypeProvider } from '@church/common';
import { planItemTimes, plans, times } from '../db/schema';
import { requireRef } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { IdsQuery, Time, TimeSave } from '../schemas';

const base = '/doing/times';
const List = z.array(Time);

/** `/doing/times`: times of plans (rehearsals, services). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  app.get(`${base}/all`, { ...read, schema: { response: { 200: List } } }, async (req) => (await listRows(app.db, times, req.auth.churchId, { orderBy: times.startTime })) as never);
  app.get(`${base}/plans`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, times, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, times, req.auth.churchId, [req.params.planId]));
  app.post(base, { ...read, schema: { body: batchOf(TimeSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      for (const [i, item] of req.body.entries()) {
        await requireRef(tx, plans, req.auth.churchId, item.planId, itemParam(req, i, 'planId'), 'Plan');
        if (item.startTime && item.endTime && item.endTime < item.startTime) throw badRequest(itemParam(req, i, 'endTime'), 'must not be before startTime');
      }
      return (await saveRows(tx, times, req.auth.churchId, req.body)) as never;
    }),
  );
  crud(app, {
    path: base,
    table: times,
    item: Time,
    save: TimeSave,
    view: anyUser,
    edit: anyUser,
    only: ['get', 'delete'],
    // the service order's standings at a time go with it
    beforeDelete: async (row, req, tx) => {
      await tx.delete(planItemTimes).where(and(eq(planItemTimes.churchId, req.auth.churchId), eq(planItemTimes.timeId, row.id)));
    },
  });
}
