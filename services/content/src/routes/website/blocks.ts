import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, REMOTE, batchOf, checkBatch, crud, deleteRow, getRow, IdParams, saveRows, type ZodTypeProvider } from '@church/common';
import { blocks } from '../../db/website';
import { blockTree } from '../../domain/website/tree';
import { firstBlockOfType } from '../../repos/website/tree';
import { siteBlocks } from '../../repos/website/blocks';
import { Block, BlockSave, BlockTypeParams, ChurchItemParams, ChurchParams, SiteQuery, TreeAnswer } from '../../schemas/website';

const base = '/content/blocks';
const edit = requires('Content.Edit');

/** `/content/blocks`: reusable section trees (footers, element groups, converted sections). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: base, table: blocks, item: Block, save: BlockSave, view: anyUser, edit, only: ['get'] });

  // A site's blocks are its own and the main site's (shared); without `siteId`, the main site's.
  app.get(base, { config: { access: anyUser }, schema: { querystring: SiteQuery, response: { 200: z.array(Block) } } }, async (req) =>
    siteBlocks(app.db, req.auth.churchId, req.query.siteId),
  );

  app.post(base, { config: { access: edit }, schema: { body: batchOf(BlockSave), response: { 200: z.array(Block) } } }, async (req) => {
    await checkBatch(app.db, req, req.body, { references: { siteId: REMOTE.sites } });
    return app.db.transaction((tx) => saveRows(tx, blocks, req.auth.churchId, req.body));
  });
  // The block's sections and elements go with it.
  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, blocks, req.auth.churchId, req.params.id);
    return {};
  });

  app.get(
    `${base}/blockType/:blockType`,
    { config: { access: anyUser }, schema: { params: BlockTypeParams, querystring: SiteQuery, response: { 200: z.array(Block) } } },
    async (req) => siteBlocks(app.db, req.auth.churchId, req.query.siteId, req.params.blockType),
  );

  app.get(
    `${base}/:churchId/tree/:id`,
    { config: { access: 'public' }, schema: { params: ChurchItemParams, response: { 200: TreeAnswer } } },
    async (req) => blockTree(app.db, await getRow(app.db, blocks, req.params.churchId, req.params.id, 'Block')),
  );

  // The site's footer as B1App's page footer renders it: the footer block's sections (zone `siteFooter`) with
  // their elements (a site's own footer, else the main site's); none without one (B1App draws its default).
  app.get(
    `${base}/public/footer/:churchId`,
    { config: { access: 'public' }, schema: { params: ChurchParams, querystring: SiteQuery, response: { 200: TreeAnswer } } },
    async (req) => {
    const block = await firstBlockOfType(app.db, req.params.churchId, 'footerBlock', req.query.siteId);
    if (!block) return [];
    return (await blockTree(app.db, block)).sections.map((s) => ({ ...s, zone: 'siteFooter' }));
    },
  );
}

