import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { hasPermission } from '@church/auth';
import { Id, IdParams, REMOTE, assertReferences, badRequest, checkPublicUrl, conflict, crud, getRow, itemParam, rowsByIds, unauthorized, type ZodTypeProvider } from '@church/common';
import { workflowCategories, workflowStepActions, workflowStepRoutes, workflowSteps, workflows } from '../db/schema';
import { staffEditor } from '../domain/ministry-access';
import { parseConfig } from '../domain/cards';
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
      await report(app.deps, req, closed.map((after) => change('task', { ...after, status: 'Open' }, after)), tx);
    },
    changes: { entityType: 'workflow' },
  });

  /** A new workflow with steps (a template's, or a copy's), in one transaction. */
  async function createWorkflow(req: FastifyRequest, fields: { name: string; categoryId?: string | null; active?: boolean; sort?: number | null }, steps: Array<Omit<typeof workflowSteps.$inferInsert, 'id' | 'churchId' | 'workflowId'> & { id?: string }>, sourceId?: string) {
    const churchId = req.auth.churchId;
    return app.deps.queue.transaction(app.db, async (tx) => {
      const [workflow] = await tx.insert(workflows).values({ id: randomUUID(), churchId, ...fields }).returning();
      const stepRows = steps.map(({ id: _id, createdAt: _c, updatedAt: _u, ...s }) => ({ ...s, id: randomUUID(), churchId, workflowId: workflow!.id }));
      const written = stepRows.length ? await tx.insert(workflowSteps).values(stepRows).returning() : [];
      const changes = [change('workflow', undefined, workflow!), ...written.map((s) => change('workflowStep', undefined, s))];
      if (sourceId) {
        // a copy keeps each step's actions and its routes within the workflow (targets mapped to the new steps)
        const newId = new Map(steps.map((s, i) => [s.id!, stepRows[i]!.id]));
        for (const step of steps) {
          const actions = await actionsOfStep(tx, churchId, step.id!);
          // the copies act for whoever made the copy (a copied `setField` is applied only while they may edit people)
          const configuredBy = { configuredByUserId: req.auth.id, configuredByPersonId: req.auth.personId ?? null };
          if (actions.length) await tx.insert(workflowStepActions).values(actions.map(({ createdAt: _c, updatedAt: _u, ...a }) => ({ ...a, ...configuredBy, id: randomUUID(), workflowId: workflow!.id, stepId: newId.get(step.id!)! })));
          const routes = (await routesOfStep(tx, churchId, step.id!)).filter((r) => r.kind !== 'personMatch');
          if (routes.length)
            await tx.insert(workflowStepRoutes).values(routes.map(({ createdAt: _c, updatedAt: _u, ...r }) => ({ ...r, id: randomUUID(), workflowId: workflow!.id, stepId: newId.get(step.id!)!, targetStepId: r.targetStepId ? (newId.get(r.targetStepId) ?? null) : null })));
        }
      }
      await report(app.deps, req, changes, tx);
      return workflow!;
    });
  }

  app.post('/doing/workflows/fromTemplate', { ...staff, schema: { body: FromTemplateBody, response: { 200: Workflow } } }, (req) => {
    const template = WORKFLOW_TEMPLATES.find((t) => t.key === req.body.templateKey);
    if (!template) throw badRequest('templateKey', `must be one of ${WORKFLOW_TEMPLATES.map((t) => t.key).join(', ')}`);
    return createWorkflow(req, { name: req.body.name || template.name, active: true }, template.steps.map((s, i) => ({ name: s.name, sort: i + 1, expectedResponseDays: s.expectedResponseDays ?? null })));
  });

  app.post('/doing/workflows/:id/duplicate', { ...staff, schema: { ...byId, response: { 200: Workflow } } }, async (req) => {
    const source = await getRow(app.db, workflows, req.auth.churchId, req.params.id, 'Workflow');
    const steps = await stepsOf(app.db, req.auth.churchId, source.id);
    return createWorkflow(req, { name: `${source.name} (copy)`.slice(0, 255), categoryId: source.categoryId, active: source.active, sort: source.sort }, steps, source.id);
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
      await checkActionConfig(req, indexIn(req, input), input.actionType, input.config ?? null);
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

  /**
   * What a step action's settings name must be the church's, checked as it is saved (before the save's transaction):
   * `setField` needs the saver's own People.Edit (401), a group is one of the church's groups (membership), a
   * workflow (and its step) the church's, a template an id (messaging's templates are checked when it sends), a
   * webhook's address public by the rule its delivery applies.
   */
  async function checkActionConfig(req: FastifyRequest, i: number, actionType: string, text: string | null) {
    const config = parseConfig(text);
    const param = itemParam(req, i, 'config');
    const given = (key: string) => (config[key] === undefined || config[key] === null || config[key] === '' ? undefined : config[key]);
    if (actionType === 'setField') {
      if (!hasPermission(req.auth, 'People.Edit')) throw unauthorized("Missing permission: People.Edit (a step action that changes people's records)");
      const field = given('field');
      if (field !== undefined && (typeof field !== 'string' || field.length > 100)) throw badRequest(`${param}.field`, 'must be the name of a person field');
      const value = given('value');
      if (value !== undefined && !['string', 'number', 'boolean'].includes(typeof value)) throw badRequest(`${param}.value`, 'must be text, a number or a yes/no');
    }
    if (actionType === 'webhook') {
      // the rule its delivery applies (`fetchOutbound`), on save
      const url = given('url');
      if (url !== undefined) await checkPublicUrl(String(url), { param: `${param}.url`, allowPrivate: doingDeps(app).config.OUTBOUND_ALLOW_PRIVATE });
    }
    if (actionType === 'sendEmail') {
      const templateId = given('templateId');
      if (templateId !== undefined && (typeof templateId !== 'string' || !Id.safeParse(templateId).success)) throw badRequest(`${param}.templateId`, 'must be the id of an email template');
    }
    if (actionType === 'addToGroup' || actionType === 'removeFromGroup') {
      const groupId = given('groupId');
      if (groupId !== undefined && (typeof groupId !== 'string' || !Id.safeParse(groupId).success)) throw badRequest(`${param}.groupId`, 'groupId is not a group of this church');
      await assertReferences(app.deps, req.auth.churchId, [config], { groupId: REMOTE.groups }, (_i, field) => `${param}.${field}`);
    }
    if (actionType === 'addToWorkflow') {
      const workflowId = given('workflowId');
      const stepId = given('stepId');
      if (workflowId === undefined) return;
      const [workflow] = typeof workflowId === 'string' && Id.safeParse(workflowId).success ? await rowsByIds(app.db, workflows, req.auth.churchId, [workflowId]) : [];
      if (!workflow) throw badRequest(`${param}.workflowId`, 'workflowId is not a record of this church');
      if (stepId === undefined) return;
      const [step] = typeof stepId === 'string' && Id.safeParse(stepId).success ? await rowsByIds(app.db, workflowSteps, req.auth.churchId, [stepId]) : [];
      if (!step || step.workflowId !== workflow.id) throw badRequest(`${param}.stepId`, 'must be a step of that workflow');
    }
  }

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
