import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, jsonb, pgTable, real, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

// The doing module's tables. Every index that serves a query leads with church_id. People, groups and
// ministries live in membership and are referenced here by id only.

// A plan's service order is served from a kept answer per church and data version (the shared snapshots):
// writes to plan_items raise the church's version through the shared trigger (migration
// `plan_items_data_version`).
export { dataVersions } from '@church/common/tables';

/** Plan types: a recurring kind of plan (Sunday service, kids' church) inside a ministry (a membership group). */
export const planTypes = pgTable(
  'plan_types',
  { id: id(), churchId: churchId(), ministryId: uuid('ministry_id'), name: text('name').notNull(), ...timestamps() },
  (t) => [index('plan_types_church_ministry_idx').on(t.churchId, t.ministryId)],
);

/**
 * Plans: one gathering; `serviceDate` is the church's local calendar day (no time zone, no day shift). The
 * table also has `assignees` (uuid[]): the people of the plan's assignments, kept by triggers on assignments
 * for autofill's even spread (migration 0005); left out here, so no query of this schema reads or writes it.
 */
export const plans = pgTable(
  'plans',
  {
    id: id(),
    churchId: churchId(),
    ministryId: uuid('ministry_id'),
    planTypeId: uuid('plan_type_id'),
    name: text('name'),
    serviceDate: date('service_date', { mode: 'string' }),
    notes: text('notes'),
    serviceOrder: boolean('service_order').notNull().default(false),
    contentType: text('content_type'),
    contentId: text('content_id'),
    campusId: uuid('campus_id'),
    /** the outside content provider a plan's lesson comes from, and its path there (the service order's preview) */
    providerId: text('provider_id'),
    providerPlanId: text('provider_plan_id'),
    providerPlanName: text('provider_plan_name'),
    /** self sign-up closes this many hours before the service day begins */
    signupDeadlineHours: integer('signup_deadline_hours'),
    showVolunteerNames: boolean('show_volunteer_names').notNull().default(true),
    /** penciled in: volunteers do not see their assignments on it until it is published */
    prepared: boolean('prepared').notNull().default(false),
    autoReplaceOnDecline: boolean('auto_replace_on_decline').notNull().default(false),
    /** the last autofill that added people, which `autofill/:id/undo` takes back */
    lastAutofillRunId: uuid('last_autofill_run_id'),
    ...timestamps(),
  },
  (t) => [index('plans_church_date_idx').on(t.churchId, t.serviceDate), index('plans_church_type_date_idx').on(t.churchId, t.planTypeId, t.serviceDate), index('plans_type_date_idx').on(t.planTypeId, t.serviceDate)],
);

/** Positions of a plan (Drummer, Greeter), each drawing volunteers from a team group. */
export const positions = pgTable(
  'positions',
  {
    id: id(),
    churchId: churchId(),
    planId: uuid('plan_id').notNull(),
    categoryName: text('category_name'),
    name: text('name').notNull(),
    count: integer('count').notNull().default(1),
    groupId: uuid('group_id'),
    allowSelfSignup: boolean('allow_self_signup').notNull().default(false),
    description: text('description'),
    ...timestamps(),
  },
  (t) => [
    index('positions_church_plan_idx').on(t.churchId, t.planId),
    // the public sign-up page's positions (`plans/public/signup`): the few open to self sign-up, without reading
    // every position of every future plan
    index('positions_church_self_signup_idx').on(t.churchId, t.planId).where(sql`${t.allowSelfSignup}`),
  ],
);

/** Times of a plan (rehearsal, service), with the teams (category names) expected at each. */
export const times = pgTable(
  'times',
  {
    id: id(),
    churchId: churchId(),
    planId: uuid('plan_id').notNull(),
    displayName: text('display_name'),
    startTime: at('start_time'),
    endTime: at('end_time'),
    teams: text('teams'),
    /** `service` (the default), `rehearsal` or `other`: the service order is timed against services only */
    serviceTimeType: text('service_time_type').notNull().default('service'),
    ...timestamps(),
  },
  (t) => [index('times_church_plan_idx').on(t.churchId, t.planId)],
);

/** A person assigned to a position of a plan; `Unconfirmed` until they accept or decline. */
export const assignments = pgTable(
  'assignments',
  {
    id: id(),
    churchId: churchId(),
    planId: uuid('plan_id').notNull(),
    positionId: uuid('position_id').notNull(),
    personId: uuid('person_id').notNull(),
    status: text('status').notNull().default('Unconfirmed'),
    notified: at('notified'),
    /** the autofill run that made it, so the run can be undone */
    autofillRunId: uuid('autofill_run_id'),
    ...timestamps(),
  },
  (t) => [
    // With person_id, autofill's even spread counts the assignments of the plans in its window from the index
    // alone (an index-only scan), and a plan's own reads use its leading columns as before.
    index('assignments_church_plan_person_idx').on(t.churchId, t.planId, t.personId),
    index('assignments_church_person_idx').on(t.churchId, t.personId),
    index('assignments_church_position_idx').on(t.churchId, t.positionId),
  ],
);

/** Service-order items as a parent-child tree; siblings ordered by `sort`. */
export const planItems = pgTable(
  'plan_items',
  {
    id: id(),
    churchId: churchId(),
    planId: uuid('plan_id').notNull(),
    parentId: uuid('parent_id'),
    sort: real('sort').notNull().default(0),
    itemType: text('item_type'),
    relatedId: text('related_id'),
    label: text('label'),
    description: text('description'),
    seconds: integer('seconds'),
    link: text('link'),
    providerId: text('provider_id'),
    providerPath: text('provider_path'),
    providerContentPath: text('provider_content_path'),
    thumbnailUrl: text('thumbnail_url'),
    ...timestamps(),
  },
  (t) => [index('plan_items_church_plan_idx').on(t.churchId, t.planId, t.parentId, t.sort)],
);

/**
 * A plan item's standing at one time of its plan: `excluded` items are left out of that service (the second
 * service skips the baptism). One row per item and time.
 */
export const planItemTimes = pgTable(
  'plan_item_times',
  {
    id: id(),
    churchId: churchId(),
    planId: uuid('plan_id').notNull(),
    planItemId: uuid('plan_item_id').notNull(),
    timeId: uuid('time_id').notNull(),
    excluded: boolean('excluded').notNull().default(true),
    ...timestamps(),
  },
  (t) => [uniqueIndex('plan_item_times_church_item_time_idx').on(t.churchId, t.planItemId, t.timeId), index('plan_item_times_church_plan_idx').on(t.churchId, t.planId)],
);

/** A ministry's reusable plan: a snapshot of a plan's service order, positions and notes (`data`). */
export const planTemplates = pgTable(
  'plan_templates',
  { id: id(), churchId: churchId(), ministryId: uuid('ministry_id'), name: text('name').notNull(), data: jsonb('data').notNull().default({}), ...timestamps() },
  (t) => [index('plan_templates_church_ministry_idx').on(t.churchId, t.ministryId, t.name)],
);

/** How a volunteer likes to be scheduled: at most so many times a month, preferred times, with or apart from their household. */
export const schedulingPreferences = pgTable(
  'scheduling_preferences',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    maxPerMonth: integer('max_per_month'),
    preferredTimes: text('preferred_times'),
    householdScheduling: text('household_scheduling').notNull().default('none'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('scheduling_preferences_church_person_idx').on(t.churchId, t.personId)],
);

/** Days a person cannot serve (inclusive local dates). */
export const blockoutDates = pgTable(
  'blockout_dates',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    ...timestamps(),
  },
  (t) => [index('blockout_dates_church_person_idx').on(t.churchId, t.personId), index('blockout_dates_church_end_idx').on(t.churchId, t.endDate)],
);

/** Tasks: numbered per church, assigned to a person or a group, associated with a record (usually a person). */
export const tasks = pgTable(
  'tasks',
  {
    id: id(),
    churchId: churchId(),
    taskNumber: integer('task_number').notNull(),
    taskType: text('task_type'),
    dateCreated: at('date_created').notNull().defaultNow(),
    dateClosed: at('date_closed'),
    associatedWithType: text('associated_with_type'),
    associatedWithId: text('associated_with_id'),
    associatedWithLabel: text('associated_with_label'),
    createdByType: text('created_by_type'),
    createdById: text('created_by_id'),
    createdByLabel: text('created_by_label'),
    assignedToType: text('assigned_to_type'),
    assignedToId: text('assigned_to_id'),
    assignedToLabel: text('assigned_to_label'),
    title: text('title'),
    note: text('note'),
    status: text('status').notNull().default('Open'),
    /** how a closed directory update ended: `approved` applies its changes to the person */
    resolution: text('resolution'),
    automationId: uuid('automation_id'),
    conversationId: text('conversation_id'),
    /** a directory update's requested changes; a card's history and drip cursor */
    data: jsonb('data'),
    // A task is a workflow's card when `workflowId` is set: it sits on `stepId`, ordered by `sort` in the column.
    workflowId: uuid('workflow_id'),
    stepId: uuid('step_id'),
    /** the trigger that started the card, if one did */
    triggerId: uuid('trigger_id'),
    dueDate: at('due_date'),
    snoozedUntil: at('snoozed_until'),
    sort: integer('sort'),
    /** a pinned assignee is kept when the card enters a step with a default assignee */
    pinnedAssignment: boolean('pinned_assignment').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('tasks_church_number_idx').on(t.churchId, t.taskNumber),
    // the board: a workflow's open cards by step and order, one index range
    index('tasks_church_workflow_idx').on(t.churchId, t.workflowId, t.status, t.stepId, t.sort),
    // the wake job's sweep of ended snoozes across churches: only snoozed cards are in it
    index('tasks_snoozed_idx').on(t.snoozedUntil).where(sql`snoozed_until is not null`),
    index('tasks_church_assigned_idx').on(t.churchId, t.assignedToType, t.assignedToId, t.status),
    index('tasks_church_created_by_idx').on(t.churchId, t.createdByType, t.createdById, t.status),
    index('tasks_church_associated_idx').on(t.churchId, t.associatedWithType, t.associatedWithId, t.taskType),
  ],
);

/** The last task number handed out per church (an atomic upsert numbers tasks without gaps or races). */
export const taskCounters = pgTable('task_counters', { churchId: uuid('church_id').primaryKey(), last: integer('last').notNull() });

/** Automations: conditions select people; actions run for each; `recurs` bounds repeats per person. */
export const automations = pgTable(
  'automations',
  { id: id(), churchId: churchId(), title: text('title').notNull(), recurs: text('recurs').notNull().default('none'), active: boolean('active').notNull().default(true), ...timestamps() },
  (t) => [index('automations_church_idx').on(t.churchId, t.active)],
);

/** What an automation does for each selected person (`task`: open a task). */
export const actions = pgTable(
  'actions',
  { id: id(), churchId: churchId(), automationId: uuid('automation_id').notNull(), actionType: text('action_type').notNull(), actionData: jsonb('action_data'), ...timestamps() },
  (t) => [index('actions_church_automation_idx').on(t.churchId, t.automationId)],
);

/** AND/OR nodes of an automation's condition tree (`parentId` null at the root). */
export const conjunctions = pgTable(
  'conjunctions',
  {
    id: id(),
    churchId: churchId(),
    // The tree belongs to exactly one owner: an automation, a workflow trigger (schedule rules) or a step route
    // (`personMatch` routes).
    automationId: uuid('automation_id'),
    triggerId: uuid('trigger_id'),
    stepRouteId: uuid('step_route_id'),
    parentId: uuid('parent_id'),
    groupType: text('group_type').notNull().default('and'),
    ...timestamps(),
  },
  (t) => [
    index('conjunctions_church_automation_idx').on(t.churchId, t.automationId),
    index('conjunctions_church_trigger_idx').on(t.churchId, t.triggerId),
    index('conjunctions_church_step_route_idx').on(t.churchId, t.stepRouteId),
  ],
);

/** A test on a person (or on today's date) inside a conjunction. */
export const conditions = pgTable(
  'conditions',
  {
    id: id(),
    churchId: churchId(),
    /** the owner, as the conjunction's (one of the three) */
    automationId: uuid('automation_id'),
    triggerId: uuid('trigger_id'),
    stepRouteId: uuid('step_route_id'),
    conjunctionId: uuid('conjunction_id'),
    field: text('field').notNull(),
    fieldData: text('field_data'),
    operator: text('operator').notNull().default('='),
    value: text('value'),
    label: text('label'),
    ...timestamps(),
  },
  (t) => [
    index('conditions_church_automation_idx').on(t.churchId, t.automationId),
    index('conditions_church_trigger_idx').on(t.churchId, t.triggerId),
    index('conditions_church_step_route_idx').on(t.churchId, t.stepRouteId),
  ],
);

/**
 * One row per (automation, person, period) that has run: the unique index makes a second run in the same
 * period (a second check the same day, a retried job) create nothing.
 */
export const automationRuns = pgTable(
  'automation_runs',
  {
    id: id(),
    churchId: churchId(),
    automationId: uuid('automation_id').notNull(),
    personId: uuid('person_id').notNull(),
    period: text('period').notNull(),
    taskIds: jsonb('task_ids'),
    ranAt: at('ran_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('automation_runs_key_idx').on(t.churchId, t.automationId, t.personId, t.period)],
);

/** OAuth tokens of an outside content provider per ministry; tokens are sealed with ENCRYPTION_KEY. */
export const contentProviderAuths = pgTable(
  'content_provider_auths',
  {
    id: id(),
    churchId: churchId(),
    ministryId: uuid('ministry_id').notNull(),
    providerId: text('provider_id').notNull(),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    tokenType: text('token_type'),
    expiresAt: at('expires_at'),
    scopes: text('scopes'),
    ...timestamps(),
  },
  (t) => [index('content_provider_auths_church_ministry_idx').on(t.churchId, t.ministryId, t.providerId)],
);

/** Categories the workflows page groups workflows under. */
export const workflowCategories = pgTable(
  'workflow_categories',
  { id: id(), churchId: churchId(), name: text('name').notNull(), sort: integer('sort'), ...timestamps() },
  (t) => [index('workflow_categories_church_idx').on(t.churchId)],
);

/** A workflow: ordered steps that cards (tasks with `workflowId`) move along. */
export const workflows = pgTable(
  'workflows',
  { id: id(), churchId: churchId(), name: text('name').notNull(), categoryId: uuid('category_id'), active: boolean('active').notNull().default(true), sort: integer('sort'), ...timestamps() },
  (t) => [index('workflows_church_idx').on(t.churchId, t.sort)],
);

/** A column of a workflow; a card entering it takes its default assignee and due date. */
export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: id(),
    churchId: churchId(),
    workflowId: uuid('workflow_id').notNull(),
    name: text('name').notNull(),
    sort: integer('sort').notNull().default(0),
    defaultAssignToType: text('default_assign_to_type'),
    defaultAssignToId: text('default_assign_to_id'),
    defaultAssignToLabel: text('default_assign_to_label'),
    expectedResponseDays: integer('expected_response_days'),
    ...timestamps(),
  },
  (t) => [index('workflow_steps_church_workflow_idx').on(t.churchId, t.workflowId, t.sort)],
);

/** What happens when a card enters a step, in `sort` order (`config`: JSON text of the action's settings). */
export const workflowStepActions = pgTable(
  'workflow_step_actions',
  {
    id: id(),
    churchId: churchId(),
    workflowId: uuid('workflow_id').notNull(),
    stepId: uuid('step_id').notNull(),
    sort: integer('sort').notNull().default(0),
    actionType: text('action_type').notNull(),
    config: text('config'),
    /** who last saved the action (user and person): what a `setField` is checked against when it runs */
    configuredByUserId: uuid('configured_by_user_id'),
    configuredByPersonId: uuid('configured_by_person_id'),
    ...timestamps(),
  },
  (t) => [index('workflow_step_actions_church_step_idx').on(t.churchId, t.stepId, t.sort), index('workflow_step_actions_church_workflow_idx').on(t.churchId, t.workflowId)],
);

/**
 * Where a card goes from a step. `trigger`: `onEnter` (checked as the card arrives: `always`, or `personMatch`
 * through the route's condition tree) or `onComplete` (an outcome the user picks when completing). Target: another
 * workflow (hand-off, onComplete only), else a step of this one; neither closes the card.
 */
export const workflowStepRoutes = pgTable(
  'workflow_step_routes',
  {
    id: id(),
    churchId: churchId(),
    workflowId: uuid('workflow_id').notNull(),
    stepId: uuid('step_id').notNull(),
    sort: integer('sort').notNull().default(0),
    trigger: text('trigger').notNull().default('onComplete'),
    kind: text('kind').notNull().default('outcome'),
    label: text('label'),
    targetStepId: uuid('target_step_id'),
    targetWorkflowId: uuid('target_workflow_id'),
    ...timestamps(),
  },
  (t) => [index('workflow_step_routes_church_step_idx').on(t.churchId, t.stepId, t.sort), index('workflow_step_routes_church_workflow_idx').on(t.churchId, t.workflowId)],
);

/**
 * What starts cards: `event` rules (a webhook event of the church, filtered by `conditions`, a JSON filter tree over
 * the event's facts) or `schedule` rules (people selected by the trigger's condition tree, once per `recurs` period).
 */
export const workflowTriggers = pgTable(
  'workflow_triggers',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    triggerKind: text('trigger_kind').notNull().default('event'),
    eventType: text('event_type'),
    recurs: text('recurs'),
    workflowId: uuid('workflow_id').notNull(),
    stepId: uuid('step_id'),
    conditions: text('conditions'),
    oncePerSubject: boolean('once_per_subject').notNull().default(true),
    active: boolean('active').notNull().default(true),
    ...timestamps(),
  },
  (t) => [index('workflow_triggers_church_event_idx').on(t.churchId, t.eventType, t.active), index('workflow_triggers_church_workflow_idx').on(t.churchId, t.workflowId)],
);

/**
 * One firing of a trigger for one subject: `eventKey` names the event (`<event>|<entityId>|<at>`, or the schedule's
 * period and person), unique per trigger, so an event delivered twice (a retried job) starts one card.
 */
export const workflowExecutions = pgTable(
  'workflow_executions',
  {
    id: id(),
    churchId: churchId(),
    triggerId: uuid('trigger_id').notNull(),
    workflowId: uuid('workflow_id').notNull(),
    eventKey: text('event_key').notNull(),
    eventType: text('event_type').notNull(),
    subjectType: text('subject_type').notNull().default('person'),
    subjectId: text('subject_id'),
    subjectLabel: text('subject_label'),
    /** `success`, `failed` (no card: `lastError` says why), `paused` */
    status: text('status').notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    lastError: text('last_error'),
    taskId: uuid('task_id'),
    dateCreated: at('date_created').notNull().defaultNow(),
    dateCompleted: at('date_completed'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('workflow_executions_key_idx').on(t.churchId, t.triggerId, t.eventKey), index('workflow_executions_church_workflow_idx').on(t.churchId, t.workflowId, t.dateCreated)],
);
