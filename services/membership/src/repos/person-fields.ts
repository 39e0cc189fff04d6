import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, max, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { personFieldValues, personFields } from '../db/schema';

export type PersonFieldRow = typeof personFields.$inferSelect;
export type PersonFieldValueRow = typeof personFieldValues.$inferSelect;

export function fieldsOfChurch(db: DbOrTx, churchId: string): Promise<PersonFieldRow[]> {
  return db.select().from(personFields).where(eq(personFields.churchId, churchId)).orderBy(asc(personFields.sort), asc(personFields.name), asc(personFields.id));
}

/** The church's fields among `ids`. */
export async function fieldIdsOf(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: personFields.id }).from(personFields).where(and(eq(personFields.churchId, churchId), inArray(personFields.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** The sort a new field gets: after the church's last one. */
export async function nextFieldSort(db: DbOrTx, churchId: string): Promise<number> {
  const [row] = await db.select({ sort: max(personFields.sort) }).from(personFields).where(eq(personFields.churchId, churchId));
  return (row?.sort ?? 0) + 1;
}

/** Deletes a field of the church and every value of it; false when the church has no such field. */
export async function deleteField(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const rows = await db.delete(personFields).where(and(eq(personFields.churchId, churchId), eq(personFields.id, id))).returning({ id: personFields.id });
  if (!rows.length) return false;
  await db.delete(personFieldValues).where(and(eq(personFieldValues.churchId, churchId), eq(personFieldValues.fieldId, id)));
  return true;
}

/** The values of people of the church, in the fields' order. */
export function valuesOfPeople(db: DbOrTx, churchId: string, personIds: string[]): Promise<PersonFieldValueRow[]> {
  if (!personIds.length) return Promise.resolve([]);
  return db
    .select({ value: personFieldValues })
    .from(personFieldValues)
    .innerJoin(personFields, and(eq(personFields.churchId, personFieldValues.churchId), eq(personFields.id, personFieldValues.fieldId)))
    .where(and(eq(personFieldValues.churchId, churchId), inArray(personFieldValues.personId, personIds)))
    .orderBy(asc(personFieldValues.personId), asc(personFields.sort), asc(personFields.name))
    .then((rows) => rows.map((r) => r.value));
}

/** Sets one person's value of one field (insert or update); an empty value removes it. */
export async function setValue(db: DbOrTx, churchId: string, personId: string, fieldId: string, value: string): Promise<void> {
  const where = and(eq(personFieldValues.churchId, churchId), eq(personFieldValues.personId, personId), eq(personFieldValues.fieldId, fieldId));
  if (!value) {
    await db.delete(personFieldValues).where(where);
    return;
  }
  await db
    .insert(personFieldValues)
    .values({ id: randomUUID(), churchId, personId, fieldId, value })
    .onConflictDoUpdate({ target: [personFieldValues.churchId, personFieldValues.personId, personFieldValues.fieldId], set: { value, updatedAt: sql`now()` } });
}
