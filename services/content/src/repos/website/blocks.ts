import { and, asc, eq } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { blocks } from '../../db/website';
import { ofSiteOrMain, type SiteId } from './sites';

export type BlockRow = typeof blocks.$inferSelect;

/**
 * A site's blocks, by name: its own and the main site's (shared); without `siteId`, the main site's. With
 * `blockType`, only blocks of that type.
 */
export const siteBlocks = (db: DbOrTx, churchId: string, siteId: SiteId | undefined, blockType?: string): Promise<BlockRow[]> =>
  listRows(db, blocks, churchId, {
    where: and(ofSiteOrMain(blocks.siteId, siteId), blockType === undefined ? undefined : eq(blocks.blockType, blockType)),
    orderBy: [asc(blocks.name), asc(blocks.id)],
  });
