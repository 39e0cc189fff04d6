import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, actorOf, badRequest, batchOf, checkBatch, deleteRow, findRow, getRow, IdParams, itemParam, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { blocks, elements, sections } from '../../db/website';
import { treeWithJsonText, withJsonText } from '../../domain/website/json-text';
import { checkLayout, syncChildren } from '../../domain/website/layout';
import { assertPageSeen } from '../../domain/website/visibility';
import { insertElements, loadElementTree, nextElementSort, renumberElements, type ElementNode, type ElementRow } from '../../repos/website/tree';
import { Element, ElementSave, TreeAnswer, type TreeElementInput } from '../../schemas/website';

const base = '/content/elements';
const edit = requires('Content.Edit');

const asInput = (e: ElementNode): TreeElementInput => ({ elementType: e.elementType, answers: e.answers, styles: e.styles, animations: e.animations, elements: e.elements.map(asInput) });

/** `/content/elements`: elements of sections; rows keep their columns and carousels their slides in step. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Any signed-in user (spec), but an element of a gated page only for those the page's gate lets in.
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Element } } }, async (req) => {
    const row = await getRow(app.db, elements, req.auth.churchId, req.params.id, 'Element');
    const section = await getRow(app.db, sections, req.auth.churchId, row.sectionId, 'Element');
    await assertPageSeen(app.deps, actorOf(req), section.pageId);
    return withJsonText(row);
  });

  app.post(base, { config: { access: edit }, schema: { body: batchOf(ElementSave), response: { 200: z.array(Element) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const items = req.body;
    // the section and block an element names are the church's (its parent: an element of the same section, below)
    await checkBatch(app.db, req, items, { references: { sectionId: sections, blockId: blocks } });
    const sectionRows = new Map((await rowsByIds(app.db, sections, churchId, items.flatMap((x) => (x.sectionId ? [x.sectionId] : [])))).map((r) => [r.id, r]));
    items.forEach((item, i) => {
      if (!item.id && !item.sectionId) throw badRequest(itemParam(req, i, 'sectionId'), 'is required');
      if (!item.id && !item.elementType) throw badRequest(itemParam(req, i, 'elementType'), 'is required');
      checkLayout(item.elementType, item.answers, itemParam(req, i, 'answers'));
    });
    return app.db.transaction(async (tx) => {
      const saved: ElementRow[] = [];
      const touched = new Set<string>();
      for (const [i, item] of items.entries()) {
        const { id, ...fields } = item;
        const old = id ? await findRow(tx, elements, churchId, id) : undefined;
        if (id && !old) throw notFound('Element');
        const sectionId = fields.sectionId ?? old!.sectionId;
        const parentId = fields.parentId === undefined ? (old?.parentId ?? null) : fields.parentId;
        if (parentId) {
          const parent = await findRow(tx, elements, churchId, parentId);
          if (!parent || parent.sectionId !== sectionId || parent.id === id) throw badRequest(itemParam(req, i, 'parentId'), 'no such element in this section');
        }
        checkLayout(fields.elementType ?? old?.elementType, fields.answers, itemParam(req, i, 'answers'));
        // A block's elements carry the block, so a block's tree reads them by section alone.
        const section = sectionRows.get(sectionId) ?? (await findRow(tx, sections, churchId, sectionId));
        const blockId = fields.blockId !== undefined ? fields.blockId : (section?.blockId ?? null);
        let row: ElementRow | undefined;
        if (old) {
          [row] = await saveRows(tx, elements, churchId, [{ ...fields, blockId, parentId, id: old.id }]);
          touched.add(old.sectionId);
        } else {
          const sort = fields.sort ?? (await nextElementSort(tx, churchId, sectionId, parentId));
          [row] = await saveRows(tx, elements, churchId, [{ ...fields, elementType: fields.elementType!, sectionId, blockId, parentId, sort }]);
        }
        touched.add(sectionId);
        saved.push(row!);
      }
      for (const row of saved) await syncChildren(tx, row);
      for (const sectionId of touched) await renumberElements(tx, churchId, sectionId);
      const fresh = new Map((await rowsByIds(tx, elements, churchId, saved.map((r) => r.id))).map((r) => [r.id, r]));
      return saved.map((r) => withJsonText(fresh.get(r.id) ?? r));
    });
  });

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    await app.db.transaction(async (tx) => {
      const row = await deleteRow(tx, elements, churchId, req.params.id, 'Element');
      await renumberElements(tx, churchId, row.sectionId);
    });
    return {};
  });

  // A copy right after the original, with all its children, in one transaction.
  app.post(`${base}/duplicate/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: TreeAnswer } } }, async (req) => {
    const churchId = req.auth.churchId;
    return app.db.transaction(async (tx) => {
      const row = await getRow(tx, elements, churchId, req.params.id, 'Element');
      const tree = await loadElementTree(tx, churchId, row);
      const [copyId] = await insertElements(tx, churchId, row.sectionId, row.blockId, row.parentId, [asInput(tree)], row.sort + 0.5);
      await renumberElements(tx, churchId, row.sectionId);
      const copy = await getRow(tx, elements, churchId, copyId!, 'Element');
      return treeWithJsonText(await loadElementTree(tx, churchId, copy));
    });
  });
}
