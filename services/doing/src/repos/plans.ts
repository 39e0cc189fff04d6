import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, lte } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { getRow, notFound, type Db, type DbOrTx, type Tx } from '@church/common';
import { assignments, planItems, plans, positions, times } from '../db/schema';
import { addDays, daysBetween } from '../domain/tree';

export type PlanRow = typeof plans.$inferSelect;

export const plansOfType = (db: DbOrTx, churchId: string, planTypeId: string) =>
  db.select().from(plans).where(and(eq(plans.churchId, churchId), eq(plans.planTypeId, planTypeId))).orderBy(desc(plans.serviceDate));

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

/** Deletes a plan and everything that belongs to it, in one transaction; 404 when the church has no such plan. */
export async function deletePlan(db: Db, churchId: string, planId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [gone] = await tx.delete(plans).where(and(eq(plans.churchId, churchId), eq(plans.id, planId))).returning({ id: plans.id });
    if (!gone) throw notFound('Plan');
    for (const table of [assignments, positions, times, planItems]) await tx.delete(table).where(and(eq(table.churchId, churchId), eq(table.planId, planId)));
  });
}

export interface CopyOptions {
  serviceDate: string;
  copyMode: 'none' | 'positions' | 'all';
  copyServiceOrder: boolean;
  name?: string;
}

/**
 * Copies a plan to a new date in one transaction: times (moved by the same number of days) and positions for
 * `positions` and `all`, assignments too for `all` (each back to `Unconfirmed`: the volunteer has not said
 * yes to the new date), and the service order tree when asked.
 */
export async function copyPlan(db: Db, churchId: string, planId: string, opts: CopyOptions): Promise<PlanRow> {
  return db.transaction(async (tx: Tx) => {
    const source = (await getRow(tx, plans, churchId, planId, 'Plan')) as PlanRow;
    const newPlanId = randomUUID();
    const [plan] = await tx
      .insert(plans)
      .values({ ...source, id: newPlanId, serviceDate: opts.serviceDate, name: opts.name ?? source.name, createdAt: new Date(), updatedAt: new Date() })
      .returning();
    const shiftMs = source.serviceDate ? daysBetween(source.serviceDate, opts.serviceDate) * 86_400_000 : 0;
    const of = <T extends typeof positions | typeof times | typeof assignments | typeof planItems>(table: T) => and(eq(table.churchId, churchId), eq(table.planId, planId));

    if (opts.copyMode !== 'none') {
      const oldTimes = await tx.select().from(times).where(of(times));
      if (oldTimes.length) {
        const shift = (d: Date | null) => (d ? new Date(d.getTime() + shiftMs) : null);
        await tx.insert(times).values(oldTimes.map((t) => ({ ...t, id: randomUUID(), planId: newPlanId, startTime: shift(t.startTime), endTime: shift(t.endTime), createdAt: new Date(), updatedAt: new Date() })));
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
          await tx.insert(assignments).values(kept.map((a) => ({ ...a, id: randomUUID(), planId: newPlanId, positionId: positionIds.get(a.positionId)!, status: 'Unconfirmed', notified: null, createdAt: new Date(), updatedAt: new Date() })));
        }
      }
    }
    if (opts.copyServiceOrder) {
      const items = await tx.select().from(planItems).where(of(planItems));
      const itemIds = new Map(items.map((i) => [i.id, randomUUID()]));
      if (items.length) {
        await tx.insert(planItems).values(items.map((i) => ({ ...i, id: itemIds.get(i.id)!, planId: newPlanId, parentId: i.parentId ? (itemIds.get(i.parentId) ?? null) : null, createdAt: new Date(), updatedAt: new Date() })));
      }
    }
    return plan!;
  });
}

/** Rows of a plan-owned table for several plans. */
export async function ofPlans<T extends typeof positions | typeof times | typeof assignments | typeof planItems>(db: DbOrTx, table: T, churchId: string, planIds: string[]): Promise<Array<T['$inferSelect']>> {
  if (!planIds.length) return [];
  return (await db.select().from(table as PgTable).where(and(eq(table.churchId, churchId), inArray(table.planId, planIds)))) as Array<T['$inferSelect']>;
}

export { addDays };
