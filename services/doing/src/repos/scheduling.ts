import { randomUUID } from 'node:crypto';
import { and, count, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { badRequest, getRow, type Db } from '@church/common';
import { assignments, blockoutDates, plans, positions } from '../db/schema';
import { autofill } from '../domain/autofill';
import { addDays } from '../domain/tree';

/** Days either side of the service date whose assignments count towards a person's recent load. */
export const SPREAD_WINDOW_DAYS = 90;

/**
 * Fills the plan's open slots from the teams given (`domain/autofill`), in one transaction; answers the
 * assignments it made. Every position must belong to the plan.
 */
export async function autofillPlan(db: Db, churchId: string, planId: string, teams: Array<{ positionId: string; personIds: string[] }>) {
  return db.transaction(async (tx) => {
    const plan = (await getRow(tx, plans, churchId, planId, 'Plan')) as typeof plans.$inferSelect;
    if (!plan.serviceDate) throw badRequest('serviceDate', 'the plan has no service date to fill');
    const day = plan.serviceDate;
    // Two autofills for the same church and day (this plan or another) take turns, so neither can book a
    // person the other just booked, nor overfill a position: a transaction-scoped lock on (church, day).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`doing.autofill:${churchId}:${day}`}))`);
    const positionIds = [...new Set(teams.map((t) => t.positionId))];
    const planPositions = await tx.select().from(positions).where(and(eq(positions.churchId, churchId), eq(positions.planId, planId), inArray(positions.id, positionIds)));
    const byId = new Map(planPositions.map((p) => [p.id, p]));
    teams.forEach((t, i) => {
      if (!byId.has(t.positionId)) throw badRequest(`teams[${i}].positionId`, 'Position not found in this plan');
    });
    const people = [...new Set(teams.flatMap((t) => t.personIds))];
    const existing = await tx.select({ positionId: assignments.positionId, personId: assignments.personId }).from(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.planId, planId)));
    // One after another: a transaction is one connection, which runs one statement at a time anyway.
    const none = { blocked: [] as Array<{ personId: string }>, sameDay: [] as Array<{ personId: string }>, recent: [] as Array<{ personId: string; n: number }> };
    const { blocked, sameDay, recent } = !people.length
      ? none
      : {
          blocked: await tx.select({ personId: blockoutDates.personId }).from(blockoutDates).where(and(eq(blockoutDates.churchId, churchId), inArray(blockoutDates.personId, people), lte(blockoutDates.startDate, day), gte(blockoutDates.endDate, day))),
          sameDay: await tx
            .select({ personId: assignments.personId })
            .from(assignments)
            .innerJoin(plans, and(eq(plans.id, assignments.planId), eq(plans.churchId, churchId)))
            .where(and(eq(assignments.churchId, churchId), inArray(assignments.personId, people), eq(plans.serviceDate, day), inArray(assignments.status, ['Unconfirmed', 'Accepted']))),
          recent: await tx
            .select({ personId: assignments.personId, n: count() })
            .from(assignments)
            .innerJoin(plans, and(eq(plans.id, assignments.planId), eq(plans.churchId, churchId)))
            .where(and(eq(assignments.churchId, churchId), inArray(assignments.personId, people), gte(plans.serviceDate, addDays(day, -SPREAD_WINDOW_DAYS)), lte(plans.serviceDate, addDays(day, SPREAD_WINDOW_DAYS))))
            .groupBy(assignments.personId),
        };
    const picks = autofill({
      teams: teams.map((t) => ({
        position: { id: t.positionId, count: byId.get(t.positionId)!.count, assigned: existing.filter((e) => e.positionId === t.positionId).map((e) => e.personId) },
        personIds: t.personIds,
      })),
      blockedOut: new Set(blocked.map((b) => b.personId)),
      busy: new Set([...sameDay.map((s) => s.personId), ...existing.map((e) => e.personId)]),
      recent: new Map(recent.map((r) => [r.personId, Number(r.n)])),
    });
    if (!picks.length) return [];
    return tx
      .insert(assignments)
      .values(picks.map((p) => ({ id: randomUUID(), churchId, planId, positionId: p.positionId, personId: p.personId, status: 'Unconfirmed' })))
      .returning();
  });
}
