import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { links } from '../../db/website';
import { ofSite, type SiteId } from './sites';

export type LinkRow = typeof links.$inferSelect;

/** The links of one site of the church (the main site when none is given), optionally of one category, by category then sort. */
export function listLinks(db: DbOrTx, churchId: string, siteId: SiteId | undefined, category?: string, everyoneOnly = false): Promise<LinkRow[]> {
  const where = [eq(links.churchId, churchId), ofSite(links.siteId, siteId)];
  if (category) where.push(eq(links.category, category));
  if (everyoneOnly) where.push(eq(links.visibility, 'everyone'));
  return db.select().from(links).where(and(...where)).orderBy(asc(links.category), asc(links.sort), asc(links.id));
}

/** Sort orders 1..n within a category of a site (raw SQL: one UPDATE ... FROM over a window). */
export async function renumberLinks(tx: DbOrTx, churchId: string, category: string, siteId: SiteId): Promise<void> {
  await tx.execute(sql`
    update links l set sort = r.n
    from (select id, row_number() over (partition by parent_id order by sort, id) as n
          from links where church_id = ${churchId} and category = ${category} and site_id is not distinct from ${siteId}::uuid) r
    where l.id = r.id and l.sort <> r.n`);
}

export async function nextLinkSort(tx: DbOrTx, churchId: string, category: string, siteId: SiteId): Promise<number> {
  const [row] = await tx
    .select({ max: sql<number | null>`max(${links.sort})` })
    .from(links)
    .where(and(eq(links.churchId, churchId), eq(links.category, category), ofSite(links.siteId, siteId)));
  return Number(row?.max ?? 0) + 1;
}
