import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { groups, people, personFields, questions, savedLists } from '../db/schema';

export type SavedListRow = typeof savedLists.$inferSelect;

/** Lists the person may see: the church's shared ones and their own private ones. */
export const visibleTo = (personId: string | null): SQL => or(eq(savedLists.scope, 'org'), personId ? eq(savedLists.createdByPersonId, personId) : undefined)!;

export function listsVisible(db: DbOrTx, churchId: string, personId: string | null, id?: string) {
  return db
    .select({ list: savedLists, createdByPersonName: people.displayName })
    .from(savedLists)
    .leftJoin(people, and(eq(people.id, savedLists.createdByPersonId), eq(people.churchId, churchId)))
    .where(and(eq(savedLists.churchId, churchId), visibleTo(personId), id ? eq(savedLists.id, id) : undefined))
    .orderBy(asc(savedLists.category), asc(savedLists.name), asc(savedLists.id));
}

/**
 * Which of the ids list rules name are records of the church (groups, custom fields, form questions; removed ones
 * too, so a list keeps working after one goes): one statement per kind, the ids as one array parameter.
 */
export async function churchRuleIds(db: DbOrTx, churchId: string, ids: { group: string[]; field: string[]; form: string[] }): Promise<Set<string>> {
  const of = async (table: typeof groups | typeof personFields | typeof questions, list: string[]) =>
    list.length ? (await db.select({ id: table.id }).from(table).where(and(eq(table.churchId, churchId), sql`${table.id} = any(${sql.param(list)}::uuid[])`))).map((r) => r.id) : [];
  const found = await Promise.all([of(groups, ids.group), of(personFields, ids.field), of(questions, ids.form)]);
  return new Set(found.flat());
}
