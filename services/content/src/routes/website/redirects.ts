import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, crud, Id, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { redirects } from '../../db/website';
import { checkRedirects, normalizePath, normalizeTarget } from '../../domain/website/redirects';
import { Redirect, RedirectSave } from '../../schemas/website';

const base = '/content/redirects';
const edit = requires('Content.Edit');

/** `/content/redirects`: normalised paths, unique `fromPath`, at most 200, no chains or loops. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: base, table: redirects, item: Redirect, save: RedirectSave, view: anyUser, edit, only: ['list', 'get', 'delete'], orderBy: asc(redirects.fromPath) });

  // One path resolves to its redirect (404 when it has none); without `path`, every redirect of the church.
  app.get(
    `${base}/public/:churchId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), querystring: z.object({ path: z.string().max(1000).optional() }), response: { 200: z.any() } } },
    async (req) => {
      const { churchId } = req.params;
      // One answer is a record, the other a list: the fields are picked here (a union would not serialize fast).
      if (req.query.path === undefined) return (await app.db.select().from(redirects).where(eq(redirects.churchId, churchId)).orderBy(asc(redirects.fromPath))).map(view);
      const [row] = await app.db.select().from(redirects).where(and(eq(redirects.churchId, churchId), eq(redirects.fromPath, normalizePath(req.query.path)))).limit(1);
      if (!row) throw notFound('Redirect');
      return view(row);
    },
  );

  app.post(base, { config: { access: edit }, schema: { body: batchOf(RedirectSave), response: { 200: z.array(Redirect) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const param = (i: number, field: string) => itemParam(req, i, field);
    return app.db.transaction(async (tx) => {
      // The church's set is read under a lock on its rows, so two saves cannot both pass the rules.
      const current = await tx.select().from(redirects).where(eq(redirects.churchId, churchId)).for('update');
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
        const [row] = item.id
          ? await tx.update(redirects).set({ fromPath: values.fromPath, toPath: values.toPath }).where(and(eq(redirects.churchId, churchId), eq(redirects.id, item.id))).returning()
          : await tx.insert(redirects).values({ id: randomUUID(), churchId, fromPath: values.fromPath, toPath: values.toPath }).returning();
        out.push(row!);
      }
      return out;
    });
  });
}

const view = (r: typeof redirects.$inferSelect) => ({ id: r.id, churchId: r.churchId, fromPath: r.fromPath, toPath: r.toPath });
