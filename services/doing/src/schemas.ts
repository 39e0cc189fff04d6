import { z } from 'zod';
import { CalendarDay, Id, IdArray, OptionalText } from '@church/common';
import { CONDITION_FIELDS, TODAY_PARTS } from './domain/conditions';

// What the doing API accepts and answers. Response schemas list every field that leaves the service; save
// bodies strip unknown fields (clients post back records as they read them) and the church comes from the token.

const Stamp = z.date();
const Name = z.string().trim().min(1, 'is required').max(255);
/**
 * A yes/no the apps may send as `null` (they post back whole records): null leaves the stored value (or the
 * column's default on a new row) as it is, so a not-null column never meets a null.
 */
const Flag = z.boolean().nullish().transform((v) => v ?? undefined);

/** A local calendar day `YYYY-MM-DD` (the shared `CalendarDay`). */
export const LocalDate = CalendarDay;

/** `?ids=a,b` / `?planIds=a,b`: comma-separated UUIDs, each checked. */
export const IdsQuery = z
  .string()
  .optional()
  .transform((s) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(Id).max(1000));
/** `?ids=a,b` as a query-string schema. */
export const IdsQueryString = z.object({ ids: IdsQuery });
export { ChurchParams } from '@church/common';
export const PlanTypeParams = z.object({ planTypeId: Id });

export const Plan = z.object({
  id: z.string(),
  churchId: z.string(),
  ministryId: z.string().nullable(),
  planTypeId: z.string().nullable(),
  name: z.string().nullable(),
  serviceDate: z.string().nullable(),
  notes: z.string().nullable(),
  serviceOrder: z.boolean(),
  contentType: z.string().nullable(),
  contentId: z.string().nullable(),
  campusId: z.string().nullable(),
  providerId: z.string().nullable(),
  providerPlanId: z.string().nullable(),
  providerPlanName: z.string().nullable(),
  signupDeadlineHours: z.number().nullable(),
  showVolunteerNames: z.boolean(),
  prepared: z.boolean(),
  autoReplaceOnDecline: z.boolean(),
  lastAutofillRunId: z.string().nullable(),
});
export const PlanList = z.array(Plan);
export const PlanSave = z.object({
  id: Id.optional(),
  ministryId: Id.nullish(),
  planTypeId: Id.nullish(),
  name: OptionalText,
  serviceDate: LocalDate.nullish(),
  notes: z.string().max(20000).nullish(),
  serviceOrder: z.boolean().optional(),
  contentType: OptionalText,
  contentId: z.string().trim().max(200).nullish(),
  campusId: Id.nullish(),
  providerId: z.string().trim().max(100).nullish(),
  providerPlanId: z.string().trim().max(2000).nullish(),
  providerPlanName: z.string().trim().max(500).nullish(),
  signupDeadlineHours: z.number().int().min(0).max(8760).nullish(),
  showVolunteerNames: Flag,
  prepared: Flag,
  autoReplaceOnDecline: Flag,
});
/**
 * The copy's options with the new plan as B1Admin would have saved it (PlanEdit, LessonScheduleEdit,
 * BulkLessonSchedule, ApplyYearPlan post `{...plan, copyMode}`): what it sends is the new plan's (its name, its
 * week's lesson); what it leaves out comes from the plan copied.
 */
export const CopyBody = PlanSave.omit({ id: true, serviceDate: true }).extend({
  serviceDate: LocalDate,
  copyMode: z.enum(['none', 'positions', 'all']).default('all'),
  copyServiceOrder: Flag.pipe(z.boolean().default(false)),
});
export const AutofillBody = z.object({
  teams: z.array(z.object({ positionId: Id, personIds: IdArray(2000) })).min(1).max(500),
});
/** `GET /plans/overview`: the serving matrix of a date range (B1Admin's ServingOverviewPage). */
export const OverviewQuery = z.object({ startDate: LocalDate, endDate: LocalDate, ministryId: Id.nullish(), planTypeId: Id.nullish() });
/** One position of one plan, with one of its people (or none: an open slot), as the matrix reads it. */
export const OverviewRow = z.object({
  serviceDate: z.string(),
  ministryId: z.string().nullable(),
  planId: z.string(),
  planName: z.string().nullable(),
  positionId: z.string(),
  categoryName: z.string().nullable(),
  positionName: z.string(),
  groupId: z.string().nullable(),
  needed: z.number(),
  assignmentId: z.string().nullable(),
  personId: z.string().nullable(),
  status: z.string().nullable(),
});
export const OverviewRows = z.array(OverviewRow);
/**
 * `GET /plans/public/signup/:churchId` (public): a plan open to sign-ups as B1App's volunteer pages read it: the
 * plan's public fields, its positions that take sign-ups with how many places are taken, and its times.
 */
export const SignupPlan = z.object({
  plan: z.object({
    id: z.string(),
    churchId: z.string(),
    ministryId: z.string().nullable(),
    planTypeId: z.string().nullable(),
    name: z.string().nullable(),
    serviceDate: z.string().nullable(),
    notes: z.string().nullable(),
    signupDeadlineHours: z.number().nullable(),
    showVolunteerNames: z.boolean(),
  }),
  positions: z.array(
    z.object({
      id: z.string(),
      churchId: z.string(),
      planId: z.string(),
      categoryName: z.string().nullable(),
      name: z.string(),
      count: z.number(),
      allowSelfSignup: z.boolean(),
      description: z.string().nullable(),
      filledCount: z.number(),
    }),
  ),
  times: z.array(
    z.object({
      id: z.string(),
      planId: z.string(),
      displayName: z.string().nullable(),
      startTime: z.date().nullable(),
      endTime: z.date().nullable(),
      serviceTimeType: z.string(),
    }),
  ),
});
export const SignupPlans = z.array(SignupPlan);
export const NotifyRangeBody = z.object({ startDate: LocalDate, endDate: LocalDate, ministryId: Id, planTypeId: Id.nullish() });
export const NotifyRangeAnswer = z.object({ sent: z.number(), failed: z.number(), capped: z.boolean() });

export const PlanType = z.object({ id: z.string(), churchId: z.string(), ministryId: z.string().nullable(), name: z.string() });
export const PlanTypeSave = z.object({ id: Id.optional(), ministryId: Id.nullish(), name: Name });

export const Position = z.object({
  id: z.string(),
  churchId: z.string(),
  planId: z.string(),
  categoryName: z.string().nullable(),
  name: z.string(),
  count: z.number(),
  groupId: z.string().nullable(),
  allowSelfSignup: z.boolean(),
  description: z.string().nullable(),
});
export const PositionSave = z.object({
  id: Id.optional(),
  planId: Id,
  categoryName: OptionalText,
  name: Name,
  /** an emptied box arrives as null (`parseInt("")` is NaN, written null): the stored count, or 1 on a new position */
  count: z.number().int().min(0).max(1000).nullish().transform((v) => v ?? undefined),
  groupId: Id.nullish(),
  allowSelfSignup: Flag,
  description: z.string().max(5000).nullish(),
});

export const Time = z.object({
  id: z.string(),
  churchId: z.string(),
  planId: z.string(),
  displayName: z.string().nullable(),
  startTime: Stamp.nullable(),
  endTime: Stamp.nullable(),
  teams: z.string().nullable(),
  serviceTimeType: z.string(),
});
const Instant = z.coerce.date({ message: 'must be an ISO 8601 date-time' }).refine((d) => !Number.isNaN(d.getTime()), 'must be an ISO 8601 date-time');
export const TimeSave = z.object({
  id: Id.optional(),
  planId: Id,
  displayName: OptionalText,
  startTime: Instant.nullish(),
  endTime: Instant.nullish(),
  teams: z.string().max(2000).nullish(),
  serviceTimeType: z.enum(['service', 'rehearsal', 'other']).nullish().transform((v) => v ?? undefined),
}).refine((t) => !t.startTime || !t.endTime || t.endTime >= t.startTime, { message: 'must not be before startTime', path: ['endTime'] });

export const ASSIGNMENT_STATUSES = ['Unconfirmed', 'Accepted', 'Declined'] as const;
export const Assignment = z.object({
  id: z.string(),
  churchId: z.string(),
  planId: z.string(),
  positionId: z.string(),
  personId: z.string(),
  status: z.string(),
  notified: Stamp.nullable(),
});
export const AssignmentSave = z.object({
  id: Id.optional(),
  positionId: Id,
  personId: Id,
  /** taken from the position when omitted */
  planId: Id.optional(),
  status: z.enum(ASSIGNMENT_STATUSES).optional(),
  /** when the volunteer was asked (PlanValidation posts the pending assignments back with it set) */
  notified: Instant.nullish(),
});
/** What autofill answers: B1Admin's matrix counts `created`; `assignments` are the new rows, `runId` what undo takes back. */
export const AutofillAnswer = z.object({ plan: Plan, created: z.number(), runId: z.string().nullable(), assignments: z.array(Assignment) });
/** `POST /doing/plans/autofill/:id/undo`: how many assignments the undo removed. */
export const UndoneAutofill = z.object({ removed: z.number() });
export const SignupBody = z.object({ positionId: Id });
/** `GET /assignments/monthCounts`: how often each person serves in the month (declined assignments left out). */
export const MonthCount = z.object({ personId: z.string(), count: z.number() });
/** What accept and decline answer (the spec's list). */
export const AssignmentAnswer = z.object({ id: z.string(), personId: z.string(), positionId: z.string(), planId: z.string(), status: z.string() });

export const PlanItem = z.object({
  id: z.string(),
  churchId: z.string(),
  planId: z.string(),
  parentId: z.string().nullable(),
  sort: z.number(),
  itemType: z.string().nullable(),
  relatedId: z.string().nullable(),
  label: z.string().nullable(),
  description: z.string().nullable(),
  seconds: z.number().nullable(),
  link: z.string().nullable(),
  providerId: z.string().nullable(),
  providerPath: z.string().nullable(),
  providerContentPath: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
});
export type PlanItemNode = z.output<typeof PlanItem> & { children?: PlanItemNode[] };
/** An item with its children, to any depth. */
export const PlanItemTree: z.ZodType<PlanItemNode> = PlanItem.extend({ get children() { return z.array(PlanItemTree).optional(); } });
/** What the presenter's plan feed answers: `plan` (its own items), `lessonFeed` (from the external lesson feed) or `none`. */
export const PlanFeed = z.object({
  planId: z.string(),
  name: z.string().nullable(),
  serviceDate: z.string().nullable(),
  contentId: z.string().nullable(),
  source: z.enum(['plan', 'lessonFeed', 'none']),
  items: z.array(PlanItemTree),
});
export const PlanItemSave = z.object({
  id: Id.optional(),
  planId: Id,
  parentId: Id.nullish(),
  sort: z.number().finite().optional(),
  itemType: OptionalText,
  relatedId: z.string().trim().max(200).nullish(),
  label: z.string().trim().max(500).nullish(),
  description: z.string().max(20000).nullish(),
  seconds: z.number().int().min(0).max(86400).nullish(),
  link: z.string().trim().max(2000).nullish(),
  providerId: z.string().trim().max(100).nullish(),
  providerPath: z.string().trim().max(2000).nullish(),
  providerContentPath: z.string().trim().max(2000).nullish(),
  thumbnailUrl: z.string().trim().max(2000).nullish(),
});

export const PlanItemTime = z.object({ id: z.string(), churchId: z.string(), planId: z.string(), planItemId: z.string(), timeId: z.string(), excluded: z.boolean() });
export const PlanItemTimeSave = z.object({ id: Id.optional(), planItemId: Id, timeId: Id, excluded: Flag });

/** The snapshot a template keeps: the service order (items with their parent links), positions and notes. */
const TemplateItem = PlanItemSave.omit({ id: true, planId: true, parentId: true, sort: true }).extend({
  /** the ids of the plan it was taken from: only what links children to their parents */
  id: z.string().max(100).nullish(),
  parentId: z.string().max(100).nullish(),
  sort: z.number().finite().nullish(),
});
const TemplatePosition = z.object({
  categoryName: z.string().max(255).nullish(),
  name: z.string().trim().min(1).max(255),
  count: z.number().int().min(0).max(1000).nullish(),
  groupId: Id.nullish(),
  allowSelfSignup: z.boolean().nullish(),
  description: z.string().max(5000).nullish(),
});
export const TemplateData = z.object({ notes: z.string().max(20000).nullish(), items: z.array(TemplateItem).max(2000).default([]), positions: z.array(TemplatePosition).max(500).default([]) });
export type TemplateData = z.output<typeof TemplateData>;
export const PlanTemplate = z.object({ id: z.string(), churchId: z.string(), ministryId: z.string().nullable(), name: z.string(), data: z.unknown() });
export const PlanTemplateSave = z.object({
  id: Id.optional(),
  ministryId: Id.nullish(),
  name: Name,
  /** as answered (an object) or as the open-source API wrote it (JSON text) */
  data: z
    .union([TemplateData, z.string().max(2_000_000).transform((text, ctx) => {
      try {
        return TemplateData.parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a plan snapshot {notes, items, positions}' });
        return z.NEVER;
      }
    })])
    .optional(),
});
export const FromPlanBody = z.object({ id: Id.optional(), name: Name.optional(), ministryId: Id.nullish() });
export const ApplyTemplateBody = z.object({ planIds: z.array(Id).min(1).max(100), serviceOrder: Flag.pipe(z.boolean().default(true)), positions: Flag.pipe(z.boolean().default(false)) });

export const HOUSEHOLD_SCHEDULING = ['none', 'together', 'apart'] as const;
export const SchedulingPreference = z.object({
  id: z.string(),
  churchId: z.string(),
  personId: z.string(),
  maxPerMonth: z.number().nullable(),
  preferredTimes: z.string().nullable(),
  householdScheduling: z.string(),
});
export const SchedulingPreferenceSave = z.object({
  id: Id.optional(),
  /** the caller's own person when omitted */
  personId: Id.optional(),
  /** `null` clears the limit (SchedulingPreferenceEdit sends null for an empty box) */
  maxPerMonth: z.number().int().min(1).max(31).nullish(),
  /** an emptied box is no preference */
  preferredTimes: z.string().trim().max(500).nullish().transform((v) => (v === '' ? null : v)),
  householdScheduling: z.enum(HOUSEHOLD_SCHEDULING).nullish().transform((v) => v ?? undefined),
});
/**
 * Placing an item: `{id, sort, parentId?}`. The apps post the whole item, and a new one (B1Admin's duplicate: no
 * id, its plan and fields) is created first, then placed.
 */
export const SortBody = PlanItemSave.extend({ planId: Id.optional(), sort: z.number().finite() });

export const BlockoutDate = z.object({ id: z.string(), churchId: z.string(), personId: z.string(), startDate: z.string(), endDate: z.string() });
export const BlockoutDateSave = z
  .object({ id: Id.optional(), personId: Id.optional(), startDate: LocalDate, endDate: LocalDate.optional() })
  .refine((b) => !b.endDate || b.endDate >= b.startDate, { message: 'must not be before startDate', path: ['endDate'] });

export const TASK_STATUSES = ['Open', 'Closed'] as const;
export const Task = z.object({
  id: z.string(),
  churchId: z.string(),
  taskNumber: z.number(),
  taskType: z.string().nullable(),
  dateCreated: Stamp,
  dateClosed: Stamp.nullable(),
  associatedWithType: z.string().nullable(),
  associatedWithId: z.string().nullable(),
  associatedWithLabel: z.string().nullable(),
  createdByType: z.string().nullable(),
  createdById: z.string().nullable(),
  createdByLabel: z.string().nullable(),
  assignedToType: z.string().nullable(),
  assignedToId: z.string().nullable(),
  assignedToLabel: z.string().nullable(),
  title: z.string().nullable(),
  note: z.string().nullable(),
  status: z.string(),
  resolution: z.string().nullable(),
  automationId: z.string().nullable(),
  conversationId: z.string().nullable(),
  data: z.unknown().nullable(),
  workflowId: z.string().nullable(),
  stepId: z.string().nullable(),
  triggerId: z.string().nullable(),
  dueDate: Stamp.nullable(),
  snoozedUntil: Stamp.nullable(),
  sort: z.number().nullable(),
  pinnedAssignment: z.boolean(),
});
const RefType = z.enum(['person', 'group', 'automation', 'system']);
export const TaskSave = z.object({
  id: Id.optional(),
  taskType: z.string().trim().max(100).nullish(),
  associatedWithType: RefType.nullish(),
  associatedWithId: z.string().trim().max(200).nullish(),
  associatedWithLabel: OptionalText,
  createdByType: RefType.nullish(),
  createdById: z.string().trim().max(200).nullish(),
  createdByLabel: OptionalText,
  assignedToType: RefType.nullish(),
  assignedToId: z.string().trim().max(200).nullish(),
  assignedToLabel: OptionalText,
  title: z.string().trim().max(500).nullish(),
  note: z.string().max(20000).nullish(),
  status: z.enum(TASK_STATUSES).optional(),
  /** closing a directory update: `approved` applies its changes to the person, anything else discards them */
  resolution: z.string().trim().max(50).nullish(),
  approved: z.boolean().optional(),
  conversationId: z.string().trim().max(200).nullish(),
  /** a directory update's changes: `{field: value}` or `[{field, value}]` (also as a JSON string) */
  data: z.unknown().optional(),
});
/** An open directory update as the member app reads it: `data` as JSON text of `[{field, label, value}]`. */
export const DirectoryUpdate = Task.extend({ data: z.string().nullable() });
export const LoadForGroupsBody = z.object({ groupIds: z.array(Id).max(1000), status: z.enum(TASK_STATUSES).default('Open') });

/** The periods an automation repeats in; any other word (B1Admin's `never`, the spec's `none`) is no repeat. */
export const RECURS = ['weekly', 'monthly', 'yearly'] as const;
/** What a `recurs` is kept as: a period, `none`, or B1Admin's `never` (as sent); another word is no repeat, kept as `never`. */
const Recurs = z
  .string()
  .trim()
  .max(50)
  .transform((v) => {
    const word = v.toLowerCase();
    return (RECURS as readonly string[]).includes(word) || word === 'none' || word === 'never' ? word : 'never';
  });
export const Automation = z.object({ id: z.string(), churchId: z.string(), title: z.string(), recurs: z.string(), active: z.boolean() });
export const AutomationSave = z.object({ id: Id.optional(), title: Name, recurs: Recurs.nullish().transform((v) => v ?? 'none'), active: z.boolean().default(true) });
/** `GET /doing/automations/check`: the check was asked for (it runs at most once a minute). */
export const CheckQueued = z.object({ queued: z.boolean() });

/** `actionData` is answered as JSON text, as B1Admin sends it and `JSON.parse`s what it reads back (an object is accepted on save). */
export const Action = z.object({ id: z.string(), churchId: z.string(), automationId: z.string(), actionType: z.string(), actionData: z.string().nullable() });
/** An action row as the API answers it: `actionData` as JSON text. */
export const toAction = <R extends { actionData: unknown }>(row: R) => ({ ...row, actionData: row.actionData === null || row.actionData === undefined ? null : typeof row.actionData === 'string' ? row.actionData : JSON.stringify(row.actionData) });
/** `task`: open one task per person, assigned as `actionData` says. */
export const TaskActionData = z.object({
  assignedToType: z.enum(['person', 'group']),
  assignedToId: Id,
  assignedToLabel: z.string().max(255).nullish(),
  title: z.string().trim().min(1).max(500),
  note: z.string().max(5000).nullish(),
});
export const ActionList = z.array(Action);
export const ActionSave = z
  .object({ id: Id.optional(), automationId: Id, actionType: z.enum(['task']), actionData: z.union([TaskActionData, z.string().transform((s, ctx) => {
    try {
      return TaskActionData.parse(JSON.parse(s));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a task description {assignedToType, assignedToId, title}' });
      return z.NEVER;
    }
  })]) });

export const CONDITION_OPERATORS = ['=', '!=', '>', '>=', '<', '<=', 'contains', 'startsWith', 'endsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
/** The owner of a condition tree: an automation, a workflow trigger or a step route (exactly one). */
const Owners = { automationId: z.string().nullable(), triggerId: z.string().nullable(), stepRouteId: z.string().nullable() };
export const Condition = z.object({
  id: z.string(),
  churchId: z.string(),
  ...Owners,
  conjunctionId: z.string().nullable(),
  field: z.string(),
  fieldData: z.string().nullable(),
  operator: z.string(),
  value: z.string().nullable(),
  label: z.string().nullable(),
});
export const ConditionList = z.array(Condition);
export const ConditionSave = z
  .object({
    id: Id.optional(),
    /** the owner; a condition saved with only its `conjunctionId` (B1Admin's workflow screens) takes the conjunction's */
    automationId: Id.nullish(),
    triggerId: Id.nullish(),
    stepRouteId: Id.nullish(),
    conjunctionId: Id.nullish(),
    field: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((f) => CONDITION_FIELDS.includes(f), `must be one of ${CONDITION_FIELDS.join(', ')}`),
    fieldData: z.string().max(2000).nullish(),
    operator: z.enum(CONDITION_OPERATORS).default('='),
    value: z.string().max(2000).nullish(),
    label: z.string().max(500).nullish(),
  })
  .refine((c) => c.field !== 'today' || !c.fieldData || (TODAY_PARTS as readonly string[]).includes(c.fieldData), { message: `must be one of ${TODAY_PARTS.join(', ')}`, path: ['fieldData'] });

export const Conjunction = z.object({ id: z.string(), churchId: z.string(), ...Owners, parentId: z.string().nullable(), groupType: z.string() });
export const ConjunctionList = z.array(Conjunction);
export const ConjunctionSave = z.object({
  id: Id.optional(),
  automationId: Id.nullish(),
  triggerId: Id.nullish(),
  stepRouteId: Id.nullish(),
  parentId: Id.nullish(),
  groupType: z.string().trim().toLowerCase().pipe(z.enum(['and', 'or'])).default('and'),
});

/** A provider authorization as it leaves: the tokens never do, only whether they are there. */
export const ContentProviderAuth = z.object({
  id: z.string(),
  churchId: z.string(),
  ministryId: z.string(),
  providerId: z.string(),
  tokenType: z.string().nullable(),
  expiresAt: Stamp.nullable(),
  scopes: z.string().nullable(),
  /** the same as `scopes`, under the name B1Admin's ContentProviderAuthHelper writes and reads */
  scope: z.string().nullable(),
  hasAccessToken: z.boolean(),
  hasRefreshToken: z.boolean(),
});
export const ProviderId = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, 'must be a provider id');
export const ContentProviderAuthSave = z.object({
  id: Id.optional(),
  ministryId: Id,
  providerId: ProviderId,
  accessToken: z.string().max(10000).nullish(),
  refreshToken: z.string().max(10000).nullish(),
  tokenType: z.string().max(50).nullish(),
  expiresAt: Instant.nullish(),
  /** seconds from now, as OAuth token answers give it */
  expiresIn: z.number().int().min(0).max(10 * 365 * 86400).optional(),
  scopes: z.string().max(2000).nullish(),
  /** B1Admin's name for `scopes` */
  scope: z.string().max(2000).nullish(),
});
/** B1Admin's PKCE sign-in: the provider's code, exchanged here where the client secret is. */
export const ExchangeBody = z.object({
  ministryId: Id,
  providerId: ProviderId,
  code: z.string().trim().min(1).max(4000),
  codeVerifier: z.string().trim().min(43, 'must be a PKCE code verifier (43 to 128 characters)').max(128),
  redirectUri: z.url({ message: 'must be an absolute URL' }).max(2000),
});
export const RefreshBody = z.object({ ministryId: Id, providerId: ProviderId });
export const ProxyBody = z.object({
  ministryId: Id,
  providerId: ProviderId,
  path: z.string().trim().max(2000).default(''),
  resolution: z.coerce.number().int().min(144).max(4320).optional(),
});
