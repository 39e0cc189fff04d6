import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, gte, inArray, lte, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { DAY_MS, getRow, type DbOrTx, type Tx } from '@church/common';
import { assignments, planItemTimes, planItems, plans, positions, times } from '../db/schema';
import { daysBetween } from '../lib/days';
import type { z } from 'zod';
import type { OverviewRow as OverviewRowSchema } from '../schemas';

export type PlanRow = typeof plans.$inferSelect;

/** The plan lists' order: latest service first (a plan without a date before them), ties by id so the order is stable. */
const newestPlansFirst = [desc(plans.serviceDate), asc(plans.id)];

/** What a plan list answers of each plan: the `Plan` keys, not the row's timestamps. */
const { createdAt: _c, updatedAt: _u, ...planColumns } = getTableColumns(plans);

/**
 * Every plan of the church (`GET /plans`; B1Admin filters them by ministry and date itself), newest first: one
 * backward walk of `plans_church_date_idx`.
 */
export const churchPlans = (db: DbOrTx, churchId: string) =>
  db.select(planColumns).from(plans).where(eq(plans.churchId, churchId)).orderBy(...newestPlansFirst);

/** The plans of a plan type, newest first: one backward walk of `plans_church_type_date_idx`. */
export const plansOfType = (db: DbOrTx, churchId: string, planTypeId: string) =>
  db.select(planColumns).from(plans).where(and(eq(plans.churchId, churchId), eq(plans.planTypeId, planTypeId))).orderBy(...newestPlansFirst);

/** Plans from `from` through `to` (inclusive local days), soonest first. */
export const plansBetween = (db: DbOrTx, churchId: string, from: string, to: string) =>
  db.select().from(plans).where(and(eq(plans.churchId, churchId), gte(plans.serviceDate, from), lte(plans.serviceDate, to))).orderBy(asc(plans.serviceDate), asc(plans.id));

/** The plan of a type that is next (today or later), else the latest one before today. */
export async function currentPlan(db: DbOrTx, planTypeId: string, today: string): Promise<PlanRow | undefined> {
  const [next] = await db.select().from(plans).where(and(eq(plans.planTypeId, planTypeId), gte(plans.serviceDate, today))).orderBy(asc(plans.serviceDate)).limit(1);
  if (next) return next;
  const [last] = await db.select().from(plans).where(eq(plans.planTypeId, planTypeId)).orderBy(desc(plans.serviceDate)).limit(1);
  return last;
}

/** Removes a plan's own rows (inside the delete's transaction, before the plan goes). */
export async function deletePlanParts(tx: DbOrTx, churchId: string, planId: string): Promise<void> {
  for (const table of [assignments, positions, times, planItems, planItemTimes]) await tx.delete(table).where(and(eq(table.churchId, churchId), eq(table.planId, planId)));
}

/**
 * The public sign-up page's plans (B1App's volunteer pages): published plans from `today` on with a position open to
 * self sign-up, soonest first, each with those positions (`filledCount`: Unconfirmed and Accepted assignments) and its
 * times. Three statements whatever the number of plans.
 */
export async function signupPlans(db: DbOrTx, churchId: string, today: string) {
  const found = await db
    .selectDistinct({ plan: plans })
    .from(plans)
    .innerJoin(positions, and(eq(positions.churchId, plans.churchId), eq(positions.planId, plans.id), eq(positions.allowSelfSignup, true)))
    .where(and(eq(plans.churchId, churchId), eq(plans.prepared, false), gte(plans.serviceDate, today)))
    .orderBy(asc(plans.serviceDate), asc(plans.id))
    .limit(200);
  if (!found.length) return [];
  const planIds = found.map((f) => f.plan.id);
  const open = await db
    .select({ position: positions, filledCount: sql<number>`count(${assignments.id}) filter (where ${assignments.status} in ('Unconfirmed', 'Accepted'))::int` })
    .from(positions)
    .leftJoin(assignments, and(eq(assignments.churchId, positions.churchId), eq(assignments.positionId, positions.id)))
    .where(and(eq(positions.churchId, churchId), inArray(positions.planId, planIds), eq(positions.allowSelfSignup, true)))
    .groupBy(positions.id)
    .orderBy(sql`${positions.categoryName} nulls first`, asc(positions.name), asc(positions.id));
  const planTimes = await db.select().from(times).where(and(eq(times.churchId, churchId), inArray(times.planId, planIds))).orderBy(asc(times.startTime), asc(times.id));
  return found.map(({ plan }) => ({
    plan,
    positions: open.filter((o) => o.position.planId === plan.id).map((o) => ({ ...o.position, filledCount: o.filledCount })),
    times: planTimes.filter((x) => x.planId === plan.id),
  }));
}

export type CopyOptions = { serviceDate: string; copyMode: 'none' | 'positions' | 'all'; copyServiceOrder: boolean } & Partial<Omit<PlanRow, 'id' | 'churchId' | 'serviceDate' | 'lastAutofillRunId' | 'createdAt' | 'updatedAt'>>;

/**
 * Copies a plan to a new date in the caller's transaction: times (moved by the same number of days) and positions for
 * `positions` and `all`, assignments too for `all` (each back to `Unconfirmed`: the volunteer has not said
 * yes to the new date), the service order tree when asked, and with both the items' standing at each time.
 */
export async function copyPlan(tx: Tx, churchId: string, planId: string, { copyMode, copyServiceOrder, ...given }: CopyOptions): Promise<PlanRow> {
  const opts = { copyMode, copyServiceOrder, serviceDate: given.serviceDate };
  // what the body sends is the new plan's; `null` clears a field the copied plan had (a plan without a lesson)
  const fields = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  {
    const source = await getRow(tx, plans, churchId, planId, 'Plan');
    const newPlanId = randomUUID();
    const [plan] = await tx
      .insert(plans)
      .values({
        ...source,
        ...fields,
        id: newPlanId,
        lastAutofillRunId: null,
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .returning();
    const shiftMs = source.serviceDate ? daysBetween(source.serviceDate, opts.serviceDate) * DAY_MS : 0;
    const of = <T extends typeof positions | typeof times | typeof assignments | typeof planItems | typeof planItemTimes>(table: T) => and(eq(table.churchId, churchId), eq(table.planId, planId));
    const timeIds = new Map<string, string>();

    if (opts.copyMode !== 'none') {
      const oldTimes = await tx.select().from(times).where(of(times));
      if (oldTimes.length) {
        const shift = (d: Date | null) => (d ? new Date(d.getTime() + shiftMs) : null);
        for (const t of oldTimes) timeIds.set(t.id, randomUUID());
        await tx.insert(times).values(oldTimes.map((t) => ({ ...t, id: timeIds.get(t.id)!, planId: newPlanId, startTime: shift(t.startTime), endTime: shift(t.endTime), createdAt: new Date(), updatedAt: new Date() })));
      }
      const oldPositions = await tx.select().from(positions).where(of(positions)).orderBy(asc(positions.createdAt));
      const positionIds = new Map(oldPositions.map((p) => [p.id, randomUUID()]));
      if (oldPositions.length) {
        await tx.insert(positions).values(oldPositions.map((p) => ({ ...p, id: positionIds.get(p.id)!, planId: newPlanId, createdAt: new Date(), updatedAt: new Date() })));
      }
      if (opts.copyMode === 'all') {
        const oldAssignments = await tx.select().from(assignments).where(of(assignments));
        const kept = oldAssignments.filter((a) => positionIds.has(a.positionId));
        if (kept.length) {
          await tx.insert(assignments).values(kept.map((a) => ({ ...a, id: randomUUID(), planId: newPlanId, positionId: positionIds.get(a.positionId)!, status: 'Unconfirmed', notified: null, autofillRunId: null, createdAt: new Date(), updatedAt: new Date() })));
        }
      }
    }
    if (opts.copyServiceOrder) {
      const items = await tx.select().from(planItems).where(of(planItems));
      const itemIds = new Map(items.map((i) => [i.id, randomUUID()]));
      if (items.length) {
        await tx.insert(planItems).values(items.map((i) => ({ ...i, id: itemIds.get(i.id)!, planId: newPlanId, parentId: i.parentId ? (itemIds.get(i.parentId) ?? null) : null, createdAt: new Date(), updatedAt: new Date() })));
      }
      const standings = (timeIds.size ? await tx.select().from(planItemTimes).where(of(planItemTimes)) : []).filter((x) => itemIds.has(x.planItemId) && timeIds.has(x.timeId));
      if (standings.length) {
        await tx.insert(planItemTimes).values(standings.map((x) => ({ ...x, id: randomUUID(), planId: newPlanId, planItemId: itemIds.get(x.planItemId)!, timeId: timeIds.get(x.timeId)!, createdAt: new Date(), updatedAt: new Date() })));
      }
    }
    return plan!;
  }
}

/** Rows of a plan-owned table for several plans. */
export async function ofPlans<T extends typeof positions | typeof times | typeof assignments | typeof planItems>(db: DbOrTx, table: T, churchId: string, planIds: string[]): Promise<Array<T['$inferSelect']>> {
  if (!planIds.length) return [];
  return (await db.select().from(table as PgTable).where(and(eq(table.churchId, churchId), inArray(table.planId, planIds)))) as Array<T['$inferSelect']>;
}

/** A row of the serving matrix: a position of a plan with one of its people, or with nobody (an open slot). */
export type OverviewRow = z.output<typeof OverviewRowSchema>;

/**
 * The serving matrix of a date range (inclusive days): every position of every plan in it, once per person
 * serving (Unconfirmed or Accepted; declined people free their slot) or once with nobody. Optionally narrowed to a
 * ministry or a plan type; `published` leaves out penciled-in plans (what volunteers may be told about).
 * Ordered as the matrix lists it: team, position, day.
 */
export async function overview(db: DbOrTx, churchId: string, q: { startDate: string; endDate: string; ministryId?: string | null; planTypeId?: string | null; published?: boolean }): Promise<OverviewRow[]> {
  const rows = await db
    .select({
      serviceDate: plans.serviceDate,
      ministryId: plans.ministryId,
      planId: plans.id,
      planName: plans.name,
      positionId: positions.id,
      categoryName: positions.categoryName,
      positionName: positions.name,
      groupId: positions.groupId,
      needed: positions.count,
      assignmentId: assignments.id,
      personId: assignments.personId,
      status: assignments.status,
    })
    .from(plans)
    .innerJoin(positions, and(eq(positions.churchId, plans.churchId), eq(positions.planId, plans.id)))
    .leftJoin(assignments, and(eq(assignments.churchId, positions.churchId), eq(assignments.positionId, positions.id), inArray(assignments.status, ['Unconfirmed', 'Accepted'])))
    .where(
      and(
        eq(plans.churchId, churchId),
        gte(plans.serviceDate, q.startDate),
        lte(plans.serviceDate, q.endDate),
        q.ministryId ? eq(plans.ministryId, q.ministryId) : undefined,
        q.planTypeId ? eq(plans.planTypeId, q.planTypeId) : undefined,
        q.published ? eq(plans.prepared, false) : undefined,
      ),
    )
    .orderBy(sql`${positions.categoryName} nulls first`, positions.name, plans.serviceDate, plans.id, positions.id, assignments.createdAt, assignments.id);
  return rows as OverviewRow[];
}

