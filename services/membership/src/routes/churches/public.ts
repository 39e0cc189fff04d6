import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, badRequest, notFound, type ZodTypeProvider } from '@church/common';
import { churchesByIds, findChurch, findChurchBySubDomain, searchChurches } from '../../repos/churches';
import { PublicChurch } from '../../schemas/churches';
import { Name } from '../../schemas/churches/public';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/churches';
  const search = (name: string) => searchChurches(app.db, name, { limit: 50 });

  app.get(`${base}/search`, { config: { access: 'public' }, schema: { querystring: z.object({ name: Name }), response: { 200: z.array(PublicChurch) } } }, async (req) =>
    search(req.query.name),
  );

  app.post(`${base}/search`, { config: { access: 'public' }, schema: { body: z.object({ name: Name }), response: { 200: z.array(PublicChurch) } } }, async (req) =>
    search(req.body.name),
  );

  app.get(
    `${base}/lookup`,
    { config: { access: 'public' }, schema: { querystring: z.object({ subDomain: z.string().trim().max(100).optional(), id: Id.optional() }), response: { 200: PublicChurch } } },
    async (req) => {
      const { subDomain, id } = req.query;
      if (!subDomain && !id) throw badRequest('subDomain', 'subDomain or id is required', 'query');
      const church = id ? await findChurch(app.db, id) : await findChurchBySubDomain(app.db, subDomain!);
      if (!church || church.archivedDate) throw notFound('Church');
      return church;
    },
  );

  // Clients send a bare array of ids; `{ids: [...]}` is accepted too.
  app.post(
    `${base}/byIds`,
    {
      config: { access: 'public' },
      schema: {
        body: z.union([z.array(Id).max(1000), z.object({ ids: z.array(Id).max(1000) })]).transform((b) => (Array.isArray(b) ? b : b.ids)),
        response: { 200: z.array(PublicChurch) },
      },
    },
    async (req) => churchesByIds(app.db, req.body),
  );
}
