import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, actorOf, badRequest, batchOf, checkBatch, deleteRow, findRow, getRow, IdParams, itemParam, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { blocks, pages, sections } from '../../db/website';
import { treeWithJsonText, withJsonText } from '../../domain/website/json-text';
import { blockTree, insertSectionTree, sectionOwner } from '../../domain/website/tree';
import { assertPageSeen } from '../../domain/website/visibility';
import { insertSections, loadSections, nextSectionSort, renumberSections, toInput, type Owner, type SectionRow } from '../../repos/website/tree';
import { ConvertToBlockQuery, Section, SectionSave, SectionTreeBody, TreeAnswer } from '../../schemas/website';

const base = '/content/sections';
const edit = requires('Content.Edit');
const ownerKey = (o: Owner) => (o.pageId ? `p:${o.pageId}` : `b:${o.blockId}`);

/** What a section names: the page or block it is of, and the block it shows (`targetBlockId`). */
const SECTION_REFERENCES = { pageId: pages, blockId: blocks, targetBlockId: blocks };

/** `/content/sections`: sections of pages and blocks; sort orders kept 1..n per zone on every save and delete. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Any signed-in user (spec), but a section of a gated page only for those the page's gate lets in.
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Section } } }, async (req) => {
    const row = await getRow(app.db, sections, req.auth.churchId, req.params.id, 'Section');
    await assertPageSeen(app.deps, actorOf(req), row.pageId);
    return withJsonText(row);
  });

  app.post(base, { config: { access: edit }, schema: { body: batchOf(SectionSave), response: { 200: z.array(Section) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const items = req.body;
    // References are checked up front, all in the caller's church: a foreign id is a 400 naming the field.
    await checkBatch(app.db, req, items, { references: SECTION_REFERENCES });
    items.forEach((item, i) => {
      if (item.pageId && item.blockId) throw badRequest(itemParam(req, i, 'blockId'), 'a section belongs to a page or a block, not both');
      if (!item.id && !item.pageId && !item.blockId) throw badRequest(itemParam(req, i, 'pageId'), 'pageId or blockId is required');
    });
    return app.db.transaction(async (tx) => {
      const touched = new Map<string, Owner>();
      const out: SectionRow[] = [];
      for (const [i, item] of items.entries()) {
        const { id, ...fields } = item;
        let row: SectionRow | undefined;
        if (id) {
          const old = await findRow(tx, sections, churchId, id);
          if (!old) throw notFound('Section');
          const before = sectionOwner(old);
          if (before) touched.set(ownerKey(before), before);
          const moved = fields.pageId ? { blockId: null } : fields.blockId ? { pageId: null } : {};
          [row] = await saveRows(tx, sections, churchId, [{ ...fields, ...moved, id }]);
        } else {
          const owner: Owner = item.pageId ? { pageId: item.pageId } : { blockId: item.blockId! };
          const sort = fields.sort ?? (await nextSectionSort(tx, churchId, owner, fields.zone ?? 'main'));
          [row] = await saveRows(tx, sections, churchId, [{ ...fields, sort }]);
        }
        const owner = sectionOwner(row!);
        if (!owner) throw badRequest(itemParam(req, i, 'pageId'), 'pageId or blockId is required');
        touched.set(ownerKey(owner), owner);
        out.push(row!);
      }
      for (const owner of touched.values()) await renumberSections(tx, churchId, owner);
      // Answer the rows as renumbered.
      const fresh = new Map((await rowsByIds(tx, sections, churchId, out.map((r) => r.id))).map((r) => [r.id, r]));
      return out.map((r) => withJsonText(fresh.get(r.id) ?? r));
    });
  });

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    await app.db.transaction(async (tx) => {
      const row = await deleteRow(tx, sections, churchId, req.params.id, 'Section');
      const owner = sectionOwner(row);
      if (owner) await renumberSections(tx, churchId, owner);
    });
    return {};
  });

  // A section and its whole element tree in one call (B1Admin's section templates, layout switch and AI
  // rewrite): placed by its `sort` (a fraction puts it between two), then the zone is renumbered.
  app.post(`${base}/tree`, { config: { access: edit }, schema: { body: SectionTreeBody, response: { 200: TreeAnswer } } }, async (req) =>
    insertSectionTree(app.deps, req.auth.churchId, req.body.section),
  );

  // A copy right after the original (same page or block), or with `convertToBlock=true` a new reusable block
  // holding a copy of the section; either way with all its elements, in one transaction.
  app.post(
    `${base}/duplicate/:id`,
    { config: { access: edit }, schema: { params: IdParams, querystring: ConvertToBlockQuery, response: { 200: TreeAnswer } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const convert = req.query.convertToBlock === 'true' || req.query.convertToBlock === '1';
      return app.db.transaction(async (tx) => {
        const row = await getRow(tx, sections, churchId, req.params.id, 'Section');
        const owner = sectionOwner(row);
        if (!owner) throw notFound('Section');
        const [input] = toInput((await loadSections(tx, churchId, owner)).filter((s) => s.id === row.id));
        if (convert) {
          const name = typeof row.answers?.name === 'string' ? row.answers.name : 'Section block';
          const [block] = await saveRows(tx, blocks, churchId, [{ name, blockType: 'sectionBlock' }]);
          await insertSections(tx, churchId, { blockId: block!.id }, [{ ...input!, sort: 1 }]);
          return blockTree(tx, block!);
        }
        const [newId] = await insertSections(tx, churchId, owner, [{ ...input!, sort: row.sort + 0.5 }], row.sort - 0.5);
        await renumberSections(tx, churchId, owner);
        const [copy] = (await loadSections(tx, churchId, owner)).filter((s) => s.id === newId);
        return treeWithJsonText(copy);
      });
    },
  );
}
