import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, gte, isNull, lte, ne, or } from 'drizzle-orm';
import { badRequest, conflict, getRow, notFound, rowsByIds, saveRows, unauthorized, type DbOrTx, type Tx } from '@church/common';
import { assignments, plans, positions } from '../db/schema';
import type { ASSIGNMENT_STATUSES } from '../schemas';

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
 * The assigned person's answer, in the caller's transaction: only they may give it (anyone else gets 401 in the
 * error shape, another church's id a 404). Answers the assignment before and after, and whether its status changed.
 */
export async function answerAssignment(tx: DbOrTx, churchId: string, id: string, personId: string | null, status: 'Accepted' | 'Declined') {
  const row = await getRow(tx, assignments, churchId, id, 'Assignment');
  if (!personId || row.personId !== personId) throw unauthorized(`Only the assigned person can ${status === 'Accepted' ? 'accept' : 'decline'} this assignment`);
  if (row.status === status) return { before: row, row, changed: false };
  // Only while the status is still another one: of the same answer sent several times at once, one changes it
  // (the others wait for its commit, then find nothing to change), so the leaders hear of it once.
  const [saved] = await tx
    .update(assignments)
    .set({ status, updatedAt: new Date() })
    .where(and(eq(assignments.churchId, churchId), eq(assignments.id, row.id), ne(assignments.status, status)))
    .returning();
  if (saved) return { before: row, row: saved, changed: true };
  return { before: row, row: await getRow(tx, assignments, churchId, row.id, 'Assignment'), changed: false };
}

/** The caller's own assignments, newest plan first; a penciled-in plan's stay hidden from the volunteer until it is published. */
export function myAssignments(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ assignment: assignments })
    .from(assignments)
    .leftJoin(plans, and(eq(plans.id, assignments.planId), eq(plans.churchId, churchId)))
    .where(and(eq(assignments.churchId, churchId), eq(assignments.personId, personId), or(isNull(plans.id), eq(plans.prepared, false))))
    .orderBy(desc(plans.serviceDate))
    .then((rows) => rows.map((r) => r.assignment));
}

export type AssignmentInput = { id?: string; positionId: string; personId: string; planId?: string; status?: (typeof ASSIGNMENT_STATUSES)[number]; notified?: Date | null };

/**
 * A coordinator's batch save (B1Admin's AssignmentEdit, PlanValidation), in the caller's transaction. The plan comes
 * from the position (another one is 400 naming `planId`). A status is the assigned person's answer (issue 31): a new
 * assignment starts Unconfirmed, one given to another person goes back to Unconfirmed (the answer was the previous
 * person's, whatever the coordinator posts back), and a change of status is refused (401) unless the caller is the
 * person assigned, whose change is then their answer (listed in `answers`, so the leaders are told). A status sent
 * as it is stored is no change.
 */
export async function saveAssignments(tx: Tx, churchId: string, callerPersonId: string | null, items: AssignmentInput[], param: (i: number, field: string) => string) {
  const positionsById = new Map((await rowsByIds(tx, positions, churchId, [...new Set(items.map((a) => a.positionId.toLowerCase()))])).map((p) => [p.id, p]));
  const stored = await rowsByIds(tx, assignments, churchId, items.flatMap((a) => (a.id ? [a.id.toLowerCase()] : [])));
  const storedById = new Map(stored.map((a) => [a.id, a]));
  const caller = callerPersonId?.toLowerCase() ?? null;
  const answers: Array<{ index: number; status: 'Accepted' | 'Declined' }> = [];
  const rows = items.map((item, i) => {
    const position = positionsById.get(item.positionId.toLowerCase());
    if (!position) throw badRequest(param(i, 'positionId'), 'Position not found');
    if (item.planId && item.planId.toLowerCase() !== position.planId) throw badRequest(param(i, 'planId'), 'must be the plan of the position');
    const personId = item.personId.toLowerCase();
    const before = item.id ? storedById.get(item.id.toLowerCase()) : undefined;
    const own = caller !== null && caller === personId;
    let status: string | undefined;
    // an id the church does not have: the save answers 404 for it
    if (item.id && !before) return { ...item, personId, planId: position.planId };
    if (!item.id) status = item.status ?? 'Unconfirmed';
    else if (before && before.personId !== personId) status = own && item.status !== undefined ? item.status : 'Unconfirmed';
    else if (item.status !== undefined && item.status !== before?.status) status = item.status;
    const changesAnswer = status !== undefined && status !== 'Unconfirmed' && (!before || before.personId !== personId || before.status !== status);
    if (changesAnswer || (item.id && before?.personId === personId && status === 'Unconfirmed' && before.status !== 'Unconfirmed')) {
      if (!own) throw unauthorized('Only the assigned person can accept or decline this assignment');
    }
    if (changesAnswer && own) answers.push({ index: i, status: status as 'Accepted' | 'Declined' });
    const { status: _sent, ...rest } = item;
    return { ...rest, personId, planId: position.planId, ...(status === undefined ? {} : { status }) };
  });
  const written = await saveRows(tx, assignments, churchId, rows, 'Assignment');
  return { written, stored, answers: answers.map((a) => ({ row: written[a.index]!, status: a.status })) };
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
 * position's row is held for the caller's transaction while its places are counted, so of many sign-ups at once no
 * more than `count` get in. The apps show their own words by what the sentence holds: "full", "deadline",
 * "Already". Answers the assignment and what it was before (a declined one taken again).
 */
export async function signUp(tx: DbOrTx, churchId: string, personId: string | null, positionId: string) {
  if (!personId) throw badRequest('positionId', 'signing up needs a person record for the caller');
  const found = await signupPosition(tx, churchId, positionId);
  if (!found) throw notFound('Position');
  if (!found.position.allowSelfSignup) throw badRequest('positionId', 'this position does not take sign-ups');
  const deadline = signupDeadline(found.plan);
  if (deadline && Date.now() > deadline.getTime()) throw conflict('The sign-up deadline has passed');
  const all = await tx.select().from(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.positionId, positionId)));
  const held = all.filter((a) => HOLDING.includes(a.status));
  if (held.some((a) => a.personId === personId)) throw conflict('Already signed up for this position');
  if (held.length >= found.position.count) throw conflict('This position is full');
  // Someone who had declined this position and now takes it: their assignment again, not a second one.
  const declined = all.find((a) => a.personId === personId);
  const [row] = declined
    ? await tx.update(assignments).set({ status: 'Accepted', updatedAt: new Date() }).where(eq(assignments.id, declined.id)).returning()
    : await tx.insert(assignments).values({ id: randomUUID(), churchId, planId: found.position.planId, positionId, personId, status: 'Accepted' }).returning();
  return { before: declined, row: row! };
}

/** The member leaves a position they signed up for (before the deadline); only their own assignment. Answers it. */
export async function leaveSignup(tx: DbOrTx, churchId: string, personId: string | null, assignmentId: string) {
  const row = await getRow(tx, assignments, churchId, assignmentId, 'Assignment');
  if (!personId || row.personId !== personId) throw unauthorized('Only the person signed up can leave this position');
  const found = await signupPosition(tx, churchId, row.positionId);
  if (!found?.position.allowSelfSignup) throw badRequest('id', "this position does not take sign-ups; ask the plan's coordinator", 'params');
  const deadline = signupDeadline(found.plan);
  if (deadline && Date.now() > deadline.getTime()) throw conflict('The removal deadline has passed');
  await tx.delete(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.id, row.id)));
  return row;
}
