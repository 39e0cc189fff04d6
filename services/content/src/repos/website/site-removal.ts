import { and, eq, inArray, or } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { blocks, globalStyles, links, pageHistory, pages } from '../../db/website';

/**
 * Deletes everything of one additional site of a church: its pages and blocks (their sections and elements go
 * with them, by foreign key), their history, its links and its styles. Answers the ids of the pages and blocks
 * removed. Asked again it removes nothing more.
 */
export async function removeSiteContent(tx: DbOrTx, churchId: string, siteId: string): Promise<{ pageIds: string[]; blockIds: string[]; links: number; styles: number }> {
  const gonePages = await tx.delete(pages).where(and(eq(pages.churchId, churchId), eq(pages.siteId, siteId))).returning({ id: pages.id });
  const goneBlocks = await tx.delete(blocks).where(and(eq(blocks.churchId, churchId), eq(blocks.siteId, siteId))).returning({ id: blocks.id });
  const pageIds = gonePages.map((p) => p.id);
  const blockIds = goneBlocks.map((b) => b.id);
  if (pageIds.length || blockIds.length) {
    await tx
      .delete(pageHistory)
      .where(and(eq(pageHistory.churchId, churchId), or(pageIds.length ? inArray(pageHistory.pageId, pageIds) : undefined, blockIds.length ? inArray(pageHistory.blockId, blockIds) : undefined)));
  }
  const goneLinks = await tx.delete(links).where(and(eq(links.churchId, churchId), eq(links.siteId, siteId))).returning({ id: links.id });
  const goneStyles = await tx.delete(globalStyles).where(and(eq(globalStyles.churchId, churchId), eq(globalStyles.siteId, siteId))).returning({ id: globalStyles.id });
  return { pageIds, blockIds, links: goneLinks.length, styles: goneStyles.length };
}
