import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actorOf, IdParams, badRequest, crud, getRow, itemParam, rowsByIds, type ZodTypeProvider } from '@church/common';
import { workflowSteps, workflowTriggers, workflows } from '../db/schema';
import { staffEditor } from './access';
import { TRIGGER_EVENTS, TRIGGER_EVENT_TYPES, parseFilter } from '../domain/workflow-catalog';
import { changeExecution, runTrigger } from '../domain/workflow-triggers';
import { change, report } from '../domain/changes';
import { indexIn } from './automations';
import { deleteTrees, ensureRoot, executionsOf, setTriggerActive, triggersOf } from '../repos/workflows';
import { EventDef, RunNowAnswer, WorkflowExecution, WorkflowTrigger, WorkflowTriggerSave } from '../schemas-workflows';

const ActionParams = z.object({ id: IdParams.shape.id, action: z.enum(['pauseAll', 'resumeAll']) });
const ExecutionParams = z.object({ id: IdParams.shape.id, action: z.enum(['retry', 'pause', 'resume']) });

/**
 * `/doing/workflowTriggers`: what starts cards (webhook events of the church, or a schedule over people), their
 * executions and the fields a filter may test. Holders of Plans.Edit (`staffEditor`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const staff = { config: { access: staffEditor } };

  app.get('/doing/workflowTriggers/fields', { ...staff, schema: { response: { 200: z.array(EventDef) } } }, () => TRIGGER_EVENTS);
  app.get('/doing/workflowTriggers/workflow/:id', { ...staff, schema: { params: IdParams, response: { 200: z.array(WorkflowTrigger) } } }, (req) => triggersOf(app.db, req.auth.churchId, req.params.id));
  app.get('/doing/workflowTriggers/executions/workflow/:id', { ...staff, schema: { params: IdParams, response: { 200: z.array(WorkflowExecution) } } }, (req) => executionsOf(app.db, req.auth.churchId, req.params.id));

  crud(app, {
    path: '/doing/workflowTriggers',
    name: 'Workflow trigger',
    table: workflowTriggers,
    item: WorkflowTrigger,
    save: WorkflowTriggerSave,
    view: staffEditor,
    edit: staffEditor,
    only: ['save', 'delete'],
    references: { workflowId: workflows },
    // An event rule names a known event and a readable filter; a schedule rule a period. The start step, when named,
    // is a step of the trigger's workflow.
    toRow: async (input, req) => {
      const i = indexIn(req, input);
      const param = (field: string) => itemParam(req, i, field);
      if (input.triggerKind === 'event') {
        if (!input.eventType || !TRIGGER_EVENT_TYPES.includes(input.eventType)) throw badRequest(param('eventType'), `must be one of ${TRIGGER_EVENT_TYPES.join(', ')}`);
        try {
          parseFilter(input.conditions);
        } catch {
          throw badRequest(param('conditions'), 'must be a filter tree {type: "group", conjunction, children} as JSON');
        }
      }
      if (input.stepId) {
        const [step] = await rowsByIds(app.db, workflowSteps, req.auth.churchId, [input.stepId]);
        if (!step || step.workflowId !== input.workflowId) throw badRequest(param('stepId'), 'must be a step of the workflow');
      }
      return input.triggerKind === 'schedule' ? { ...input, eventType: null, conditions: null, recurs: input.recurs ?? 'yearly' } : { ...input, recurs: null };
    },
    afterSave: async (rows, req, tx) => {
      for (const row of rows) if (row.triggerKind === 'schedule') await ensureRoot(tx, req.auth.churchId, 'triggerId', row.id);
    },
    beforeDelete: (row, req, tx) => deleteTrees(tx, req.auth.churchId, 'triggerId', [row.id]),
    changes: { entityType: 'workflowTrigger' },
  });

  // Pausing a trigger stops it firing (events while paused are not caught up); resuming starts it again.
  app.post('/doing/workflowTriggers/:id/:action', { ...staff, schema: { params: ActionParams, response: { 200: WorkflowTrigger } } }, async (req) => {
    const before = await getRow(app.db, workflowTriggers, req.auth.churchId, req.params.id, 'Workflow trigger');
    return app.deps.queue.transaction(app.db, async (tx) => {
      const after = await setTriggerActive(tx, req.auth.churchId, before.id, req.params.action === 'resumeAll');
      await report(app.deps, actorOf(req), [change('workflowTrigger', before, after!)], tx);
      return after!;
    });
  });

  app.post('/doing/workflowTriggers/:id/runNow', { ...staff, schema: { params: IdParams, response: { 200: RunNowAnswer } } }, async (req) => {
    const trigger = await getRow(app.db, workflowTriggers, req.auth.churchId, req.params.id, 'Workflow trigger');
    return runTrigger(app.deps, actorOf(req), trigger, 'runNow');
  });

  // An execution that failed (or was paused) is tried again: its card starts now, or the row keeps the new error.
  app.post('/doing/workflowTriggers/executions/:id/:action', { ...staff, schema: { params: ExecutionParams, response: { 200: WorkflowExecution } } }, (req) =>
    changeExecution(app.deps, actorOf(req), req.params.id, req.params.action),
  );
}
