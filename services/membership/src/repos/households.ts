import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { households, people } from '../db/schema';
import { INSERT_CHUNK } from './people';

export type HouseholdRow = typeof households.$inferSelect;

export async function insertHousehold(db: DbOrTx, churchId: string, name: string | null): Promise<HouseholdRow> {
  const [row] = await db.insert(households).values({ id: randomUUID(), churchId, name }).returning();
  return row!;
}

/** The church's households by name, with the columns the list answers. */
export function listHouseholds(db: DbOrTx, churchId: string) {
  return db
    .select({ id: households.id, churchId: households.churchId, name: households.name, createdAt: households.createdAt })
    .from(households)
    .where(eq(households.churchId, churchId))
    .orderBy(asc(households.name), asc(households.id));
}

/** Several households in one statement per chunk (a batch of people who each need one). */
export async function insertHouseholds(db: DbOrTx, rows: Array<{ id: string; churchId: string; name: string | null }>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await db.insert(households).values(rows.slice(i, i + INSERT_CHUNK));
}

/** Which of these household ids the church has. */
export async function existingHouseholdIds(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: households.id })
    .from(households)
    .where(and(eq(households.churchId, churchId), inArray(households.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** People (not removed) still assigned to the household. */
export async function householdSize(db: DbOrTx, churchId: string, householdId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.householdId, householdId), eq(people.removed, false)));
  return Number(row?.n ?? 0);
}

export async function deleteHousehold(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(households)
    .where(and(eq(households.churchId, churchId), eq(households.id, id)))
    .returning({ id: households.id });
  return rows.length > 0;
}
