import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '@church/common';
import { schedulingPreferences } from '../db/schema';

/** The preferences of these people (those who have one), by person. */
export const preferencesOf = async (db: DbOrTx, churchId: string, personIds: string[]) =>
  personIds.length
    ? db.select().from(schedulingPreferences).where(and(eq(schedulingPreferences.churchId, churchId), inArray(schedulingPreferences.personId, personIds))).orderBy(asc(schedulingPreferences.personId))
    : [];

type PreferenceInput = { personId: string; maxPerMonth?: number | null; preferredTimes?: string | null; householdScheduling?: string };

/**
 * Saves preferences by person (a person has one record; what is left out keeps its stored value), in the caller's
 * transaction. Answers the rows written and those stored before.
 */
export async function savePreferences(tx: Tx, churchId: string, rows: PreferenceInput[]) {
  const stored = await preferencesOf(tx, churchId, [...new Set(rows.map((r) => r.personId))]);
  const written = [];
  for (const row of rows) {
    const set = Object.fromEntries(Object.entries(row).filter(([k, v]) => k !== 'personId' && v !== undefined));
    const [done] = await tx
      .insert(schedulingPreferences)
      .values({ id: randomUUID(), churchId, ...row })
      .onConflictDoUpdate({ target: [schedulingPreferences.churchId, schedulingPreferences.personId], set: { ...set, updatedAt: sql`now()` } })
      .returning();
    written.push(done!);
  }
  return { written, stored };
}
