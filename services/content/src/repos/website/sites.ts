import { eq, isNull, or, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

/** A church's main site is `site_id` null; an additional site is its id (membership's `sites`). */
export type SiteId = string | null;

/** Rows of one site: the given additional site, or the main site when none is given. */
export function ofSite(column: AnyPgColumn, siteId: SiteId | undefined): SQL {
  return siteId ? eq(column, siteId) : isNull(column);
}

/** Rows a site may use: its own and the main site's (shared blocks, the main site's styles). */
export function ofSiteOrMain(column: AnyPgColumn, siteId: SiteId | undefined): SQL {
  return siteId ? or(isNull(column), eq(column, siteId))! : isNull(column);
}
