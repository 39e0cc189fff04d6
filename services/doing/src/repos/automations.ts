import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx, TenantTable, Tx } from '@church/common';
import { actions, automationRuns, automations, conditions, conjunctions, tasks } from '../db/schema';
import { reserveTaskNumbers } from './tasks';

/** An automation's actions, conditions, conjunctions and run keys go with it. */
export async function deleteAutomationParts(tx: DbOrTx, churchId: string, automationId: string): Promise<void> {
  for (const table of [actions, conditions, conjunctions, automationRuns]) await tx.delete(table).where(and(eq(table.churchId, churchId), eq(table.automationId, automationId)));
}

/** The rows of one of an automation's part tables (actions, conditions, conjunctions) that belong to it. */
export function partsOf<T extends TenantTable & { automationId: PgColumn }>(db: DbOrTx, table: T, churchId: string, automationId: string): Promise<Array<T['$inferSelect']>> {
  return db.select().from(table as PgTable).where(and(eq(table.churchId, churchId), eq(table.automationId, automationId))) as Promise<Array<T['$inferSelect']>>;
}

/** Every active automation (of one church, or of all). */
export const activeAutomations = (db: DbOrTx, churchId?: string) =>
  db.select().from(automations).where(and(eq(automations.active, true), churchId ? eq(automations.churchId, churchId) : undefined));

/** The conditions, conjunctions and actions of these automations of a church. */
export async function automationParts(db: DbOrTx, churchId: string, ids: string[]) {
  const [conds, conjs, acts] = await Promise.all([
    db.select().from(conditions).where(and(eq(conditions.churchId, churchId), inArray(conditions.automationId, ids))),
    db.select().from(conjunctions).where(and(eq(conjunctions.churchId, churchId), inArray(conjunctions.automationId, ids))),
    db.select().from(actions).where(and(eq(actions.churchId, churchId), inArray(actions.automationId, ids))),
  ]);
  return { conds, conjs, acts };
}

export type AutomationTask = Omit<typeof tasks.$inferInsert, 'id' | 'churchId' | 'taskNumber'>;

/**
 * One run of an automation for these people in a period, in one transaction: the (automation, person, period) keys
 * are claimed first, and only the people whose key is new get the tasks `tasksFor` makes for them (numbered in one
 * reservation); `afterInsert` runs in the same transaction (the report of the new tasks). Answers the new tasks.
 */
export async function runOnce(
  db: Db,
  churchId: string,
  automationId: string,
  personIds: string[],
  period: string,
  tasksFor: (personId: string) => AutomationTask[],
  afterInsert: (tx: Tx, rows: Array<typeof tasks.$inferSelect>) => Promise<void>,
) {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(automationRuns)
      .values(personIds.map((personId) => ({ id: randomUUID(), churchId, automationId, personId, period })))
      .onConflictDoNothing()
      .returning({ id: automationRuns.id, personId: automationRuns.personId });
    if (!claimed.length) return [];
    const perPerson = claimed.map((run) => ({ run, made: tasksFor(run.personId) }));
    const count = perPerson.reduce((n, p) => n + p.made.length, 0);
    if (!count) return [];
    let number = await reserveTaskNumbers(tx, churchId, count);
    const rows = perPerson.flatMap(({ run, made }) => made.map((task) => ({ ...task, id: randomUUID(), churchId, taskNumber: number++, runId: run.id })));
    const inserted: Array<typeof tasks.$inferSelect> = [];
    for (let i = 0; i < rows.length; i += 500) inserted.push(...(await tx.insert(tasks).values(rows.slice(i, i + 500).map(({ runId: _r, ...row }) => row)).returning()));
    for (const { run } of perPerson) {
      await tx.update(automationRuns).set({ taskIds: rows.filter((r) => r.runId === run.id).map((r) => r.id) }).where(eq(automationRuns.id, run.id));
    }
    await afterInsert(tx, inserted);
    return inserted;
  });
}
