import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, lte, max, or, sql, type SQL } from 'drizzle-orm';
import { DAY_MS, rowsOf, type DbOrTx } from '@church/common';
import { conditions, conjunctions, tasks, workflowExecutions, workflowStepActions, workflowStepRoutes, workflowSteps, workflowTriggers, workflows } from '../db/schema';

export type TaskRow = typeof tasks.$inferSelect;
export type StepRow = typeof workflowSteps.$inferSelect;
export type RouteRow = typeof workflowStepRoutes.$inferSelect;
export type ActionRow = typeof workflowStepActions.$inferSelect;
export type TriggerRow = typeof workflowTriggers.$inferSelect;
export type WorkflowRow = typeof workflows.$inferSelect;
export type ExecutionRow = typeof workflowExecutions.$inferSelect;

/** A step of the church, or `undefined`. */
export async function stepById(db: DbOrTx, churchId: string, id: string): Promise<StepRow | undefined> {
  const [step] = await db.select().from(workflowSteps).where(and(eq(workflowSteps.churchId, churchId), eq(workflowSteps.id, id)));
  return step;
}

/** Whether the church has this workflow. */
export async function hasWorkflow(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const [workflow] = await db.select({ id: workflows.id }).from(workflows).where(and(eq(workflows.churchId, churchId), eq(workflows.id, id)));
  return !!workflow;
}

/** A step route of the church, or `undefined`. */
export async function stepRouteById(db: DbOrTx, churchId: string, id: string): Promise<RouteRow | undefined> {
  const [route] = await db.select().from(workflowStepRoutes).where(and(eq(workflowStepRoutes.churchId, churchId), eq(workflowStepRoutes.id, id)));
  return route;
}

/** A new workflow (its fields as given), answered as stored. */
export async function insertWorkflow(tx: DbOrTx, row: typeof workflows.$inferInsert): Promise<WorkflowRow> {
  const [workflow] = await tx.insert(workflows).values(row).returning();
  return workflow!;
}

/** New steps, answered as stored (none given, none written). */
export async function insertSteps(tx: DbOrTx, rows: Array<typeof workflowSteps.$inferInsert>): Promise<StepRow[]> {
  return rows.length ? tx.insert(workflowSteps).values(rows).returning() : [];
}

/** New step actions (none given, none written). */
export async function insertStepActions(tx: DbOrTx, rows: Array<typeof workflowStepActions.$inferInsert>): Promise<void> {
  if (rows.length) await tx.insert(workflowStepActions).values(rows);
}

/** New step routes (none given, none written). */
export async function insertStepRoutes(tx: DbOrTx, rows: Array<typeof workflowStepRoutes.$inferInsert>): Promise<void> {
  if (rows.length) await tx.insert(workflowStepRoutes).values(rows);
}

/** A new card (a task on a workflow's step), answered as stored. */
export async function insertCard(tx: DbOrTx, card: TaskRow): Promise<TaskRow> {
  const [row] = await tx.insert(tasks).values(card).returning();
  return row!;
}

/** A card's fields written over the stored ones, answered as stored. */
export async function updateCard(tx: DbOrTx, card: TaskRow): Promise<TaskRow> {
  const { id, churchId, ...fields } = card;
  const [row] = await tx.update(tasks).set(fields).where(and(eq(tasks.churchId, churchId), eq(tasks.id, id))).returning();
  return row!;
}

/** A workflow's steps in column order. */
export const stepsOf = (db: DbOrTx, churchId: string, workflowId: string): Promise<StepRow[]> =>
  db.select().from(workflowSteps).where(and(eq(workflowSteps.churchId, churchId), eq(workflowSteps.workflowId, workflowId))).orderBy(asc(workflowSteps.sort), asc(workflowSteps.createdAt));

export const routesOfStep = (db: DbOrTx, churchId: string, stepId: string): Promise<RouteRow[]> =>
  db.select().from(workflowStepRoutes).where(and(eq(workflowStepRoutes.churchId, churchId), eq(workflowStepRoutes.stepId, stepId))).orderBy(asc(workflowStepRoutes.sort), asc(workflowStepRoutes.createdAt));

export const actionsOfStep = (db: DbOrTx, churchId: string, stepId: string): Promise<ActionRow[]> =>
  db.select().from(workflowStepActions).where(and(eq(workflowStepActions.churchId, churchId), eq(workflowStepActions.stepId, stepId))).orderBy(asc(workflowStepActions.sort), asc(workflowStepActions.createdAt));

export const triggersOf = (db: DbOrTx, churchId: string, workflowId: string): Promise<TriggerRow[]> =>
  db.select().from(workflowTriggers).where(and(eq(workflowTriggers.churchId, churchId), eq(workflowTriggers.workflowId, workflowId))).orderBy(asc(workflowTriggers.name));

/** The condition tree of a trigger or a step route (its conditions and conjunctions). */
export async function treeOf(db: DbOrTx, churchId: string, owner: { triggerId: string } | { stepRouteId: string }) {
  const byOwner = <T extends typeof conditions | typeof conjunctions>(t: T) => ('triggerId' in owner ? eq(t.triggerId, owner.triggerId) : eq(t.stepRouteId, owner.stepRouteId));
  const [conds, conjs] = await Promise.all([
    db.select().from(conditions).where(and(eq(conditions.churchId, churchId), byOwner(conditions))),
    db.select().from(conjunctions).where(and(eq(conjunctions.churchId, churchId), byOwner(conjunctions))),
  ]);
  return { conds, conjs };
}

/** Removes the condition trees of these triggers or step routes. */
export async function deleteTrees(tx: DbOrTx, churchId: string, field: 'triggerId' | 'stepRouteId', ids: string[]): Promise<void> {
  if (!ids.length) return;
  await tx.delete(conditions).where(and(eq(conditions.churchId, churchId), inArray(conditions[field], ids)));
  await tx.delete(conjunctions).where(and(eq(conjunctions.churchId, churchId), inArray(conjunctions[field], ids)));
}

/** A root `and` conjunction for a trigger or route that has none (the screens hang their conditions on it). */
export async function ensureRoot(tx: DbOrTx, churchId: string, field: 'triggerId' | 'stepRouteId', id: string): Promise<void> {
  const [root] = await tx.select({ id: conjunctions.id }).from(conjunctions).where(and(eq(conjunctions.churchId, churchId), eq(conjunctions[field], id))).limit(1);
  if (!root) await tx.insert(conjunctions).values({ id: randomUUID(), churchId, [field]: id, parentId: null, groupType: 'and' });
}

/** Step routes and their trees, of a step or of these steps; routes that lead to these steps now close the card instead. */
export async function deleteStepParts(tx: DbOrTx, churchId: string, stepIds: string[]): Promise<void> {
  if (!stepIds.length) return;
  const routes = await tx.select({ id: workflowStepRoutes.id }).from(workflowStepRoutes).where(and(eq(workflowStepRoutes.churchId, churchId), inArray(workflowStepRoutes.stepId, stepIds)));
  await deleteTrees(tx, churchId, 'stepRouteId', routes.map((r) => r.id));
  await tx.delete(workflowStepRoutes).where(and(eq(workflowStepRoutes.churchId, churchId), inArray(workflowStepRoutes.stepId, stepIds)));
  await tx.delete(workflowStepActions).where(and(eq(workflowStepActions.churchId, churchId), inArray(workflowStepActions.stepId, stepIds)));
  await tx.update(workflowStepRoutes).set({ targetStepId: null, updatedAt: new Date() }).where(and(eq(workflowStepRoutes.churchId, churchId), inArray(workflowStepRoutes.targetStepId, stepIds)));
  await tx.update(workflowTriggers).set({ stepId: null, updatedAt: new Date() }).where(and(eq(workflowTriggers.churchId, churchId), inArray(workflowTriggers.stepId, stepIds)));
}

/** How many open cards sit on a step. */
export async function openCardsOnStep(db: DbOrTx, churchId: string, stepId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(tasks).where(and(eq(tasks.churchId, churchId), eq(tasks.stepId, stepId), eq(tasks.status, 'Open')));
  return row?.n ?? 0;
}

/**
 * Everything of a workflow goes with it (steps, actions, routes, triggers, their trees and executions); its open
 * cards are closed (resolution `workflowDeleted`), so no one is left with a card of a board that is gone. Answers
 * the closed cards.
 */
export async function deleteWorkflowParts(tx: DbOrTx, churchId: string, workflowId: string): Promise<TaskRow[]> {
  const steps = await stepsOf(tx, churchId, workflowId);
  await deleteStepParts(tx, churchId, steps.map((s) => s.id));
  await tx.delete(workflowSteps).where(and(eq(workflowSteps.churchId, churchId), eq(workflowSteps.workflowId, workflowId)));
  const triggers = await triggersOf(tx, churchId, workflowId);
  await deleteTrees(tx, churchId, 'triggerId', triggers.map((t) => t.id));
  await tx.delete(workflowTriggers).where(and(eq(workflowTriggers.churchId, churchId), eq(workflowTriggers.workflowId, workflowId)));
  await tx.delete(workflowExecutions).where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.workflowId, workflowId)));
  await tx.update(workflowStepRoutes).set({ targetWorkflowId: null, updatedAt: new Date() }).where(and(eq(workflowStepRoutes.churchId, churchId), eq(workflowStepRoutes.targetWorkflowId, workflowId)));
  const now = new Date();
  return tx
    .update(tasks)
    .set({ status: 'Closed', dateClosed: now, resolution: 'workflowDeleted', updatedAt: now })
    .where(and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.status, 'Open')))
    .returning();
}

/** The next `sort` at the bottom of a step's column. */
export async function nextSort(db: DbOrTx, churchId: string, workflowId: string, stepId: string): Promise<number> {
  const [row] = await db
    .select({ last: max(tasks.sort) })
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.status, 'Open'), eq(tasks.stepId, stepId)));
  return (row?.last ?? 0) + 1;
}

const json = (pairs: Record<string, SQL | string>) => sql.join(Object.entries(pairs).flatMap(([k, v]) => [sql.raw(`'${k}'`), typeof v === 'string' ? sql.raw(v) : v]), sql`, `);

/**
 * The board's frame in one statement: the workflow with its steps, routes and actions (each from an index that leads
 * with church_id), or `undefined` when the church has no such workflow. The cards are the board's second query.
 */
export async function boardFrame(db: DbOrTx, churchId: string, workflowId: string) {
  const result = await db.execute(sql`
    select json_build_object(
      'workflow', json_build_object(${json({ id: 'w.id', churchId: 'w.church_id', name: 'w.name', categoryId: 'w.category_id', active: 'w.active', sort: 'w.sort' })}),
      'steps', coalesce((select json_agg(json_build_object(${json({ id: 's.id', churchId: 's.church_id', workflowId: 's.workflow_id', name: 's.name', sort: 's.sort', defaultAssignToType: 's.default_assign_to_type', defaultAssignToId: 's.default_assign_to_id', defaultAssignToLabel: 's.default_assign_to_label', expectedResponseDays: 's.expected_response_days' })}) order by s.sort, s.created_at)
        from workflow_steps s where s.church_id = w.church_id and s.workflow_id = w.id), '[]'),
      'routes', coalesce((select json_agg(json_build_object(${json({ id: 'r.id', churchId: 'r.church_id', workflowId: 'r.workflow_id', stepId: 'r.step_id', sort: 'r.sort', trigger: 'r.trigger', kind: 'r.kind', label: 'r.label', targetStepId: 'r.target_step_id', targetWorkflowId: 'r.target_workflow_id' })}) order by r.sort, r.created_at)
        from workflow_step_routes r where r.church_id = w.church_id and r.workflow_id = w.id), '[]'),
      'actions', coalesce((select json_agg(json_build_object(${json({ id: 'a.id', churchId: 'a.church_id', workflowId: 'a.workflow_id', stepId: 'a.step_id', sort: 'a.sort', actionType: 'a.action_type', config: 'a.config' })}) order by a.sort, a.created_at)
        from workflow_step_actions a where a.church_id = w.church_id and a.workflow_id = w.id), '[]')
    ) as board
    from workflows w where w.church_id = ${churchId} and w.id = ${workflowId}`);
  return rowsOf<{ board: { workflow: WorkflowRow; steps: StepRow[]; routes: RouteRow[]; actions: ActionRow[] } }>(result)[0]?.board;
}

/** A workflow's open cards, by step and order (the board's second query, from `tasks_church_workflow_idx`). */
export const openCards = (db: DbOrTx, churchId: string, workflowId: string): Promise<TaskRow[]> =>
  db.select().from(tasks).where(and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.status, 'Open'))).orderBy(asc(tasks.stepId), asc(tasks.sort), asc(tasks.taskNumber));

/** The open cards assigned to the person or to one of their groups, due first. */
export function cardsOfPerson(db: DbOrTx, churchId: string, personId: string, groupIds: string[]): Promise<TaskRow[]> {
  const mine: SQL[] = [and(eq(tasks.assignedToType, 'person'), eq(tasks.assignedToId, personId))!];
  if (groupIds.length) mine.push(and(eq(tasks.assignedToType, 'group'), inArray(tasks.assignedToId, groupIds))!);
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.status, 'Open'), isNotNull(tasks.workflowId), or(...mine)))
    .orderBy(sql`${tasks.dueDate} asc nulls last`, desc(tasks.taskNumber))
    .limit(1000);
}

/** Open cards per step, the overdue ones, and cards closed per day over the last 30 days. */
export async function workflowReport(db: DbOrTx, churchId: string, workflowId: string, now = new Date()) {
  const open = and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.status, 'Open'));
  const since = new Date(now.getTime() - 30 * DAY_MS);
  const day = sql<string>`to_char(${tasks.dateClosed} at time zone 'UTC', 'YYYY-MM-DD')`;
  const [stepCounts, overdue, throughput] = await Promise.all([
    db.select({ stepId: sql<string>`${tasks.stepId}::text`, count: sql<number>`count(*)::int` }).from(tasks).where(and(open, isNotNull(tasks.stepId))).groupBy(tasks.stepId),
    db.select().from(tasks).where(and(open, lt(tasks.dueDate, now))).orderBy(asc(tasks.dueDate)).limit(1000),
    db
      .select({ day, count: sql<number>`count(*)::int` })
      .from(tasks)
      .where(and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.status, 'Closed'), gte(tasks.dateClosed, since)))
      .groupBy(day)
      .orderBy(day),
  ]);
  return { stepCounts, overdue, throughput };
}

/** A trigger's or a workflow's executions, newest first. */
export const executionsOf = (db: DbOrTx, churchId: string, workflowId: string) =>
  db.select().from(workflowExecutions).where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.workflowId, workflowId))).orderBy(desc(workflowExecutions.dateCreated)).limit(500);

/** The church's active event triggers for these events. */
export const eventTriggers = (db: DbOrTx, churchId: string, events: string[]): Promise<TriggerRow[]> =>
  db
    .select()
    .from(workflowTriggers)
    .where(and(eq(workflowTriggers.churchId, churchId), inArray(workflowTriggers.eventType, events), eq(workflowTriggers.active, true), eq(workflowTriggers.triggerKind, 'event')));

/** The events the church's active event triggers start on, each once (what membership says the church listens for). */
export async function triggerEventTypes(db: DbOrTx, churchId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ eventType: workflowTriggers.eventType })
    .from(workflowTriggers)
    .where(and(eq(workflowTriggers.churchId, churchId), eq(workflowTriggers.active, true), eq(workflowTriggers.triggerKind, 'event')));
  return rows.flatMap((r) => (r.eventType ? [r.eventType] : []));
}

/** Whether the subject already has a card (open or closed) in the workflow (`oncePerSubject`). */
export async function hasCard(db: DbOrTx, churchId: string, workflowId: string, type: string, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.workflowId, workflowId), eq(tasks.associatedWithType, type), eq(tasks.associatedWithId, id)))
    .limit(1);
  return !!row;
}

export async function setTriggerActive(db: DbOrTx, churchId: string, id: string, active: boolean): Promise<TriggerRow> {
  const [row] = await db.update(workflowTriggers).set({ active, updatedAt: new Date() }).where(and(eq(workflowTriggers.churchId, churchId), eq(workflowTriggers.id, id))).returning();
  return row!;
}

export async function setExecutionStatus(db: DbOrTx, churchId: string, id: string, status: string) {
  const [row] = await db.update(workflowExecutions).set({ status, updatedAt: new Date() }).where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.id, id))).returning();
  return row!;
}

/**
 * Claims a trigger's execution for one event (unique by trigger and event key): the new row, or `undefined` when
 * the same event was claimed before (a retried or duplicated job).
 */
export async function claimExecution(tx: DbOrTx, row: typeof workflowExecutions.$inferInsert): Promise<ExecutionRow | undefined> {
  const [claimed] = await tx.insert(workflowExecutions).values(row).onConflictDoNothing().returning();
  return claimed;
}

/** An execution's attempt written on its row, answered as stored. */
export async function finishExecution(
  tx: DbOrTx,
  churchId: string,
  id: string,
  fields: Pick<ExecutionRow, 'status' | 'taskId' | 'lastError' | 'attemptCount' | 'dateCompleted' | 'updatedAt'>,
): Promise<ExecutionRow> {
  const [row] = await tx.update(workflowExecutions).set(fields).where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.id, id))).returning();
  return row!;
}

/** The active schedule triggers of one church, or of every church. */
export const activeScheduleTriggers = (db: DbOrTx, churchId?: string): Promise<TriggerRow[]> =>
  db
    .select()
    .from(workflowTriggers)
    .where(and(eq(workflowTriggers.triggerKind, 'schedule'), eq(workflowTriggers.active, true), churchId ? eq(workflowTriggers.churchId, churchId) : undefined));

/** Open cards whose snooze has ended (every church), oldest first: the wake job's batch (`tasks_snoozed_idx`). */
export const dueSnoozed = (db: DbOrTx, now: Date, limit: number) =>
  db
    .select({ id: tasks.id, churchId: tasks.churchId, associatedWithType: tasks.associatedWithType, associatedWithId: tasks.associatedWithId })
    .from(tasks)
    .where(and(isNotNull(tasks.snoozedUntil), lte(tasks.snoozedUntil, now), eq(tasks.status, 'Open')))
    .orderBy(asc(tasks.snoozedUntil))
    .limit(limit);

/** The card, locked for the wake, if its snooze has still ended (another worker may have woken it meanwhile). */
export async function lockDueCard(tx: DbOrTx, churchId: string, id: string, now: Date): Promise<TaskRow | undefined> {
  const [row] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.id, id), lte(tasks.snoozedUntil, now), eq(tasks.status, 'Open')))
    .for('update', { skipLocked: true });
  return row;
}

/** A card of the church, locked for a change (a note another module reports back). */
export async function lockCard(tx: DbOrTx, churchId: string, id: string): Promise<TaskRow | undefined> {
  const [row] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.id, id), isNotNull(tasks.workflowId)))
    .for('update');
  return row;
}

/** Whether any step route of the church selects on people's facts (`personMatch`): only then are facts asked for. */
export async function hasPersonMatchRoutes(db: DbOrTx, churchId: string): Promise<boolean> {
  const [row] = await db.select({ id: workflowStepRoutes.id }).from(workflowStepRoutes).where(and(eq(workflowStepRoutes.churchId, churchId), eq(workflowStepRoutes.kind, 'personMatch'))).limit(1);
  return !!row;
}
