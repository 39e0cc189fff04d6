import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, actorOf, badRequest, batchOf, deleteRow, getRow, IdParams, itemParam, notFound, optionalActorOf, type ZodTypeProvider } from '@church/common';
import { pages } from '../../db/website';
import { seenRows } from '../../domain/website/visibility';
import { checkPageTree, createPageWithTree, duplicatePage, normalizeUrl, pageAnswer, publicTree, publishPage, replacePageTree, restoreTree, savePages } from '../../domain/website/tree';
import { setPublished } from '../../repos/website/drafts';
import { publicPages, sitePages } from '../../repos/website/pages';
import { sendRead } from '../kept';
import { AiPageBody, ChurchParams, ImportTreeBody, Page, PageSave, PublicPage, Published, SiteQuery, Success, TreeAnswer, TreeQuery, type TreeSectionInput } from '../../schemas/website';

const base = '/content/pages';
const edit = requires('Content.Edit');

/** `/content/pages`: pages, their whole trees (public, kept per data version), copies, imports. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The hottest route of a church's website: the gate is read from a small kept value and the tree itself is
  // answered from a kept, compressed body with an ETag, both valid while the church's data version holds. B1App's
  // site shows its built-in sermons, stream and donate pages when the answer has no `url`
  // (src/app/[sdSlug]/[pageSlug]/page.tsx), and reads the answer's title first: a page no one made is an empty one.
  app.get(`${base}/:churchId/tree`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: TreeQuery, response: { 200: TreeAnswer } } }, async (req, reply) =>
    sendRead(app.deps, req, reply, req.params.churchId, await publicTree(app.deps, optionalActorOf(req), req.params.churchId, req.query)),
  );

  app.get(`${base}/public/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: SiteQuery, response: { 200: z.array(PublicPage) } } }, async (req) =>
    publicPages(app.db, req.params.churchId, req.query.siteId),
  );

  // Open to any signed-in user (spec), but a gated page is listed only to those its gate lets in (and editors).
  app.get(base, { config: { access: anyUser }, schema: { querystring: SiteQuery, response: { 200: z.array(Page) } } }, async (req) => {
    const rows = await sitePages(app.db, req.auth.churchId, req.query.siteId);
    return (await seenRows(app.deps, actorOf(req), rows)).map(pageAnswer);
  });
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Page } } }, async (req) => {
    const [row] = await seenRows(app.deps, actorOf(req), [await getRow(app.db, pages, req.auth.churchId, req.params.id, 'Page')]);
    if (!row) throw notFound('Page');
    return pageAnswer(row);
  });

  // a `groups` gate names groups of the church (asked of membership before the transaction)
  app.post(base, { config: { access: edit }, schema: { body: batchOf(PageSave), response: { 200: z.array(Page) } } }, async (req) =>
    savePages(app.deps, req.auth.churchId, req.body, (i, field) => itemParam(req, i, field)),
  );

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, pages, req.auth.churchId, req.params.id);
    return {};
  });

  // Drafts (B1Admin ContentEditor.tsx): the editor works on the page's tree; the public site serves what was
  // published, once a page has been published. Writes raise the data version, so the kept tree follows.
  app.post(`${base}/:id/publish`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Published } } }, async (req) => ({
    publishedAt: await app.db.transaction((tx) => publishPage(tx, req.auth.churchId, req.params.id)),
  }));
  app.post(`${base}/:id/discard`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Success } } }, async (req) => {
    const page = await getRow(app.db, pages, req.auth.churchId, req.params.id, 'Page');
    if (!page.published) throw badRequest('id', 'the page has no published version', 'params');
    const { snapshot } = page.published;
    await app.db.transaction((tx) => restoreTree(tx, req.auth.churchId, { pageId: page.id }, snapshot as { sections: TreeSectionInput[] }));
    return { success: true };
  });
  app.delete(`${base}/:id/published`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await getRow(app.db, pages, req.auth.churchId, req.params.id, 'Page');
    await setPublished(app.db, req.auth.churchId, req.params.id, null, null);
    return {};
  });

  app.post(`${base}/duplicate/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: TreeAnswer } } }, async (req) =>
    duplicatePage(app.db, req.auth.churchId, req.params.id),
  );

  app.post(`${base}/importTree`, { config: { access: edit }, schema: { body: ImportTreeBody, response: { 200: TreeAnswer } } }, async (req) => {
    const { sections, ...fields } = req.body;
    await checkPageTree(app.deps, req.auth.churchId, req.body);
    return createPageWithTree(app.db, req.auth.churchId, pageInput({ ...fields, url: normalizeUrl(fields.url) }), sections);
  });

  // The AI page builder sends a whole page: a new one, or (with `id`) new content for an existing page.
  app.post(`${base}/temp/ai`, { config: { access: edit }, schema: { body: AiPageBody, response: { 200: TreeAnswer } } }, async (req) => {
    const { sections, id, ...fields } = req.body;
    await checkPageTree(app.deps, req.auth.churchId, req.body);
    const input = pageInput({ ...fields, url: normalizeUrl(fields.url) });
    if (id) {
      // A page keeps its site unless one is given.
      const { siteId: _site, ...kept } = input;
      return replacePageTree(app.db, req.auth.churchId, id, fields.siteId === undefined ? kept : input, sections);
    }
    return createPageWithTree(app.db, req.auth.churchId, input, sections);
  });
}

function pageInput(fields: Omit<z.output<typeof ImportTreeBody>, 'sections'>) {
  return {
    siteId: fields.siteId ?? null,
    url: fields.url,
    name: fields.name ?? fields.title ?? null,
    title: fields.title ?? null,
    metaDescription: fields.metaDescription ?? null,
    layout: fields.layout ?? null,
    visibility: fields.visibility ?? 'everyone',
    groupIds: fields.groupIds ?? [],
  };
}
