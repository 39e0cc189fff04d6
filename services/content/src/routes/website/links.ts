import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, REMOTE, actorOf, batchOf, checkBatch, deleteRow, findRow, getRow, IdParams, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { links } from '../../db/website';
import { groupsMemo, satisfiesGate, seenRows } from '../../domain/website/visibility';
import { listLinks, nextLinkSort, renumberLinks, type LinkRow } from '../../repos/website/links';
import { CategoryQuery, ChurchParams, Link, Links, LinkSave } from '../../schemas/website';

const base = '/content/links';
const edit = requires('Content.Edit');

/** `/content/links`: navigation links by category, with who may see each; sorts kept 1..n per category. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Open to any signed-in user (spec); gated links only to those their gate lets in (and editors).
  app.get(base, { config: { access: anyUser }, schema: { querystring: CategoryQuery, response: { 200: Links } } }, async (req) =>
    seenRows(app.deps, actorOf(req), await listLinks(app.db, req.auth.churchId, req.query.siteId, req.query.category)),
  );
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Link } } }, async (req) => {
    const [row] = await seenRows(app.deps, actorOf(req), [await getRow(app.db, links, req.auth.churchId, req.params.id, 'Link')]);
    if (!row) throw notFound('Link');
    return row;
  });

  // The links the caller may see; another church's links are not the caller's to filter (empty).
  app.get(
    `${base}/church/:churchId/filtered`,
    { config: { access: anyUser }, schema: { params: ChurchParams, querystring: CategoryQuery, response: { 200: Links } } },
    async (req) => {
      const { churchId } = req.params;
      if (churchId.toLowerCase() !== req.auth.churchId.toLowerCase()) return [];
      const rows = await listLinks(app.db, churchId, req.query.siteId, req.query.category);
      const actor = actorOf(req);
      const groupsOf = groupsMemo(app.deps, churchId);
      const seen = await Promise.all(rows.map((r) => satisfiesGate(app.deps, churchId, r, actor, groupsOf)));
      return rows.filter((_, i) => seen[i]);
    },
  );
  // Anonymous visitors see only links open to everyone.
  app.get(`${base}/church/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: CategoryQuery, response: { 200: Links } } }, async (req) =>
    listLinks(app.db, req.params.churchId, req.query.siteId, req.query.category, true),
  );

  app.post(base, { config: { access: edit }, schema: { body: batchOf(LinkSave), response: { 200: Links } } }, async (req) => {
    const churchId = req.auth.churchId;
    // a link's parent link and its gate's groups are the church's (its `siteId`, a membership site, no module answers yet)
    await checkBatch(app.db, req, req.body, { references: { parentId: links, groupIds: REMOTE.groups, siteId: REMOTE.sites } });
    return app.db.transaction(async (tx) => {
      const saved: LinkRow[] = [];
      // The lists to renumber: each category of each site touched.
      const lists = new Map<string, { category: string; siteId: string | null }>();
      const touch = (r: LinkRow) => lists.set(`${r.siteId ?? ''}\n${r.category}`, { category: r.category, siteId: r.siteId });
      for (const { id, ...fields } of req.body) {
        let row: LinkRow | undefined;
        if (id) {
          const old = await findRow(tx, links, churchId, id);
          if (!old) throw notFound('Link');
          touch(old);
          [row] = await saveRows(tx, links, churchId, [{ ...fields, id }]);
        } else {
          const category = fields.category ?? 'website';
          const sort = fields.sort ?? (await nextLinkSort(tx, churchId, category, fields.siteId ?? null));
          [row] = await saveRows(tx, links, churchId, [{ ...fields, category, sort }]);
        }
        touch(row!);
        saved.push(row!);
      }
      for (const { category, siteId } of lists.values()) await renumberLinks(tx, churchId, category, siteId);
      const fresh = new Map((await rowsByIds(tx, links, churchId, saved.map((r) => r.id))).map((r) => [r.id, r]));
      return saved.map((r) => fresh.get(r.id) ?? r).sort((a, b) => a.category.localeCompare(b.category) || a.sort - b.sort);
    });
  });

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    await app.db.transaction(async (tx) => {
      const row = await deleteRow(tx, links, churchId, req.params.id, 'Link');
      await renumberLinks(tx, churchId, row.category, row.siteId);
    });
    return {};
  });
}
