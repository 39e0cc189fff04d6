import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { globalStyles } from '../../db/website';
import { ofSite, ofSiteOrMain, type SiteId } from './sites';

export type StylesRow = typeof globalStyles.$inferSelect;

/** The styles a site uses: its own row, else the main site's (a site's row sorts first: `site_id is null` is false). */
export async function stylesInUse(db: DbOrTx, churchId: string, siteId: SiteId | undefined): Promise<StylesRow | undefined> {
  const [row] = await db
    .select()
    .from(globalStyles)
    .where(and(eq(globalStyles.churchId, churchId), ofSiteOrMain(globalStyles.siteId, siteId)))
    .orderBy(sql`${globalStyles.siteId} is null`)
    .limit(1);
  return row;
}

/** The site's own styles row (the main site's when none is given), if it has one. */
export async function ownStyles(db: DbOrTx, churchId: string, siteId: SiteId | undefined): Promise<StylesRow | undefined> {
  const [row] = await db.select().from(globalStyles).where(and(eq(globalStyles.churchId, churchId), ofSite(globalStyles.siteId, siteId))).limit(1);
  return row;
}
