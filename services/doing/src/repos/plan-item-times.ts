import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { badRequest, notFound, rowsByIds, type DbOrTx, type Tx } from '@church/common';
import { planItemTimes, planItems, times } from '../db/schema';

const order = [asc(planItemTimes.planItemId), asc(planItemTimes.timeId)];

/** A plan's standings of items at its times. */
export const standingsOfPlan = (db: DbOrTx, churchId: string, planId: string) =>
  db.select().from(planItemTimes).where(and(eq(planItemTimes.churchId, churchId), eq(planItemTimes.planId, planId))).orderBy(...order);

/** An item's standings at its plan's times. */
export const standingsOfItem = (db: DbOrTx, churchId: string, planItemId: string) =>
  db.select().from(planItemTimes).where(and(eq(planItemTimes.churchId, churchId), eq(planItemTimes.planItemId, planItemId))).orderBy(...order);

type StandingInput = { id?: string; planItemId: string; timeId: string; excluded?: boolean };

/**
 * Saves standings in the caller's transaction: the time must be of the item's plan (400 naming `timeId`); one row per
 * item and time, so a new row for a pair that is already stored updates that row (the editor adds what it did not
 * see stored, and two editors may add the same pair). Answers the rows written and those stored before.
 */
export async function saveStandings(tx: Tx, churchId: string, items: StandingInput[], param: (i: number, field: string) => string) {
  const lower = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];
  const itemsById = new Map((await rowsByIds(tx, planItems, churchId, lower(items.map((i) => i.planItemId)))).map((r) => [r.id, r]));
  const timesById = new Map((await rowsByIds(tx, times, churchId, lower(items.map((i) => i.timeId)))).map((r) => [r.id, r]));
  const stored = await rowsByIds(tx, planItemTimes, churchId, lower(items.flatMap((i) => (i.id ? [i.id] : []))));
  const written = [];
  for (const [i, item] of items.entries()) {
    const planItem = itemsById.get(item.planItemId.toLowerCase());
    if (!planItem) throw badRequest(param(i, 'planItemId'), 'Plan item not found');
    const time = timesById.get(item.timeId.toLowerCase());
    if (!time) throw badRequest(param(i, 'timeId'), 'Time not found');
    if (time.planId !== planItem.planId) throw badRequest(param(i, 'timeId'), 'is a time of another plan than the item');
    const values = { planId: planItem.planId, planItemId: planItem.id, timeId: time.id, ...(item.excluded === undefined ? {} : { excluded: item.excluded }) };
    if (item.id) {
      const [row] = await tx.update(planItemTimes).set({ ...values, updatedAt: new Date() }).where(and(eq(planItemTimes.churchId, churchId), eq(planItemTimes.id, item.id))).returning();
      if (!row) throw notFound('Plan item time');
      written.push(row);
    } else {
      const [row] = await tx
        .insert(planItemTimes)
        .values({ id: randomUUID(), churchId, ...values })
        .onConflictDoUpdate({ target: [planItemTimes.churchId, planItemTimes.planItemId, planItemTimes.timeId], set: { excluded: sql`excluded.excluded`, updatedAt: new Date() } })
        .returning();
      written.push(row!);
    }
  }
  return { written, stored };
}
