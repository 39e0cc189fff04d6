import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from '@church/common';
import { mediaDeps } from '../../domain/media/deps';

/** `/content/stock`: stock photo search (Pexels). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post('/content/stock/search', { config: { access: 'public' }, schema: { body: z.object({ term: z.string().trim().min(1, 'is required').max(200) }) } }, async (req) =>
    mediaDeps(app).providers.stock.search(req.body.term),
  );
}
