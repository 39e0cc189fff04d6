import { and, asc, eq, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { people, savedLists } from '../db/schema';

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
