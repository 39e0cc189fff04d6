import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { pages } from '../../db/website';
import { ofSite, type SiteId } from './sites';

export type PageRow = typeof pages.$inferSelect;

/** What the page gate reads: a page by its url on a site, or by id. */
export async function pageGate(db: DbOrTx, churchId: string, by: { url: string; siteId?: SiteId } | { id: string }) {
  const where = 'url' in by ? and(ofSite(pages.siteId, by.siteId), eq(pages.url, by.url)) : eq(pages.id, by.id);
  const [row] = await db.select({ id: pages.id, visibility: pages.visibility, groupIds: pages.groupIds }).from(pages).where(and(eq(pages.churchId, churchId), where)).limit(1);
  return row ?? null;
}

/** The public pages of a site, for sitemaps: url, title and description of those open to everyone. */
export const publicPages = (db: DbOrTx, churchId: string, siteId: SiteId | undefined) =>
  db
    .select({ url: pages.url, title: pages.title, metaDescription: pages.metaDescription })
    .from(pages)
    .where(and(eq(pages.churchId, churchId), ofSite(pages.siteId, siteId), eq(pages.visibility, 'everyone')))
    .orderBy(asc(pages.url));

/** The pages of a site, by url. */
export const sitePages = async (db: DbOrTx, churchId: string, siteId: SiteId | undefined): Promise<PageRow[]> =>
  listRows(db, pages, churchId, { where: ofSite(pages.siteId, siteId), orderBy: asc(pages.url) });

/** Inserts a page of the church under a new id. */
export async function insertPage(tx: DbOrTx, churchId: string, values: Omit<typeof pages.$inferInsert, 'id' | 'churchId'>): Promise<PageRow> {
  const [page] = await tx.insert(pages).values({ ...values, id: randomUUID(), churchId }).returning();
  return page!;
}

/** Sets fields of a page of the church (exactly those given); answers the page as saved, if it is the church's. */
export async function updatePage(tx: DbOrTx, churchId: string, pageId: string, fields: Partial<PageRow>): Promise<PageRow | undefined> {
  const [page] = await tx.update(pages).set(fields).where(and(eq(pages.churchId, churchId), eq(pages.id, pageId))).returning();
  return page;
}
