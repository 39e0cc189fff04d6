import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actorOf, Empty, Id, IdParams, batchOf, itemParam, type ZodTypeProvider } from '@church/common';
import { ministryAccessOf, ministryEditor } from './access';
import { applyTemplate, deleteTemplate, saveTemplates, templateFromPlan } from '../domain/plan-templates';
import { templatesOfMinistry } from '../repos/plan-templates';
import { ApplyTemplateBody, FromPlanBody, PlanTemplate, PlanTemplateSave } from '../schemas';

const base = '/doing/plantemplates';
const List = z.array(PlanTemplate);

/**
 * `/doing/plantemplates`: a ministry's reusable plans (B1Admin's PlanTemplateManager, SaveTemplateDialog, PlanEdit).
 * As in the open-source system, for holders of Plans.Edit and the ministry's own team.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const edit = { config: { access: ministryEditor } };

  app.get(`${base}/ministry/:ministryId`, { ...edit, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, async (req) => {
    await ministryAccessOf(app.deps, req).ministry(req.params.ministryId);
    return templatesOfMinistry(app.db, req.auth.churchId, req.params.ministryId);
  });

  // Renames and moves (the snapshot itself comes from a plan: fromPlan); both the old and the new ministry must be the caller's.
  app.post(base, { ...edit, schema: { body: batchOf(PlanTemplateSave), response: { 200: List } } }, (req) =>
    saveTemplates(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.body, (i, field) => itemParam(req, i, field)),
  );
  // A plan's service order, positions and notes as a template: a new one (`name` needed), or the snapshot of an
  // existing one (`id`) taken again, its name and ministry kept unless sent.
  app.post(`${base}/fromPlan/:planId`, { ...edit, schema: { params: z.object({ planId: Id }), body: FromPlanBody, response: { 200: PlanTemplate } } }, (req) =>
    templateFromPlan(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.planId, req.body, (i, field) => itemParam(req, i, field)),
  );
  // Plans get the template's service order (by default) and, when asked, its positions; all of them or none.
  app.post(`${base}/apply/:id`, { ...edit, schema: { params: IdParams, body: ApplyTemplateBody, response: { 200: z.object({ applied: z.number() }) } } }, (req) =>
    applyTemplate(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.id, req.body),
  );
  app.delete(`${base}/:id`, { ...edit, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteTemplate(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.id);
    return {};
  });
}
