import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { links } from '../../db/website';

export type LinkRow = typeof links.$inferSelect;

/** The church's links, optionally of one category, by category then sort. */
export function listLinks(db: DbOrTx, churchId: string, category?: string, everyoneOnly = false): Promise<LinkRow[]> {
  const where = [eq(links.churchId, churchId)];
  if (category) where.push(eq(links.category, category));
  if (everyoneOnly) where.push(eq(links.visibility, 'everyone'));
  return db.select().from(links).where(and(...where)).orderBy(asc(links.category), asc(links.sort), asc(links.id));
}

/** Sort orders 1..n within a category (raw SQL: one UPDATE ... FROM over a window). */
export async function renumberLinks(tx: DbOrTx, churchId: string, category: string): Promise<void> {
  await tx.execute(sql`
    update links l set sort = r.n
    from (select id, row_number() over (partition by parent_id order by sort, id) as n
          from links where church_id = ${churchId} and category = ${category}) r
    where l.id = r.id and l.sort <> r.n`);
}

export async function nextLinkSort(tx: DbOrTx, churchId: string, category: string): Promise<number> {
  const [row] = await tx.select({ max: sql<number | null>`max(${links.sort})` }).from(links).where(and(eq(links.churchId, churchId), eq(links.category, category)));
  return Number(row?.max ?? 0) + 1;
}
