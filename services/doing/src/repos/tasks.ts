import { and, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { taskCounters, tasks } from '../db/schema';

export type TaskRow = typeof tasks.$inferSelect;

/** The church's next task number: an atomic upsert, so concurrent saves never share a number. */
export async function nextTaskNumber(db: DbOrTx, churchId: string): Promise<number> {
  const [row] = await db
    .insert(taskCounters)
    .values({ churchId, last: 1 })
    .onConflictDoUpdate({ target: taskCounters.churchId, set: { last: sql`${taskCounters.last} + 1` } })
    .returning({ last: taskCounters.last });
  return row!.last;
}

const statusIs = (open: boolean) => (open ? eq(tasks.status, 'Open') : ne(tasks.status, 'Open'));

/**
 * A person's tasks: assigned to them, to a group they belong to, or created by them; open or closed.
 * Newest first. Workflow cards are not tasks here (B1Admin lists them apart, `GET /tasks/cards/my`).
 */
export function tasksOfPerson(db: DbOrTx, churchId: string, personId: string, groupIds: string[], open: boolean): Promise<TaskRow[]> {
  const mine: SQL[] = [
    and(eq(tasks.assignedToType, 'person'), eq(tasks.assignedToId, personId))!,
    and(eq(tasks.createdByType, 'person'), eq(tasks.createdById, personId))!,
  ];
  if (groupIds.length) mine.push(and(eq(tasks.assignedToType, 'group'), inArray(tasks.assignedToId, groupIds))!);
  return db.select().from(tasks).where(and(eq(tasks.churchId, churchId), statusIs(open), isNull(tasks.workflowId), or(...mine))).orderBy(desc(tasks.taskNumber)).limit(1000);
}

/** Tasks assigned to any of these groups with a status (`loadForGroups`). */
export function tasksOfGroups(db: DbOrTx, churchId: string, groupIds: string[], status: string): Promise<TaskRow[]> {
  if (!groupIds.length) return Promise.resolve([]);
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.assignedToType, 'group'), inArray(tasks.assignedToId, groupIds), isNull(tasks.workflowId), status === 'Open' ? eq(tasks.status, 'Open') : ne(tasks.status, 'Open')))
    .orderBy(desc(tasks.taskNumber))
    .limit(1000);
}

/** The open directory update of a person, if any (the newest). */
/** The person's open directory updates, oldest first. */
export function openDirectoryUpdates(db: DbOrTx, churchId: string, personId: string): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.churchId, churchId), eq(tasks.taskType, 'directoryUpdate'), eq(tasks.associatedWithType, 'person'), eq(tasks.associatedWithId, personId), eq(tasks.status, 'Open')))
    .orderBy(tasks.taskNumber)
    .limit(100);
}

/** Tasks by ids for the timeline, oldest first. */
export function timeline(db: DbOrTx, churchId: string, ids: string[]): Promise<TaskRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.select().from(tasks).where(and(eq(tasks.churchId, churchId), inArray(tasks.id, ids))).orderBy(tasks.dateCreated, tasks.taskNumber);
}

/** A new task (`id` and number given), answered as stored. */
export async function insertTask(tx: DbOrTx, row: typeof tasks.$inferInsert): Promise<TaskRow> {
  const [task] = await tx.insert(tasks).values(row).returning();
  return task!;
}

/** Reserves `n` consecutive task numbers of the church; answers the first. */
export async function reserveTaskNumbers(db: DbOrTx, churchId: string, n: number): Promise<number> {
  const [row] = await db
    .insert(taskCounters)
    .values({ churchId, last: n })
    .onConflictDoUpdate({ target: taskCounters.churchId, set: { last: sql`${taskCounters.last} + ${n}` } })
    .returning({ last: taskCounters.last });
  return row!.last - n + 1;
}
