import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, crud, rowsByIds, type ZodTypeProvider } from '@church/common';
import { planTypes } from '../db/schema';
import { IdsQuery, PlanType, PlanTypeSave } from '../schemas';

const base = '/doing/planTypes';

/** `/doing/planTypes`: the standard set without permission checks (spec), plus by ids and by ministry. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const List = z.array(PlanType);
  app.get(`${base}/ids`, { config: { access: anyUser }, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, planTypes, req.auth.churchId, req.query.ids)) as never);
  app.get(`${base}/ministryId/:ministryId`, { config: { access: anyUser }, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, (req) =>
    app.db.select().from(planTypes).where(and(eq(planTypes.churchId, req.auth.churchId), eq(planTypes.ministryId, req.params.ministryId))).orderBy(asc(planTypes.name)),
  );
  crud(app, { path: base, table: planTypes, item: PlanType, save: PlanTypeSave, view: anyUser, edit: anyUser, orderBy: planTypes.name });
}
