import { and, eq, ne } from 'drizzle-orm';
import { getRow, unauthorized, type Db, type DbOrTx } from '@church/common';
import { assignments, plans, positions } from '../db/schema';

export type AssignmentRow = typeof assignments.$inferSelect;

/** What the leaders' notice names: the position's team, the volunteer, the plan. */
export async function assignmentNotice(db: DbOrTx, churchId: string, assignmentId: string) {
  const [row] = await db
    .select({
      personId: assignments.personId,
      updatedAt: assignments.updatedAt,
      groupId: positions.groupId,
      positionName: positions.name,
      planName: plans.name,
      serviceDate: plans.serviceDate,
    })
    .from(assignments)
    .innerJoin(positions, and(eq(positions.id, assignments.positionId), eq(positions.churchId, churchId)))
    .leftJoin(plans, and(eq(plans.id, assignments.planId), eq(plans.churchId, churchId)))
    .where(and(eq(assignments.churchId, churchId), eq(assignments.id, assignmentId)))
    .limit(1);
  return row;
}

/**
 * The assigned person's answer: only they may give it (anyone else gets 401 in the error shape, another
 * church's id a 404). Answers the assignment and whether its status changed.
 */
export async function answerAssignment(db: Db, churchId: string, id: string, personId: string | null, status: 'Accepted' | 'Declined') {
  return db.transaction(async (tx) => {
    const row = (await getRow(tx, assignments, churchId, id, 'Assignment')) as AssignmentRow;
    if (!personId || row.personId !== personId) throw unauthorized(`Only the assigned person can ${status === 'Accepted' ? 'accept' : 'decline'} this assignment`);
    if (row.status === status) return { row, changed: false };
    // Only while the status is still another one: of the same answer sent several times at once, one changes
    // it (the others wait for its commit, then find nothing to change), so the leaders hear of it once.
    const [saved] = await tx
      .update(assignments)
      .set({ status, updatedAt: new Date() })
      .where(and(eq(assignments.churchId, churchId), eq(assignments.id, row.id), ne(assignments.status, status)))
      .returning();
    if (saved) return { row: saved, changed: true };
    const now = (await getRow(tx, assignments, churchId, row.id, 'Assignment')) as AssignmentRow;
    return { row: now, changed: false };
  });
}
