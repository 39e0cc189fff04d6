import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, batchOf, crud, itemParam, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { and, eq } from 'drizzle-orm';
import { plans, positions, assignments } from '../db/schema';
import { requireRef } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { IdsQuery, Position, PositionSave } from '../schemas';

const base = '/doing/positions';
const List = z.array(Position);

/** `/doing/positions`: the standard set without permission checks (spec), by ids and by plans. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, positions, req.auth.churchId, req.query.ids)) as never);
  app.get(`${base}/plan/ids`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, positions, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, positions, req.auth.churchId, [req.params.planId]));
  app.post(base, { ...read, schema: { body: batchOf(PositionSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      for (const [i, item] of req.body.entries()) await requireRef(tx, plans, req.auth.churchId, item.planId, itemParam(req, i, 'planId'), 'Plan');
      return (await saveRows(tx, positions, req.auth.churchId, req.body)) as never;
    }),
  );
  // Deleting a position takes its assignments with it (nobody can serve in a position that is gone).
  crud(app, {
    path: base,
    table: positions,
    item: Position,
    save: PositionSave,
    view: anyUser,
    edit: anyUser,
    only: ['get'],
  });
  app.delete(`${base}/:id`, { ...read, schema: { params: z.object({ id: Id }) } }, (req) =>
    app.db.transaction(async (tx) => {
      const [gone] = await tx.delete(positions).where(and(eq(positions.churchId, req.auth.churchId), eq(positions.id, req.params.id))).returning({ id: positions.id });
      if (!gone) throw notFound('Position');
      await tx.delete(assignments).where(and(eq(assignments.churchId, req.auth.churchId), eq(assignments.positionId, req.params.id)));
      return {};
    }),
  );
}
