import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, crud, itemParam, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { redirects } from '../../db/website';
import { checkRedirects, normalizePath, normalizeTarget } from '../../domain/website/redirects';
import { byFromPath, churchRedirects, lockedRedirects, redirectOf, type RedirectRow } from '../../repos/website/redirects';
import { ChurchParams, PublicRedirects, Redirect, RedirectPathQuery, RedirectSave } from '../../schemas/website';

const base = '/content/redirects';
const edit = requires('Content.Edit');

/** `/content/redirects`: normalised paths, unique `fromPath`, at most 200, no chains or loops. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: base, table: redirects, item: Redirect, save: RedirectSave, view: anyUser, edit, only: ['list', 'get', 'delete'], orderBy: byFromPath });

  // One path resolves to its redirect (404 when it has none); without `path`, every redirect of the church.
  app.get(
    `${base}/public/:churchId`,
    { config: { access: 'public' }, schema: { params: ChurchParams, querystring: RedirectPathQuery, response: { 200: PublicRedirects } } },
    async (req) => {
      const { churchId } = req.params;
      if (req.query.path === undefined) return (await churchRedirects(app.db, churchId)).map(view);
      const row = await redirectOf(app.db, churchId, normalizePath(req.query.path));
      if (!row) throw notFound('Redirect');
      return view(row);
    },
  );

  app.post(base, { config: { access: edit }, schema: { body: batchOf(RedirectSave), response: { 200: z.array(Redirect) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const param = (i: number, field: string) => itemParam(req, i, field);
    return app.db.transaction(async (tx) => {
      const current = await lockedRedirects(tx, churchId);
      const byId = new Map(current.map((r) => [r.id, { fromPath: r.fromPath, toPath: r.toPath, item: undefined as number | undefined }]));
      const fresh: Array<{ fromPath: string; toPath: string; item: number }> = [];
      req.body.forEach((item, i) => {
        const old = item.id ? byId.get(item.id) : undefined;
        if (item.id && !old) throw notFound('Redirect');
        if (!old && !item.fromPath) throw badRequest(param(i, 'fromPath'), 'is required');
        if (!old && !item.toPath) throw badRequest(param(i, 'toPath'), 'is required');
        const next = { fromPath: item.fromPath ? normalizePath(item.fromPath) : old!.fromPath, toPath: item.toPath ? normalizeTarget(item.toPath) : old!.toPath, item: i };
        if (old) byId.set(item.id!, next);
        else fresh.push(next);
      });
      const all = [...byId.values(), ...fresh];
      const seen = new Map<string, number | undefined>();
      for (const r of all) {
        if (seen.has(r.fromPath)) {
          const i = r.item ?? seen.get(r.fromPath);
          throw badRequest(i !== undefined ? param(i, 'fromPath') : 'fromPath', `${r.fromPath} is already redirected`);
        }
        seen.set(r.fromPath, r.item);
      }
      checkRedirects(all, param);
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const values = item.id ? byId.get(item.id)! : fresh.find((f) => f.item === i)!;
        const [row] = await saveRows(tx, redirects, churchId, [{ id: item.id, fromPath: values.fromPath, toPath: values.toPath }]);
        out.push(row!);
      }
      return out;
    });
  });
}

const view = (r: RedirectRow) => ({ id: r.id, churchId: r.churchId, fromPath: r.fromPath, toPath: r.toPath });
