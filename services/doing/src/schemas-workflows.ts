import { z } from 'zod';
import { Id, IdArray } from '@church/common';
import { Task } from './schemas';

// What the workflow routes accept and answer (B1Admin's serving/tasks/workflows screens): workflows, their steps,
// step actions and routes, triggers and their executions, and the card operations.

const Name = z.string().trim().min(1, 'is required').max(255);
const Sort = z.number().int().min(-1_000_000).max(1_000_000).nullish();
/** yes/no posted back as null by screens that send whole records: null keeps the stored value (or the default) */
const Flag = z.boolean().nullish().transform((v) => v ?? undefined);

export const WorkflowCategory = z.object({ id: z.string(), churchId: z.string(), name: z.string(), sort: z.number().nullable() });
export const WorkflowCategorySave = z.object({ id: Id.optional(), name: Name, sort: Sort });

export const Workflow = z.object({ id: z.string(), churchId: z.string(), name: z.string(), categoryId: z.string().nullable(), active: z.boolean(), sort: z.number().nullable() });
export const WorkflowSave = z.object({ id: Id.optional(), name: Name, categoryId: Id.nullish(), active: Flag, sort: Sort });

const AssignType = z.enum(['person', 'group']);
export const WorkflowStep = z.object({
  id: z.string(),
  churchId: z.string(),
  workflowId: z.string(),
  name: z.string(),
  sort: z.number(),
  defaultAssignToType: z.string().nullable(),
  defaultAssignToId: z.string().nullable(),
  defaultAssignToLabel: z.string().nullable(),
  expectedResponseDays: z.number().nullable(),
});
export const WorkflowStepSave = z.object({
  id: Id.optional(),
  workflowId: Id,
  name: Name,
  sort: Sort.transform((v) => v ?? undefined),
  defaultAssignToType: AssignType.nullish(),
  defaultAssignToId: Id.nullish(),
  defaultAssignToLabel: z.string().trim().max(255).nullish(),
  expectedResponseDays: z.number().int().min(0).max(3650).nullish(),
});

export const STEP_ACTION_TYPES = ['delay', 'sendEmail', 'addToGroup', 'removeFromGroup', 'addToWorkflow', 'addNote', 'setField', 'webhook', 'createTask'] as const;
/** `config` is the action's settings as JSON text (an object is accepted and kept as its text). */
const Config = z
  .union([z.record(z.string(), z.unknown()).transform((o) => JSON.stringify(o)), z.string().max(20000)])
  .nullish()
  .refine((text) => {
    if (!text) return true;
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    } catch {
      return false;
    }
  }, 'must be a JSON object');
export const WorkflowStepAction = z.object({ id: z.string(), churchId: z.string(), workflowId: z.string(), stepId: z.string(), sort: z.number(), actionType: z.string(), config: z.string().nullable() });
export const WorkflowStepActionSave = z.object({ id: Id.optional(), stepId: Id, sort: Sort.transform((v) => v ?? undefined), actionType: z.enum(STEP_ACTION_TYPES), config: Config });

export const WorkflowStepRoute = z.object({
  id: z.string(),
  churchId: z.string(),
  workflowId: z.string(),
  stepId: z.string(),
  sort: z.number(),
  trigger: z.string(),
  kind: z.string(),
  label: z.string().nullable(),
  targetStepId: z.string().nullable(),
  targetWorkflowId: z.string().nullable(),
});
export const WorkflowStepRouteSave = z.object({
  id: Id.optional(),
  /** taken from the step */
  workflowId: Id.nullish(),
  stepId: Id,
  sort: Sort.transform((v) => v ?? undefined),
  trigger: z.enum(['onEnter', 'onComplete']).nullish().transform((v) => v ?? undefined),
  kind: z.enum(['outcome', 'personMatch', 'always']).nullish().transform((v) => v ?? undefined),
  label: z.string().trim().max(255).nullish(),
  targetStepId: Id.nullish(),
  targetWorkflowId: Id.nullish(),
});

export const TRIGGER_RECURS = ['daily', 'weekly', 'monthly', 'yearly', 'none'] as const;
export const WorkflowTrigger = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  triggerKind: z.string(),
  eventType: z.string().nullable(),
  recurs: z.string().nullable(),
  workflowId: z.string(),
  stepId: z.string().nullable(),
  conditions: z.string().nullable(),
  oncePerSubject: z.boolean(),
  active: z.boolean(),
});
export const WorkflowTriggerSave = z.object({
  id: Id.optional(),
  name: Name,
  triggerKind: z.enum(['event', 'schedule']).default('event'),
  eventType: z.string().trim().max(60).nullish(),
  recurs: z.enum(TRIGGER_RECURS).nullish(),
  workflowId: Id,
  stepId: Id.nullish(),
  /** event rules: a filter tree `{type: group, conjunction, children: [{type: condition, field, operator, value}]}` as JSON text */
  conditions: z.string().max(20000).nullish(),
  oncePerSubject: Flag,
  active: Flag,
});

export const WorkflowExecution = z.object({
  id: z.string(),
  churchId: z.string(),
  triggerId: z.string(),
  workflowId: z.string(),
  eventType: z.string(),
  subjectType: z.string(),
  subjectId: z.string().nullable(),
  subjectLabel: z.string().nullable(),
  status: z.string(),
  attemptCount: z.number(),
  lastError: z.string().nullable(),
  taskId: z.string().nullable(),
  dateCreated: z.date(),
  dateCompleted: z.date().nullable(),
});
export const RunNowAnswer = z.object({ created: z.number(), skipped: z.number() });

export const FieldDef = z.object({
  key: z.string(),
  label: z.string(),
  type: z.string(),
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  optionsSource: z.string().optional(),
});
export const EventDef = z.object({ eventType: z.string(), label: z.string(), recordType: z.string(), fields: z.array(FieldDef) });
export const WorkflowTemplate = z.object({ key: z.string(), name: z.string(), description: z.string(), steps: z.array(z.object({ name: z.string(), expectedResponseDays: z.number().optional() })) });
export const FromTemplateBody = z.object({ templateKey: z.string().trim().min(1).max(100), name: z.string().trim().max(255).nullish() });
export const WorkflowReport = z.object({
  stepCounts: z.array(z.object({ stepId: z.string(), count: z.number() })),
  overdue: z.array(Task),
  throughput: z.array(z.object({ day: z.string(), count: z.number() })),
});
export const Board = z.object({ workflow: Workflow, steps: z.array(WorkflowStep), cards: z.array(Task), routes: z.array(WorkflowStepRoute), actions: z.array(WorkflowStepAction) });

const Label = z.string().trim().max(255).nullish();
export const AddToWorkflowBody = z.object({
  workflowId: Id,
  stepId: Id.nullish(),
  associatedWith: z.object({ type: z.enum(['person', 'group']).nullish(), id: Id, label: Label }),
});
export const BulkAddBody = z.object({ workflowId: Id, stepId: Id.nullish(), people: z.array(z.object({ id: Id, label: Label })).min(1).max(1000) });
export const CompleteBody = z.object({ routeId: Id.nullish() });
export const MoveStepBody = z.object({ stepId: Id });
export const PinBody = z.object({ pinned: z.boolean().nullish() });
export const ReassignBody = z.object({ assignedToType: AssignType.nullish(), assignedToId: Id.nullish(), assignedToLabel: Label });
export const SnoozeBody = z.object({ days: z.coerce.number().int().min(0).max(365) });
const Ids = { ids: IdArray(500) };
export const BulkBody = z.object(Ids);
export const BulkMoveBody = z.object({ ...Ids, stepId: Id });
export const BulkReassignBody = ReassignBody.extend(Ids);
export const BulkSnoozeBody = SnoozeBody.extend(Ids);
export const BulkAnswer = z.object({ updated: z.array(z.string()), skipped: z.array(z.string()) });
