import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { Id, IdParams, badRequest, batchOf, getRow, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { planTemplates } from '../db/schema';
import { ministryAccess, ministryEditor } from '../domain/ministry-access';
import { applyToPlan, captureFromPlan } from '../repos/plan-templates';
import { ApplyTemplateBody, FromPlanBody, PlanTemplate, PlanTemplateSave, TemplateData } from '../schemas';

const base = '/doing/plantemplates';
const List = z.array(PlanTemplate);
type TemplateRow = typeof planTemplates.$inferSelect;

/**
 * `/doing/plantemplates`: a ministry's reusable plans (B1Admin's PlanTemplateManager, SaveTemplateDialog, PlanEdit).
 * As in the open-source system, for holders of Plans.Edit and the ministry's own team.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const edit = { config: { access: ministryEditor } };
  const template = async (churchId: string, id: string) => (await getRow(app.db, planTemplates, churchId, id, 'Plan template')) as TemplateRow;

  app.get(`${base}/ministry/:ministryId`, { ...edit, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, async (req) => {
    await ministryAccess(app.deps.internal, req).ministry(req.params.ministryId);
    return app.db
      .select()
      .from(planTemplates)
      .where(and(eq(planTemplates.churchId, req.auth.churchId), eq(planTemplates.ministryId, req.params.ministryId)))
      .orderBy(asc(planTemplates.name), asc(planTemplates.id));
  });

  // Renames and moves (the snapshot itself comes from a plan: fromPlan); both the old and the new ministry must be the caller's.
  app.post(base, { ...edit, schema: { body: batchOf(PlanTemplateSave), response: { 200: List } } }, async (req) => {
    const access = ministryAccess(app.deps.internal, req);
    const ids = req.body.flatMap((t) => (t.id ? [t.id.toLowerCase()] : []));
    const stored = new Map((await rowsByIds(app.db, planTemplates, req.auth.churchId, ids)).map((r) => [r.id, r]));
    for (const item of req.body) {
      const before = item.id ? stored.get(item.id.toLowerCase()) : undefined;
      if (item.id && !before) throw notFound('Plan template');
      if (before) await access.ministry(before.ministryId);
      await access.ministry(item.ministryId === undefined ? before?.ministryId : item.ministryId);
    }
    return app.db.transaction((tx) => saveRows(tx, planTemplates, req.auth.churchId, req.body, 'Plan template'));
  });

  // A plan's service order, positions and notes as a template: a new one (`name` needed), or the snapshot of an
  // existing one (`id`) taken again, its name and ministry kept unless sent.
  app.post(`${base}/fromPlan/:planId`, { ...edit, schema: { params: z.object({ planId: Id }), body: FromPlanBody, response: { 200: PlanTemplate } } }, async (req) => {
    const access = ministryAccess(app.deps.internal, req);
    const plan = await access.plan(app.db, req.params.planId);
    const before = req.body.id ? await template(req.auth.churchId, req.body.id) : undefined;
    if (before) await access.ministry(before.ministryId);
    const name = req.body.name ?? before?.name;
    if (!name) throw badRequest('name', 'name is required');
    const ministryId = req.body.ministryId ?? before?.ministryId ?? plan.ministryId;
    if (ministryId !== plan.ministryId) await access.ministry(ministryId);
    const data = await captureFromPlan(app.db, req.auth.churchId, plan);
    const [saved] = await saveRows(app.db, planTemplates, req.auth.churchId, [{ id: before?.id, name, ministryId, data }], 'Plan template');
    return saved!;
  });

  // Plans get the template's service order (by default) and, when asked, its positions; all of them or none.
  app.post(`${base}/apply/:id`, { ...edit, schema: { params: IdParams, body: ApplyTemplateBody, response: { 200: z.object({ applied: z.number() }) } } }, async (req) => {
    const access = ministryAccess(app.deps.internal, req);
    const found = await template(req.auth.churchId, req.params.id);
    const planIds = [...new Set(req.body.planIds.map((id) => id.toLowerCase()))];
    for (const planId of planIds) await access.plan(app.db, planId);
    const parsed = TemplateData.safeParse(found.data ?? {});
    if (!parsed.success) throw badRequest('id', 'the template holds no plan snapshot; save it from a plan again', 'params');
    await app.db.transaction(async (tx) => {
      for (const planId of planIds) await applyToPlan(tx, req.auth.churchId, planId, parsed.data, { serviceOrder: req.body.serviceOrder, positions: req.body.positions });
    });
    return { applied: planIds.length };
  });

  app.delete(`${base}/:id`, { ...edit, schema: { params: IdParams } }, async (req) => {
    const found = await template(req.auth.churchId, req.params.id);
    await ministryAccess(app.deps.internal, req).ministry(found.ministryId);
    await app.db.delete(planTemplates).where(and(eq(planTemplates.churchId, req.auth.churchId), eq(planTemplates.id, found.id)));
    return {};
  });
}
