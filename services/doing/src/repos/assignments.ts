import { randomUUID } from 'node:crypto';
import { and, count, eq, gte, lte, ne } from 'drizzle-orm';
import { badRequest, conflict, getRow, notFound, unauthorized, type Db, type DbOrTx } from '@church/common';
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
      planId: assignments.planId,
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

/** How many times each person serves in the calendar month of `day` (declined assignments left out). */
export async function monthCounts(db: DbOrTx, churchId: string, day: string): Promise<Array<{ personId: string; count: number }>> {
  const [y, m] = day.split('-').map(Number) as [number, number];
  const first = `${day.slice(0, 7)}-01`;
  const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return db
    .select({ personId: assignments.personId, count: count() })
    .from(plans)
    .innerJoin(assignments, and(eq(assignments.churchId, plans.churchId), eq(assignments.planId, plans.id)))
    .where(and(eq(plans.churchId, churchId), gte(plans.serviceDate, first), lte(plans.serviceDate, last), ne(assignments.status, 'Declined')))
    .groupBy(assignments.personId)
    .orderBy(assignments.personId);
}

/** Statuses that hold a place in a position (a declined volunteer frees theirs). */
const HOLDING = ['Unconfirmed', 'Accepted'];

/**
 * When self sign-up for the plan closes: `signupDeadlineHours` before the service day begins (00:00 UTC of
 * `serviceDate`, as the member app counts it), or never without a deadline or a day.
 */
export function signupDeadline(plan: { serviceDate: string | null; signupDeadlineHours: number | null }): Date | null {
  if (!plan.signupDeadlineHours || !plan.serviceDate) return null;
  return new Date(Date.parse(`${plan.serviceDate}T00:00:00Z`) - plan.signupDeadlineHours * 3_600_000);
}

/** The position (held for the rest of the transaction) and its plan, for a sign-up or its withdrawal. */
async function signupPosition(tx: DbOrTx, churchId: string, positionId: string) {
  const [found] = await tx
    .select({ position: positions, plan: { serviceDate: plans.serviceDate, signupDeadlineHours: plans.signupDeadlineHours } })
    .from(positions)
    .innerJoin(plans, and(eq(plans.churchId, positions.churchId), eq(plans.id, positions.planId)))
    .where(and(eq(positions.churchId, churchId), eq(positions.id, positionId)))
    .for('update', { of: positions });
  return found;
}

/**
 * A member takes an open place of a position that allows self sign-up: Accepted at once (they chose it). The
 * position's row is held while its places are counted, so of many sign-ups at once no more than `count` get in.
 * The apps show their own words by what the sentence holds: "full", "deadline", "Already".
 */
export async function signUp(db: Db, churchId: string, personId: string | null, positionId: string) {
  if (!personId) throw badRequest('positionId', 'signing up needs a person record for the caller');
  return db.transaction(async (tx) => {
    const found = await signupPosition(tx, churchId, positionId);
    if (!found) throw notFound('Position');
    if (!found.position.allowSelfSignup) throw badRequest('positionId', 'this position does not take sign-ups');
    const deadline = signupDeadline(found.plan);
    if (deadline && Date.now() > deadline.getTime()) throw conflict('The sign-up deadline has passed');
    const all = await tx
      .select({ id: assignments.id, personId: assignments.personId, status: assignments.status })
      .from(assignments)
      .where(and(eq(assignments.churchId, churchId), eq(assignments.positionId, positionId)));
    const held = all.filter((a) => HOLDING.includes(a.status));
    if (held.some((a) => a.personId === personId)) throw conflict('Already signed up for this position');
    if (held.length >= found.position.count) throw conflict('This position is full');
    // Someone who had declined this position and now takes it: their assignment again, not a second one.
    const declined = all.find((a) => a.personId === personId);
    const [row] = declined
      ? await tx.update(assignments).set({ status: 'Accepted', updatedAt: new Date() }).where(eq(assignments.id, declined.id)).returning()
      : await tx.insert(assignments).values({ id: randomUUID(), churchId, planId: found.position.planId, positionId, personId, status: 'Accepted' }).returning();
    return row!;
  });
}

/** The member leaves a position they signed up for (before the deadline); only their own assignment. */
export async function leaveSignup(db: Db, churchId: string, personId: string | null, assignmentId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = (await getRow(tx, assignments, churchId, assignmentId, 'Assignment')) as AssignmentRow;
    if (!personId || row.personId !== personId) throw unauthorized('Only the person signed up can leave this position');
    const found = await signupPosition(tx, churchId, row.positionId);
    if (!found?.position.allowSelfSignup) throw badRequest('id', 'this position does not take sign-ups; ask the plan\'s coordinator', 'params');
    const deadline = signupDeadline(found.plan);
    if (deadline && Date.now() > deadline.getTime()) throw conflict('The removal deadline has passed');
    await tx.delete(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.id, row.id)));
  });
}
