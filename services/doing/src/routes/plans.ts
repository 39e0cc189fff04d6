import type { FastifyInstance } from 'fastify';
import { desc } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, batchOf, exactShape, getRow, itemParam, listRows, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { planTypes, plans } from '../db/schema';
import { requireRef } from '../repos/refs';
import { copyPlan, currentPlan, deletePlan, plansBetween, plansOfType } from '../repos/plans';
import { autofillPlan } from '../repos/scheduling';
import { utcDay } from '../domain/tree';
import { Assignment, AutofillBody, CopyBody, IdsQuery, Plan, PlanSave } from '../schemas';

const base = '/doing/plans';
const List = z.array(Plan);
/** Autofill builds its answers field by field in the schema's order (`repos/scheduling`): written with `JSON.stringify`. */
const Assignments = exactShape(z.array(Assignment));
/** `GET /presenter`: plans of the next 7 days (spec limit), today included. */
export const PRESENTER_DAYS = 7;

/** `/doing/plans`: plans, copies and autofill. Spec: doing routes need only a JWT. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  app.get(base, { ...read, schema: { response: { 200: List } } }, async (req) => (await listRows(app.db, plans, req.auth.churchId, { orderBy: [desc(plans.serviceDate), plans.id] })) as never);
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, plans, req.auth.churchId, req.query.ids)) as never);
  app.get(`${base}/types/:planTypeId`, { ...read, schema: { params: z.object({ planTypeId: Id }), response: { 200: List } } }, (req) => plansOfType(app.db, req.auth.churchId, req.params.planTypeId));
  app.get(`${base}/presenter`, { ...read, schema: { response: { 200: List } } }, (req) => plansBetween(app.db, req.auth.churchId, utcDay(), utcDay(PRESENTER_DAYS)));
  app.get(`${base}/public/current/:planTypeId`, { config: { access: 'public' }, schema: { params: z.object({ planTypeId: Id }), response: { 200: Plan } } }, async (req) => {
    const plan = await currentPlan(app.db, req.params.planTypeId, utcDay());
    if (!plan) throw notFound('Plan');
    return plan;
  });
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: Plan } } }, async (req) => (await getRow(app.db, plans, req.auth.churchId, req.params.id, 'Plan')) as never);

  app.post(base, { ...read, schema: { body: batchOf(PlanSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      for (const [i, item] of req.body.entries()) if (item.planTypeId) await requireRef(tx, planTypes, churchId, item.planTypeId, itemParam(req, i, 'planTypeId'), 'Plan type');
      return (await saveRows(tx, plans, churchId, req.body)) as never;
    }),
  );

  app.post(`${base}/copy/:id`, { ...read, schema: { params: IdParams, body: CopyBody, response: { 200: Plan } } }, (req) => copyPlan(app.db, req.auth.churchId, req.params.id, req.body));

  app.post(`${base}/autofill/:id`, { ...read, schema: { params: IdParams, body: AutofillBody, response: { 200: Assignments } } }, (req) =>
    autofillPlan(app.db, req.auth.churchId, req.params.id, req.body.teams),
  );

  app.delete(`${base}/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await deletePlan(app.db, req.auth.churchId, req.params.id);
    return {};
  });
}
