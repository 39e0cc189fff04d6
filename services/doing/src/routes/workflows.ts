import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { actorOf, IdParams, assertReferences, badRequest, conflict, crud, getRow, itemParam, rowsByIds, type ZodTypeProvider } from '@church/common';
import { workflowCategories, workflowStepActions, workflowStepRoutes, workflowSteps, workflows } from '../db/schema';
import { staffEditor } from './access';
import { checkActionConfig, createWorkflow } from '../domain/workflows';
import { doingDeps } from '../deps';
import { personOrGroup } from '../domain/references';
import { WORKFLOW_TEMPLATES } from '../domain/workflow-catalog';
import { change, report } from '../domain/changes';
import { indexIn } from './automations';
import { actionsOfStep, deleteStepParts, deleteTrees, deleteWorkflowParts, ensureRoot, openCardsOnStep, routesOfStep, stepsOf, workflowReport } from '../repos/workflows';
import {
  FromTemplateBody,
  Workflow,
  WorkflowCategory,
  WorkflowCategorySave,
  WorkflowReport,
  WorkflowSave,
  WorkflowStep,
  WorkflowStepAction,
  WorkflowStepActionSave,
  WorkflowStepRoute,
  WorkflowStepRouteSave,
  WorkflowStepSave,
  WorkflowTemplate,
} from '../schemas-workflows';

/**
 * `/doing/workflows`, `/doing/workflowCategories`, `/doing/workflowSteps`, `/doing/workflowStepActions`,
 * `/doing/workflowStepRoutes`: the church's staff work, read and changed by holders of Plans.Edit (`staffEditor`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const staff = { config: { access: staffEditor } };
  const byId = { params: IdParams };

  crud(app, { path: '/doing/workflowCategories', name: 'Workflow category', table: workflowCategories, item: WorkflowCategory, save: WorkflowCategorySave, view: staffEditor, edit: staffEditor, only: ['list', 'save'], orderBy: [workflowCategories.sort, workflowCategories.name], changes: { entityType: 'workflowCategory' } });

  app.get('/doing/workflows/templates', { ...staff, schema: { response: { 200: z.array(WorkflowTemplate) } } }, () => WORKFLOW_TEMPLATES);
  crud(app, {
    path: '/doing/workflows',
    name: 'Workflow',
    table: workflows,
    item: Workflow,
    save: WorkflowSave,
    view: staffEditor,
    edit: staffEditor,
    orderBy: [workflows.sort, workflows.name],
    references: { categoryId: workflowCategories },
    // its steps, actions, routes, triggers and executions go with it; its open cards are closed (and reported)
    beforeDelete: async (row, req, tx) => {
      const closed = await deleteWorkflowParts(tx, req.auth.churchId, row.id);
      await report(app.deps, actorOf(req), closed.map((after) => change('task', { ...after, status: 'Open' }, after)), tx);
    },
    changes: { entityType: 'workflow' },
  });

  app.post('/doing/workflows/fromTemplate', { ...staff, schema: { body: FromTemplateBody, response: { 200: Workflow } } }, (req) => {
    const template = WORKFLOW_TEMPLATES.find((t) => t.key === req.body.templateKey);
    if (!template) throw badRequest('templateKey', `must be one of ${WORKFLOW_TEMPLATES.map((t) => t.key).join(', ')}`);
    return createWorkflow(doingDeps(app), actorOf(req), { name: req.body.name || template.name, active: true }, template.steps.map((s, i) => ({ name: s.name, sort: i + 1, expectedResponseDays: s.expectedResponseDays ?? null })));
  });

  app.post('/doing/workflows/:id/duplicate', { ...staff, schema: { ...byId, response: { 200: Workflow } } }, async (req) => {
    const source = await getRow(app.db, workflows, req.auth.churchId, req.params.id, 'Workflow');
    const steps = await stepsOf(app.db, req.auth.churchId, source.id);
    return createWorkflow(doingDeps(app), actorOf(req), { name: `${source.name} (copy)`.slice(0, 255), categoryId: source.categoryId, active: source.active, sort: source.sort }, steps, source.id);
  });

  app.get('/doing/workflows/:id/report', { ...staff, schema: { ...byId, response: { 200: WorkflowReport } } }, async (req) => {
    await getRow(app.db, workflows, req.auth.churchId, req.params.id, 'Workflow');
    return workflowReport(app.db, req.auth.churchId, req.params.id);
  });

  // Steps: a new step without `sort` goes last; a step with open cards is not deleted (move them first).
  app.get('/doing/workflowSteps/workflow/:id', { ...staff, schema: { ...byId, response: { 200: z.array(WorkflowStep) } } }, (req) => stepsOf(app.db, req.auth.churchId, req.params.id));
  crud(app, {
    path: '/doing/workflowSteps',
    name: 'Workflow step',
    table: workflowSteps,
    item: WorkflowStep,
    save: WorkflowStepSave,
    view: staffEditor,
    edit: staffEditor,
    only: ['save', 'delete'],
    references: { workflowId: workflows },
    toRow: async (input, req) => {
      // a step's default assignee is a person or a group of the church (membership's)
      await assertReferences(app.deps, req.auth.churchId, [input], { defaultAssignToId: personOrGroup('defaultAssignToType') }, (_i, field) => itemParam(req, indexIn(req, input), field));
      return input.id || input.sort !== undefined ? input : { ...input, sort: (await stepsOf(app.db, req.auth.churchId, input.workflowId)).reduce((m, s) => Math.max(m, s.sort), 0) + 1 };
    },
    beforeDelete: async (row, req, tx) => {
      if (await openCardsOnStep(tx, req.auth.churchId, row.id)) throw conflict('The step has open cards: move or complete them first');
      await deleteStepParts(tx, req.auth.churchId, [row.id]);
    },
    changes: { entityType: 'workflowStep' },
  });

  /** The step a part is saved under (its workflow is the part's): 400 naming `stepId` when the church has no such step. */
  const stepOf = async (req: FastifyRequest, input: { stepId: string }) => {
    const [step] = await rowsByIds(app.db, workflowSteps, req.auth.churchId, [input.stepId]);
    if (!step) throw badRequest(itemParam(req, indexIn(req, input), 'stepId'), 'stepId is not a record of this church');
    return step;
  };

  app.get('/doing/workflowStepActions/step/:id', { ...staff, schema: { ...byId, response: { 200: z.array(WorkflowStepAction) } } }, (req) => actionsOfStep(app.db, req.auth.churchId, req.params.id));
  crud(app, {
    path: '/doing/workflowStepActions',
    name: 'Step action',
    table: workflowStepActions,
    item: WorkflowStepAction,
    save: WorkflowStepActionSave,
    view: staffEditor,
    edit: staffEditor,
    only: ['save', 'delete'],
    // the saver is who the action acts for (a `setField` is applied only while they may edit people)
    toRow: async (input, req) => {
      const step = await stepOf(req, input);
      await checkActionConfig(doingDeps(app), actorOf(req), itemParam(req, indexIn(req, input), 'config'), input.actionType, input.config ?? null);
      return {
        ...input,
        workflowId: step.workflowId,
        sort: input.sort ?? (input.id ? undefined : (await actionsOfStep(app.db, req.auth.churchId, step.id)).length + 1),
        configuredByUserId: req.auth.id,
        configuredByPersonId: req.auth.personId ?? null,
      };
    },
    changes: { entityType: 'workflowStepAction' },
  });

  // Routes: the target step must be of the same workflow; a `personMatch` route gets the root conjunction its
  // conditions hang on; a route's tree goes with it.
  app.get('/doing/workflowStepRoutes/step/:id', { ...staff, schema: { ...byId, response: { 200: z.array(WorkflowStepRoute) } } }, (req) => routesOfStep(app.db, req.auth.churchId, req.params.id));
  crud(app, {
    path: '/doing/workflowStepRoutes',
    name: 'Step route',
    table: workflowStepRoutes,
    item: WorkflowStepRoute,
    save: WorkflowStepRouteSave,
    view: staffEditor,
    edit: staffEditor,
    only: ['save', 'delete'],
    references: { targetWorkflowId: workflows },
    toRow: async (input, req) => {
      const step = await stepOf(req, input);
      const i = indexIn(req, input);
      if (input.workflowId && input.workflowId !== step.workflowId) throw badRequest(itemParam(req, i, 'workflowId'), "must be the step's workflow");
      if (input.targetStepId) {
        const [target] = await rowsByIds(app.db, workflowSteps, req.auth.churchId, [input.targetStepId]);
        if (!target || target.workflowId !== step.workflowId) throw badRequest(itemParam(req, i, 'targetStepId'), 'must be a step of the same workflow');
      }
      if (input.targetWorkflowId && input.trigger === 'onEnter') throw badRequest(itemParam(req, i, 'targetWorkflowId'), 'only an onComplete route hands a card to another workflow');
      return { ...input, workflowId: step.workflowId };
    },
    afterSave: async (rows, req, tx) => {
      for (const row of rows) if (row.kind === 'personMatch') await ensureRoot(tx, req.auth.churchId, 'stepRouteId', row.id);
    },
    beforeDelete: (row, req, tx) => deleteTrees(tx, req.auth.churchId, 'stepRouteId', [row.id]),
    changes: { entityType: 'workflowStepRoute' },
  });
}
