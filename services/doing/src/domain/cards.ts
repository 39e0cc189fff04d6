import { randomUUID } from 'node:crypto';
import { hasPermission } from '@church/auth';
import {
  DAY_MS,
  REMOTE,
  assertReferences,
  badRequest,
  groupMembershipChange,
  isUuid,
  notFound,
  notifyPeople,
  personFieldChange,
  rowsByIds,
  systemActor,
  templateEmail,
  unauthorized,
  utcDay,
  type Actor,
  type ActorLog,
  type PersonFacts,
  type Tx,
} from '@church/common';
import type { DoingDeps } from '../deps';
import { tasks } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { insertTask, reserveTaskNumbers } from '../repos/tasks';
import {
  actionsOfStep,
  dueSnoozed,
  hasPersonMatchRoutes,
  hasWorkflow,
  insertCard,
  lockCard,
  lockDueCard,
  nextSort,
  routesOfStep,
  stepById,
  stepRouteById,
  stepsOf,
  treeOf,
  updateCard,
  type StepRow,
  type TaskRow,
} from '../repos/workflows';
import { cardWebhook } from '../jobs/contracts';
import { compileTree } from './conditions';
import { change, report } from './changes';
import { personOrGroup } from './references';

/**
 * Workflow cards: tasks with a `workflowId`, moving along the workflow's steps. Every operation runs in one
 * transaction (`CardRun.tx`): the card's rows, the tasks and cards its step actions open, the audit-log changes and
 * the assignee's notification (messaging's `notifyPeople`, enqueued in the transaction) commit together or not at all.
 * Nothing in it calls another module: what membership knows of the subjects (for `personMatch` routes) is asked
 * before the transaction opens (`subjectFacts`), and what other modules do is enqueued as their jobs in it.
 */

/** Routes and actions that chain (a route into a step whose route leads on) stop this deep: a loop of routes ends. */
const MAX_DEPTH = 25;
type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;
type Card = TaskRow;
export interface Subject {
  type: string;
  id: string;
  label?: string | null;
}
/** Who a card says created it: a person, the system, a trigger. */
export interface Creator {
  type: string;
  id?: string | null;
  label?: string | null;
}

/** A job's run in the worker: its work in each church acts as the module itself (`systemActor`) under this id and log. */
export interface JobRun {
  id: string;
  log: ActorLog;
}

interface CardData {
  history?: Array<{ date: string; message: string }>;
  actionCursor?: { stepId: string; index: number };
  [key: string]: unknown;
}

/** One request's or one job's work on cards, in the church of the Actor it acts for. */
export class CardRun {
  readonly churchId: string;

  constructor(
    readonly deps: Deps,
    readonly tx: Tx,
    readonly actor: Actor,
    /** the subjects' people facts, asked before the transaction (`subjectFacts`); a person missing matches no `personMatch` */
    private readonly facts: Map<string, PersonFacts> = new Map(),
  ) {
    this.churchId = actor.churchId;
  }

  private person(id: string): PersonFacts | null {
    return this.facts.get(id.toLowerCase()) ?? null;
  }

  async step(stepId: string, workflowId?: string): Promise<StepRow> {
    const step = await stepById(this.tx, this.churchId, stepId);
    if (!step || (workflowId && step.workflowId !== workflowId)) throw badRequest('stepId', 'is not a step of this workflow');
    return step;
  }

  /** The workflow's step a new card starts on: the one named, else the first. 404 for another church's workflow. */
  async startStep(workflowId: string, stepId?: string | null): Promise<StepRow> {
    if (!(await hasWorkflow(this.tx, this.churchId, workflowId))) throw notFound('Workflow');
    if (stepId) return this.step(stepId, workflowId);
    const [first] = await stepsOf(this.tx, this.churchId, workflowId);
    if (!first) throw badRequest('workflowId', 'the workflow has no steps');
    return first;
  }

  /** New cards for these subjects on a step, each entering it (actions, routes) and saved. */
  async create(workflowId: string, step: StepRow, subjects: Subject[], createdBy: Creator, triggerId?: string, depth = 0): Promise<Card[]> {
    if (!subjects.length) return [];
    let number = await reserveTaskNumbers(this.tx, this.churchId, subjects.length);
    let sort = await nextSort(this.tx, this.churchId, workflowId, step.id);
    const out: Card[] = [];
    for (const subject of subjects) {
      const now = new Date();
      const card = {
        id: randomUUID(),
        churchId: this.churchId,
        taskNumber: number++,
        taskType: 'card',
        dateCreated: now,
        dateClosed: null,
        associatedWithType: subject.type,
        associatedWithId: subject.id,
        associatedWithLabel: subject.label ?? null,
        createdByType: createdBy.type,
        createdById: createdBy.id ?? null,
        createdByLabel: createdBy.label ?? null,
        assignedToType: null,
        assignedToId: null,
        assignedToLabel: null,
        title: subject.label ?? null,
        note: null,
        status: 'Open',
        resolution: null,
        automationId: null,
        conversationId: null,
        data: null,
        workflowId,
        stepId: step.id,
        triggerId: triggerId ?? null,
        dueDate: null,
        snoozedUntil: null,
        sort: sort++,
        pinnedAssignment: false,
        createdAt: now,
        updatedAt: now,
      } satisfies Card;
      await this.enter(card, step, depth, false);
      out.push(await this.save(undefined, card));
    }
    return out;
  }

  /** Puts the card on a step (the bottom of its column). A manual move (`manual`) runs no actions and no routes. */
  async moveTo(card: Card, step: StepRow, manual: boolean, depth = 0): Promise<void> {
    card.stepId = step.id;
    card.sort = await nextSort(this.tx, this.churchId, card.workflowId!, step.id);
    await this.enter(card, step, depth, manual);
  }

  /**
   * A card arriving on a step: snooze cleared, due date from the step's expected response, the step's default
   * assignee unless the assignment is pinned; then (unless manual) the step's actions in order (a `delay` parks the
   * card and stops there) and its `onEnter` routes, the first that matches moving the card on.
   */
  private async enter(card: Card, step: StepRow, depth: number, manual: boolean): Promise<void> {
    card.snoozedUntil = null;
    card.dueDate = step.expectedResponseDays ? new Date(Date.now() + step.expectedResponseDays * DAY_MS) : null;
    if (!card.pinnedAssignment && step.defaultAssignToId) {
      card.assignedToType = step.defaultAssignToType ?? 'person';
      card.assignedToId = step.defaultAssignToId;
      card.assignedToLabel = step.defaultAssignToLabel ?? null;
    }
    if (manual || depth >= MAX_DEPTH) return;
    if (await this.runActions(card, step, 0, depth)) return;
    await this.routeOn(card, step, depth);
  }

  /**
   * A snoozed card whose time has come: a card parked by a `delay` goes on with the step's remaining actions and
   * its routes; a card a person snoozed comes back to its assignee with a notice.
   */
  async wake(card: Card): Promise<void> {
    card.snoozedUntil = null;
    const cursor = dataOf(card).actionCursor;
    if (cursor && cursor.stepId === card.stepId && card.workflowId) {
      const step = await stepById(this.tx, this.churchId, cursor.stepId);
      if (step && !(await this.runActions(card, step, cursor.index, 0))) await this.routeOn(card, step, 0);
      return;
    }
    this.reminders.push(`Snooze ended: ${card.title ?? card.associatedWithLabel ?? ''}`.trim());
  }

  private reminders: string[] = [];

  /** The step's `onEnter` routes in order: the first that matches moves the card to its target step. */
  private async routeOn(card: Card, step: StepRow, depth: number): Promise<void> {
    for (const route of await routesOfStep(this.tx, this.churchId, step.id)) {
      if (route.trigger !== 'onEnter') continue;
      if (!(await this.matches(card, route))) continue;
      if (route.targetStepId && route.targetStepId !== card.stepId) {
        const next = await stepById(this.tx, this.churchId, route.targetStepId);
        if (next && next.workflowId === card.workflowId) await this.moveTo(card, next, false, depth + 1);
      }
      return;
    }
  }

  private async matches(card: Card, route: { id: string; kind: string }): Promise<boolean> {
    if (route.kind === 'always') return true;
    if (route.kind !== 'personMatch' || card.associatedWithType !== 'person' || !card.associatedWithId) return false;
    const person = this.person(card.associatedWithId);
    if (!person) return false;
    const { conds, conjs } = await treeOf(this.tx, this.churchId, { stepRouteId: route.id });
    return compileTree(conds, conjs)(person, utcDay());
  }

  /** Runs a step's actions from `start`; answers whether a delay parked the card. A failing action is noted, not fatal. */
  private async runActions(card: Card, step: StepRow, start: number, depth: number): Promise<boolean> {
    const actions = await actionsOfStep(this.tx, this.churchId, step.id);
    const data = dataOf(card);
    for (let i = start; i < actions.length; i++) {
      const action = actions[i]!;
      const config = parseConfig(action.config);
      const person = card.associatedWithType === 'person' ? card.associatedWithId : null;
      try {
        switch (action.actionType) {
          case 'delay': {
            const days = Number(config.days ?? 0);
            if (days > 0 && Number.isFinite(days)) {
              card.snoozedUntil = new Date(Date.now() + days * DAY_MS);
              note(data, `Waiting ${days} day(s)`);
              data.actionCursor = { stepId: step.id, index: i + 1 };
              card.data = data;
              return true;
            }
            break;
          }
          case 'addNote':
            note(data, config.note ? `Note: ${String(config.note)}` : 'Note added');
            break;
          case 'createTask':
            if (config.title) {
              await this.plainTask(card, config);
              note(data, `Task created: ${String(config.title)}`);
            }
            break;
          case 'addToWorkflow':
            if (person && typeof config.workflowId === 'string' && config.workflowId !== card.workflowId) {
              const target = await this.startStep(config.workflowId, typeof config.stepId === 'string' ? config.stepId : undefined);
              await this.create(config.workflowId, target, [{ type: 'person', id: person, label: card.associatedWithLabel }], { type: 'system', label: 'System' }, undefined, depth + 1);
              note(data, config.workflowLabel ? `Added to workflow: ${String(config.workflowLabel)}` : 'Added to workflow');
            }
            break;
          case 'setField': {
            // membership sets the field if the action's configurer may edit people, and reports back (`cardNote`)
            const field = typeof config.field === 'string' ? config.field.trim() : '';
            if (!person || !isUuid(person) || !field) {
              note(data, 'Field change skipped: no field, or the card is not about a person');
              break;
            }
            const configuredBy = { userId: action.configuredByUserId ?? undefined, personId: action.configuredByPersonId ?? undefined };
            await this.deps.queue.enqueue(personFieldChange, { churchId: this.churchId, personId: person, field, value: fieldValue(config.value), configuredBy, cardId: card.id }, { tx: this.tx });
            note(data, `Field change requested: ${field}`);
            break;
          }
          case 'webhook': {
            const url = typeof config.url === 'string' ? config.url : '';
            if (!/^https?:\/\/[^\s]+$/i.test(url) || url.length > 2000) {
              note(data, 'Webhook skipped: no http(s) URL');
              break;
            }
            const payload = { cardId: card.id, workflowId: card.workflowId, stepId: card.stepId, personId: person, personName: card.associatedWithLabel };
            await this.deps.queue.enqueue(cardWebhook, { churchId: this.churchId, url, payload }, { jobId: `doing.webhook.${card.id}.${action.id}.${Date.now()}`, tx: this.tx });
            note(data, 'Webhook sent');
            break;
          }
          case 'sendEmail': {
            // messaging sends the church's template to the card's person, merge fields filled in (in this transaction)
            if (!person || !isUuid(config.templateId)) {
              note(data, 'Email skipped: no template, or the card is not about a person');
              break;
            }
            const subject = typeof config.subject === 'string' && config.subject.trim() ? config.subject.trim().slice(0, 500) : undefined;
            await this.deps.queue.enqueue(templateEmail, { churchId: this.churchId, templateId: config.templateId, personId: person, subject, contentType: 'task', contentId: card.id }, { tx: this.tx });
            note(data, 'Email queued');
            break;
          }
          case 'addToGroup':
          case 'removeFromGroup': {
            if (!person || !isUuid(config.groupId)) {
              note(data, 'Group change skipped: no group, or the card is not about a person');
              break;
            }
            const add = action.actionType === 'addToGroup';
            await this.deps.queue.enqueue(groupMembershipChange, { churchId: this.churchId, groupId: config.groupId, personId: person, action: add ? 'add' : 'remove' }, { tx: this.tx });
            const group = typeof config.groupLabel === 'string' && config.groupLabel ? `: ${config.groupLabel}` : '';
            note(data, `${add ? 'Added to group' : 'Removed from group'}${group}`);
            break;
          }
          default:
            note(data, `Action ${action.actionType} is not known`);
        }
      } catch (err) {
        note(data, `Action ${action.actionType} failed: ${(err as Error).message}`);
      }
    }
    delete data.actionCursor;
    card.data = data;
    return false;
  }

  /** A step action's standalone task about the card's subject. */
  private async plainTask(card: Card, config: Record<string, unknown>): Promise<void> {
    const number = await reserveTaskNumbers(this.tx, this.churchId, 1);
    const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
    const row = await insertTask(this.tx, {
      id: randomUUID(),
      churchId: this.churchId,
      taskNumber: number,
      taskType: 'followUp',
      associatedWithType: card.associatedWithType,
      associatedWithId: card.associatedWithId,
      associatedWithLabel: card.associatedWithLabel,
      createdByType: 'system',
      createdByLabel: 'Workflow',
      assignedToType: text(config.assignedToType),
      assignedToId: text(config.assignedToId),
      assignedToLabel: text(config.assignedToLabel),
      title: String(config.title).slice(0, 500),
      note: text(config.description),
      status: 'Open',
    });
    await report(this.deps, this.actor, [change('task', undefined, row)], this.tx);
    await this.notify(undefined, row);
  }

  /**
   * Completing a card: with a route (an outcome of its step), where the route leads (a step of this workflow: moved
   * there with actions and routes; another workflow: a new card there and this one closed); otherwise closed.
   */
  async complete(card: Card, routeId?: string | null): Promise<void> {
    if (routeId) {
      const route = await stepRouteById(this.tx, this.churchId, routeId);
      if (!route || route.stepId !== card.stepId) throw badRequest('routeId', "is not a route of the card's step");
      if (route.targetWorkflowId && route.targetWorkflowId !== card.workflowId) {
        if (card.associatedWithId) {
          const start = await this.startStep(route.targetWorkflowId);
          await this.create(route.targetWorkflowId, start, [{ type: card.associatedWithType ?? 'person', id: card.associatedWithId, label: card.associatedWithLabel }], { type: 'system', label: 'System' });
        }
      } else if (route.targetStepId) {
        return this.moveTo(card, await this.step(route.targetStepId, card.workflowId!), false);
      }
    }
    card.status = 'Closed';
    card.dateClosed = new Date();
  }

  /** Saves a card (new when `before` is absent): the change reported and a newly assigned person notified, in the transaction. */
  async save(before: Card | undefined, card: Card): Promise<Card> {
    card.updatedAt = new Date();
    const row = before ? await updateCard(this.tx, card) : await insertCard(this.tx, card);
    await report(this.deps, this.actor, [change('task', before, row)], this.tx);
    await this.notify(before, row, this.reminders.shift());
    return row;
  }

  /** Tells the person a card or task is newly assigned to (not when they assigned it to themselves). */
  private async notify(before: Card | undefined, row: Card, reminder?: string): Promise<void> {
    if (row.status !== 'Open' || row.assignedToType !== 'person' || !row.assignedToId) return;
    if (!reminder && before && before.assignedToType === row.assignedToType && before.assignedToId === row.assignedToId) return;
    const actor = this.actor.personId ?? undefined;
    if (actor && actor.toLowerCase() === row.assignedToId.toLowerCase()) return;
    await this.deps.queue.enqueue(
      notifyPeople,
      {
        churchId: this.churchId,
        personIds: [row.assignedToId],
        message: (reminder ?? `You have been assigned ${row.workflowId ? 'a card' : 'a task'}: ${row.title ?? row.associatedWithLabel ?? ''}`.trim()).slice(0, 2000),
        contentType: 'task',
        contentId: row.id,
        ...(actor ? { triggeredByPersonId: actor } : {}),
      },
      { jobId: `doing.card.${row.id}.${row.assignedToId}.${row.updatedAt.getTime()}`, tx: this.tx },
    );
  }
}

const dataOf = (card: Card): CardData => (card.data && typeof card.data === 'object' && !Array.isArray(card.data) ? { ...(card.data as CardData) } : {});
function note(data: CardData, message: string) {
  data.history = [...(Array.isArray(data.history) ? data.history : []), { date: new Date().toISOString(), message }];
}
/** A `setField` value as membership's job takes it: text, a number, a yes/no, or nothing (clears the field). */
function fieldValue(v: unknown): string | number | boolean | null {
  if (typeof v === 'string') return v.slice(0, 2000);
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  return null;
}
export function parseConfig(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Wakes the cards whose snooze has ended, in batches, each card in its own transaction (locked, skipped if another
 * worker holds it, and re-checked, so a card is woken once). Answers how many were woken.
 */
export async function wakeCards(deps: Deps, job: JobRun, now = new Date()): Promise<number> {
  let woken = 0;
  for (let round = 0; round < 50; round++) {
    const due = await dueSnoozed(deps.db, now, 200);
    let changed = 0;
    for (const { id, churchId, associatedWithType, associatedWithId } of due) {
      const facts = await subjectFacts(deps, churchId, associatedWithType === 'person' ? [associatedWithId] : []);
      const done = await deps.queue.transaction(deps.db, async (tx) => {
        const before = await lockDueCard(tx, churchId, id, now);
        if (!before) return false;
        const run = new CardRun(deps, tx, systemActor(churchId, job.id, job.log), facts);
        const card = { ...before };
        await run.wake(card);
        await run.save(before, card);
        return true;
      });
      if (done) changed++;
    }
    woken += changed;
    if (due.length < 200 || !changed) break;
  }
  return woken;
}

/**
 * The people facts of the cards' subjects, asked of membership before a card's transaction opens (never inside it):
 * only when the church has a `personMatch` route to test them with. Keyed by lower-case id.
 */
export async function subjectFacts(deps: Pick<Deps, 'db' | 'internal'>, churchId: string, personIds: Array<string | null | undefined>): Promise<Map<string, PersonFacts>> {
  const ids = [...new Set(personIds.filter((id): id is string => isUuid(id)).map((id) => id.toLowerCase()))];
  if (!ids.length || !(await hasPersonMatchRoutes(deps.db, churchId))) return new Map();
  return factsById(await membershipClient(deps.internal).peopleFacts(churchId, ids));
}

/** People facts by lower-case id, as `CardRun` reads them. */
export const factsById = (people: PersonFacts[]) => new Map(people.map((p) => [p.id.toLowerCase(), p]));

/**
 * `doing.cardNote`: another module reports what a card's step action really did (a field set or refused, an email
 * sent or skipped); the line joins the card's history. A card that is gone, or not the church's, is left alone.
 */
export async function addCardNote(deps: Deps, actor: Actor, cardId: string, message: string): Promise<boolean> {
  return deps.queue.transaction(deps.db, async (tx) => {
    const before = await lockCard(tx, actor.churchId, cardId);
    if (!before) return false;
    const data = dataOf(before);
    note(data, message);
    await new CardRun(deps, tx, actor).save(before, { ...before, data });
    return true;
  });
}

// The card operations of `/doing/tasks` (routes/cards.ts). Adding and the board: Plans.Edit. A card's operations:
// Plans.Edit, or the person the card is assigned to (another church's card is a 404, someone else's a 401; the bulk
// forms skip such cards and say which).

/** A card operation: changes a copy of the stored card, which is saved after it. */
export type CardOp = (run: CardRun, card: Card) => Promise<void>;

/** The caller as a card's creator: a person, named as their token names them. */
const creatorOf = (actor: Actor): Creator => ({ type: 'person', id: actor.personId, label: [actor.firstName, actor.lastName].filter(Boolean).join(' ') || null });

/** Runs `work` on cards about these people in one transaction; their facts (for `personMatch` routes) are asked first, outside it. */
async function inTransaction<T>(deps: Deps, actor: Actor, people: Array<string | null | undefined>, work: (run: CardRun) => Promise<T>): Promise<T> {
  const facts = await subjectFacts(deps, actor.churchId, people);
  return deps.queue.transaction(deps.db, (tx) => work(new CardRun(deps, tx, actor, facts)));
}

/** A new card about a person or a group, on the workflow's step (the one named, else the first); the subject is the church's. */
export async function addToWorkflow(
  deps: Deps,
  actor: Actor,
  body: { workflowId: string; stepId?: string | null; associatedWith: { type?: 'person' | 'group' | null; id: string; label?: string | null } },
): Promise<Card> {
  const { workflowId, stepId, associatedWith: subject } = body;
  await assertReferences(deps, actor.churchId, [{ type: subject.type ?? 'person', id: subject.id }], { id: personOrGroup('type') }, (_i, field) => `associatedWith.${field}`);
  return inTransaction(deps, actor, subject.type === 'group' ? [] : [subject.id], async (run) => {
    const step = await run.startStep(workflowId, stepId);
    const [card] = await run.create(workflowId, step, [{ type: subject.type ?? 'person', id: subject.id, label: subject.label }], creatorOf(actor));
    return card!;
  });
}

/** New cards for these people (each once) on the workflow's step; the people are the church's. */
export async function bulkAddToWorkflow(deps: Deps, actor: Actor, body: { workflowId: string; stepId?: string | null; people: Array<{ id: string; label?: string | null }> }): Promise<Card[]> {
  const { workflowId, stepId, people } = body;
  await assertReferences(deps, actor.churchId, people, { id: REMOTE.people }, (i, field) => `people[${i}].${field}`);
  return inTransaction(deps, actor, people.map((p) => p.id), async (run) => {
    const step = await run.startStep(workflowId, stepId);
    const unique = [...new Map(people.map((p) => [p.id.toLowerCase(), p])).values()];
    return run.create(workflowId, step, unique.map((p) => ({ type: 'person', id: p.id, label: p.label })), creatorOf(actor));
  });
}

/** Whether the caller may change the card: Plans.Edit, or the person it is assigned to. */
const mayEdit = (actor: Actor, card: Card) =>
  hasPermission(actor, 'Plans.Edit') || (card.assignedToType === 'person' && !!actor.personId && card.assignedToId?.toLowerCase() === actor.personId.toLowerCase());

const refuseEdit = () => unauthorized("Only holders of Plans.Edit and the card's assignee can change it");

/** Loads the cards (this church's, locked for the change), applies `op` to those the caller may edit, saves each. */
async function apply(run: CardRun, ids: string[], op: CardOp) {
  const rows = new Map((await rowsByIds(run.tx, tasks, run.churchId, ids)).map((r) => [r.id, r]));
  const done: Card[] = [];
  const skipped: string[] = [];
  for (const id of ids) {
    const before = rows.get(id.toLowerCase());
    if (!before || !before.workflowId || before.status !== 'Open' || !mayEdit(run.actor, before)) {
      skipped.push(id);
      continue;
    }
    const card = { ...before };
    await op(run, card);
    done.push(await run.save(before, card));
  }
  return { done, skipped };
}

/**
 * One card changed by `op`: 404 when the church has no such open card, 401 when the caller may not edit it. An
 * operation that runs the step's routes (`routes`: complete) has the subject's facts asked before its transaction.
 */
export async function changeCard(deps: Deps, actor: Actor, id: string, op: CardOp, routes = false): Promise<Card> {
  const [subject] = routes ? await rowsByIds(deps.db, tasks, actor.churchId, [id]) : [];
  return inTransaction(deps, actor, subject?.associatedWithType === 'person' ? [subject.associatedWithId] : [], async (run) => {
    const [card] = await rowsByIds(run.tx, tasks, actor.churchId, [id]);
    if (!card || !card.workflowId) throw notFound('Card');
    if (!mayEdit(actor, card)) throw refuseEdit();
    const { done } = await apply(run, [card.id], op);
    if (!done[0]) throw notFound('Open card');
    return done[0];
  });
}

/** skip / sendBack: the card to the next or previous step, placed by hand (no actions, no routes); at either end, unchanged. */
export function stepCard(deps: Deps, actor: Actor, id: string, direction: 'skip' | 'sendBack'): Promise<Card> {
  return deps.queue.transaction(deps.db, async (tx) => {
    const run = new CardRun(deps, tx, actor);
    const [card] = await rowsByIds(tx, tasks, actor.churchId, [id]);
    if (!card || !card.workflowId) throw notFound('Card');
    if (!mayEdit(actor, card)) throw refuseEdit();
    const steps = await stepsOf(tx, actor.churchId, card.workflowId);
    const target = steps[steps.findIndex((s) => s.id === card.stepId) + (direction === 'skip' ? 1 : -1)];
    if (!target || card.status !== 'Open') return card;
    const { done } = await apply(run, [card.id], (r, c) => r.moveTo(c, target, true));
    return done[0] ?? card;
  });
}

/** The bulk forms: `op` on each of these cards the caller may edit, in one transaction; the others are skipped and named. */
export function changeCards(deps: Deps, actor: Actor, ids: string[], op: CardOp): Promise<{ updated: string[]; skipped: string[] }> {
  return deps.queue.transaction(deps.db, async (tx) => {
    const { done, skipped } = await apply(new CardRun(deps, tx, actor), [...new Set(ids)], op);
    return { updated: done.map((c) => c.id), skipped };
  });
}

/** A reassignment's new assignee (a person unless it says group) is a person or a group of the church. */
export async function checkAssignee(deps: Pick<Deps, 'db' | 'internal'>, actor: Actor, body: { assignedToType?: string | null; assignedToId?: string | null }): Promise<void> {
  const assignee = { assignedToType: body.assignedToType ?? 'person', assignedToId: body.assignedToId };
  await assertReferences(deps, actor.churchId, [assignee], { assignedToId: personOrGroup('assignedToType') }, (_i, field) => field);
}

/** The card operations, by what they do. */
export const cardOps = {
  complete: (routeId?: string | null): CardOp => (run, card) => run.complete(card, routeId),
  move: (stepId: string): CardOp => async (run, card) => run.moveTo(card, await run.step(stepId, card.workflowId!), true),
  pin: (pinned?: boolean | null): CardOp => async (_run, card) => {
    card.pinnedAssignment = pinned !== false;
  },
  reassign: (b: { assignedToType?: string | null; assignedToId?: string | null; assignedToLabel?: string | null }): CardOp => async (_run, card) => {
    Object.assign(card, { assignedToType: b.assignedToId ? (b.assignedToType ?? 'person') : null, assignedToId: b.assignedToId ?? null, assignedToLabel: b.assignedToId ? (b.assignedToLabel ?? null) : null });
  },
  snooze: (days: number): CardOp => async (_run, card) => {
    card.snoozedUntil = days > 0 ? new Date(Date.now() + days * DAY_MS) : null;
  },
};
