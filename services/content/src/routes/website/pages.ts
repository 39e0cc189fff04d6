import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, actorOf, badRequest, batchOf, deleteRow, getRow, IdParams, itemParam, notFound, optionalActorOf, type ZodTypeProvider } from '@church/common';
import { pages } from '../../db/website';
import { editsContent, satisfiesGate, seenRows } from '../../domain/website/visibility';
import { checkPageTree, createPageWithTree, duplicatePage, normalizeUrl, pageAnswer, pageTree, publishPage, replacePageTree, restoreTree, savePages } from '../../domain/website/tree';
import { setPublished } from '../../repos/website/drafts';
import { pageGate, publicPages, sitePages } from '../../repos/website/pages';
import { serialized } from '../kept';
import { AiPageBody, ChurchParams, ImportTreeBody, Page, PageSave, PublicPage, Published, SiteQuery, Success, TreeAnswer, TreeQuery, type TreeSectionInput } from '../../schemas/website';

const base = '/content/pages';
const edit = requires('Content.Edit');

/** `/content/pages`: pages, their whole trees (public, kept per data version), copies, imports. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The hottest route of a church's website: the gate is read from a small kept value and the tree itself is
  // answered from a kept, compressed body with an ETag, both valid while the church's data version holds.
  app.get(
    `${base}/:churchId/tree`,
    { config: { access: 'public' }, schema: { params: ChurchParams, querystring: TreeQuery, response: { 200: TreeAnswer } } },
    async (req, reply) => {
      const { churchId } = req.params;
      const { url, id, siteId } = req.query;
      if (!url && !id) throw badRequest('url', 'url or id is required', 'query');
      // Only the church's website editors (B1Admin's editor, by id with its token) read the working draft; anyone
      // else gets what is published, whichever way they name the page (`?id=` used to serve drafts to anyone).
      const draft = !url && Boolean(req.auth) && req.auth.churchId.toLowerCase() === churchId.toLowerCase() && editsContent(req.auth);
      // By url, the page of the site asked for (the main site when none is); by id, whichever site it is of.
      const key = url ? `url\n${siteId ?? ''}\n${normalizeUrl(url)}` : `${draft ? 'draft' : 'id'}\n${id}`;
      // One version read serves the gate and the body.
      const version = await app.deps.snapshots.version(churchId);
      const gate = await app.deps.snapshots.value(
        `page-gate\n${churchId}\n${url ? key : `id\n${id}`}`,
        version,
        async () => {
          return pageGate(app.db, churchId, url ? { url: normalizeUrl(url), siteId } : { id: id! });
        },
        () => 200,
      );
      // B1App's site shows its built-in sermons, stream and donate pages when the answer has no `url`
      // (src/app/[sdSlug]/[pageSlug]/page.tsx), and reads the answer's title first: a page no one made is an empty one.
      if (!gate) {
        if (url) return {};
        throw notFound('Page');
      }
      if (!(await satisfiesGate(app.deps, churchId, gate, optionalActorOf(req)))) return { restricted: true, visibility: gate.visibility };
      return app.deps.snapshots.sendAt(req, reply, churchId, key, version, async () => {
        const page = await getRow(app.db, pages, churchId, gate.id, 'Page');
        // the editor gets the working tree with its ids; everyone else the published version once there is one
        // (before a page is first published its working tree is live), without ids
        return serialized(reply, draft ? await pageTree(app.db, page) : page.published ? page.published.tree : await pageTree(app.db, page, true));
      });
    },
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
