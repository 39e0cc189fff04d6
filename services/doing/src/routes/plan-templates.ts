import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actorOf, Empty, Id, IdParams, REMOTE, assertReferences, badRequest, batchOf, checkReferences, deleteRow, getRow, itemParam, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { planTemplates } from '../db/schema';
import { ministryAccessOf, ministryEditor } from './access';
import { change, changesOf, report } from '../domain/changes';
import { applyToPlan, captureFromPlan, rootedItems, templatesOfMinistry } from '../repos/plan-templates';
import { ApplyTemplateBody, FromPlanBody, PlanTemplate, PlanTemplateSave, TemplateData } from '../schemas';

const base = '/doing/plantemplates';
const List = z.array(PlanTemplate);

/**
 * `/doing/plantemplates`: a ministry's reusable plans (B1Admin's PlanTemplateManager, SaveTemplateDialog, PlanEdit).
 * As in the open-source system, for holders of Plans.Edit and the ministry's own team.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const edit = { config: { access: ministryEditor } };
  const template = (churchId: string, id: string) => getRow(app.db, planTemplates, churchId, id, 'Plan template');

  app.get(`${base}/ministry/:ministryId`, { ...edit, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, async (req) => {
    await ministryAccessOf(app.deps, req).ministry(req.params.ministryId);
    return templatesOfMinistry(app.db, req.auth.churchId, req.params.ministryId);
  });

  // Renames and moves (the snapshot itself comes from a plan: fromPlan); both the old and the new ministry must be the caller's.
  app.post(base, { ...edit, schema: { body: batchOf(PlanTemplateSave), response: { 200: List } } }, async (req) => {
    const access = ministryAccessOf(app.deps, req);
    const ids = req.body.flatMap((t) => (t.id ? [t.id.toLowerCase()] : []));
    const stored = new Map((await rowsByIds(app.db, planTemplates, req.auth.churchId, ids)).map((r) => [r.id, r]));
    for (const item of req.body) {
      const before = item.id ? stored.get(item.id.toLowerCase()) : undefined;
      if (item.id && !before) throw notFound('Plan template');
      if (before) await access.ministry(before.ministryId);
      await access.ministry(item.ministryId === undefined ? before?.ministryId : item.ministryId);
    }
    // the ministry is one of the church's groups (membership's), and so are the teams of the snapshot's positions
    await checkReferences(req, req.body, { ministryId: REMOTE.groups });
    for (const [i, item] of req.body.entries()) if (item.data) await checkSnapshot(req.auth.churchId, item.data, itemParam(req, i, 'data'));
    // items whose parent the snapshot lacks are left out as it is kept (applying it would leave them out anyway), so
    // no dangling parent id (another plan's, another church's) is kept
    const items = req.body.map((item) => (item.data ? { ...item, data: { ...item.data, items: rootedItems(item.data.items).map(({ key: _key, ...rest }) => rest) } } : item));
    return app.deps.queue.transaction(app.db, async (tx) => {
      const written = await saveRows(tx, planTemplates, req.auth.churchId, items, 'Plan template');
      await report(app.deps, actorOf(req), changesOf('planTemplate', written, [...stored.values()]), tx);
      return written;
    });
  });

  // A plan's service order, positions and notes as a template: a new one (`name` needed), or the snapshot of an
  // existing one (`id`) taken again, its name and ministry kept unless sent.
  app.post(`${base}/fromPlan/:planId`, { ...edit, schema: { params: z.object({ planId: Id }), body: FromPlanBody, response: { 200: PlanTemplate } } }, async (req) => {
    const access = ministryAccessOf(app.deps, req);
    const plan = await access.plan(app.db, req.params.planId);
    const before = req.body.id ? await template(req.auth.churchId, req.body.id) : undefined;
    if (before) await access.ministry(before.ministryId);
    const name = req.body.name ?? before?.name;
    if (!name) throw badRequest('name', 'name is required');
    const ministryId = req.body.ministryId ?? before?.ministryId ?? plan.ministryId;
    if (ministryId !== plan.ministryId) await access.ministry(ministryId);
    // the ministry is one of the church's groups (membership's)
    await checkReferences(req, [req.body], { ministryId: REMOTE.groups });
    const data = await captureFromPlan(app.db, req.auth.churchId, plan);
    return app.deps.queue.transaction(app.db, async (tx) => {
      const [saved] = await saveRows(tx, planTemplates, req.auth.churchId, [{ id: before?.id, name, ministryId, data }], 'Plan template');
      await report(app.deps, actorOf(req), [change('planTemplate', before, saved!)], tx);
      return saved!;
    });
  });

  // Plans get the template's service order (by default) and, when asked, its positions; all of them or none.
  app.post(`${base}/apply/:id`, { ...edit, schema: { params: IdParams, body: ApplyTemplateBody, response: { 200: z.object({ applied: z.number() }) } } }, async (req) => {
    const access = ministryAccessOf(app.deps, req);
    const found = await template(req.auth.churchId, req.params.id);
    const planIds = [...new Set(req.body.planIds.map((id) => id.toLowerCase()))];
    for (const planId of planIds) await access.plan(app.db, planId);
    const parsed = TemplateData.safeParse(found.data ?? {});
    if (!parsed.success) throw badRequest('id', 'the template holds no plan snapshot; save it from a plan again', 'params');
    await app.deps.queue.transaction(app.db, async (tx) => {
      for (const planId of planIds) await applyToPlan(tx, req.auth.churchId, planId, parsed.data, { serviceOrder: req.body.serviceOrder, positions: req.body.positions });
      await report(app.deps, actorOf(req), [{ churchId: req.auth.churchId, entityType: 'planTemplate', entityId: found.id, action: 'applied', after: { planIds } }], tx);
    });
    return { applied: planIds.length };
  });

  /** A snapshot sent in a body: its positions' teams are the church's groups. */
  async function checkSnapshot(churchId: string, data: TemplateData, param: string) {
    await assertReferences(app.deps, churchId, data.positions as Array<Record<string, unknown>>, { groupId: REMOTE.groups }, (j, field) => `${param}.positions[${j}].${field}`);
  }

  app.delete(`${base}/:id`, { ...edit, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const found = await template(req.auth.churchId, req.params.id);
    await ministryAccessOf(app.deps, req).ministry(found.ministryId);
    await app.deps.queue.transaction(app.db, async (tx) => {
      const gone = await deleteRow(tx, planTemplates, req.auth.churchId, found.id, 'Plan template');
      await report(app.deps, actorOf(req), [change('planTemplate', gone, undefined)], tx);
    });
    return {};
  });
}
