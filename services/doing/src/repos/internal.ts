import { and, asc, eq, gte, lte, ne, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx, Tx } from '@church/common';
import { assignments, blockoutDates, planTypes, plans, schedulingPreferences, tasks, workflowExecutions } from '../db/schema';

const reminderPlan = { id: plans.id, name: plans.name, serviceDate: plans.serviceDate, planTypeId: plans.planTypeId };

/** A plan type of the church and its plans whose service day is in [from, to] (messaging's reminders). */
export async function planTypePlans(db: DbOrTx, churchId: string, planTypeId: string, from: string, to: string) {
  const [planType] = await db.select({ id: planTypes.id, name: planTypes.name }).from(planTypes).where(and(eq(planTypes.churchId, churchId), eq(planTypes.id, planTypeId)));
  if (!planType) return { planType: null, plans: [] };
  const list = await db
    .select(reminderPlan)
    .from(plans)
    .where(and(eq(plans.churchId, churchId), eq(plans.planTypeId, planTypeId), gte(plans.serviceDate, from), lte(plans.serviceDate, to)))
    .orderBy(asc(plans.serviceDate))
    .limit(1000);
  return { planType, plans: list };
}

/** A plan of the church and the people of its assignments that are not declined. */
export async function planPeople(db: DbOrTx, churchId: string, planId: string) {
  const [plan] = await db.select(reminderPlan).from(plans).where(and(eq(plans.churchId, churchId), eq(plans.id, planId)));
  if (!plan) return { plan: null, personIds: [] };
  const rows = await db
    .selectDistinct({ personId: assignments.personId })
    .from(assignments)
    .where(and(eq(assignments.churchId, churchId), eq(assignments.planId, planId), ne(assignments.status, 'Declined')));
  return { plan, personIds: rows.map((r) => r.personId) };
}

/** One task of the church with what a reminder needs. */
export async function taskForReminder(db: DbOrTx, churchId: string, taskId: string) {
  const [task] = await db
    .select({ id: tasks.id, title: tasks.title, status: tasks.status, dueDate: tasks.dueDate, assignedToType: tasks.assignedToType, assignedToId: tasks.assignedToId })
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.id, taskId)));
  return { task: task ? { ...task, dueDate: task.dueDate?.toISOString() ?? null } : null };
}

const personTasks = (churchId: string, personId: string) =>
  and(
    eq(tasks.churchId, churchId),
    or(
      and(eq(tasks.associatedWithType, 'person'), eq(tasks.associatedWithId, personId)),
      and(eq(tasks.assignedToType, 'person'), eq(tasks.assignedToId, personId)),
      and(eq(tasks.createdByType, 'person'), eq(tasks.createdById, personId)),
    ),
  );

/** Everything doing keeps about a person (GDPR export). */
export async function personRecords(db: DbOrTx, churchId: string, personId: string) {
  const [assigned, blockouts, preferences, personal, executions] = await Promise.all([
    db.select().from(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.personId, personId))),
    db.select().from(blockoutDates).where(and(eq(blockoutDates.churchId, churchId), eq(blockoutDates.personId, personId))),
    db.select().from(schedulingPreferences).where(and(eq(schedulingPreferences.churchId, churchId), eq(schedulingPreferences.personId, personId))),
    db.select().from(tasks).where(personTasks(churchId, personId)).orderBy(asc(tasks.taskNumber)),
    db.select().from(workflowExecutions).where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.subjectType, 'person'), eq(workflowExecutions.subjectId, personId))),
  ]);
  return { assignments: assigned, blockoutDates: blockouts, schedulingPreferences: preferences, tasks: personal, workflowExecutions: executions };
}

/**
 * Removes what names the person: the labels that carry their name on tasks and cards (about, assigned to, created
 * by them), a directory update's requested changes (their contact details), a card's history, and executions'
 * subject labels. Ids, numbers, statuses and dates stay, so counts and reports do not change. Idempotent.
 */
export async function anonymizePerson(tx: Tx, churchId: string, personId: string) {
  const isPerson = (type: PgColumn, id: PgColumn) => sql`(${type} = 'person' and ${id} = ${personId})`;
  const about = isPerson(tasks.associatedWithType, tasks.associatedWithId);
  const changed = await tx
    .update(tasks)
    .set({
      associatedWithLabel: sql`case when ${about} then null else ${tasks.associatedWithLabel} end`,
      assignedToLabel: sql`case when ${isPerson(tasks.assignedToType, tasks.assignedToId)} then null else ${tasks.assignedToLabel} end`,
      createdByLabel: sql`case when ${isPerson(tasks.createdByType, tasks.createdById)} then null else ${tasks.createdByLabel} end`,
      // a card's title is its subject's name; a task's data about them is their requested changes or the card's history
      title: sql`case when ${about} and ${tasks.workflowId} is not null then null else ${tasks.title} end`,
      data: sql`case when ${about} then null else ${tasks.data} end`,
      updatedAt: new Date(),
    })
    .where(
      and(
        personTasks(churchId, personId),
        sql`(
          (${about} and (${tasks.associatedWithLabel} is not null or ${tasks.data} is not null or (${tasks.workflowId} is not null and ${tasks.title} is not null)))
          or (${isPerson(tasks.assignedToType, tasks.assignedToId)} and ${tasks.assignedToLabel} is not null)
          or (${isPerson(tasks.createdByType, tasks.createdById)} and ${tasks.createdByLabel} is not null))`,
      ),
    )
    .returning({ id: tasks.id });
  const executions = await tx
    .update(workflowExecutions)
    .set({ subjectLabel: null, updatedAt: new Date() })
    .where(and(eq(workflowExecutions.churchId, churchId), eq(workflowExecutions.subjectType, 'person'), eq(workflowExecutions.subjectId, personId), sql`${workflowExecutions.subjectLabel} is not null`))
    .returning({ id: workflowExecutions.id });
  return { tasks: changed.length, workflowExecutions: executions.length };
}
