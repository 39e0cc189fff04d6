import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { StockPhotos, StockSearchBody } from '../../schemas/media';

/** `/content/stock`: stock photo search (Pexels). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post('/content/stock/search', { config: { access: 'public' }, schema: { body: StockSearchBody, response: { 200: StockPhotos } } }, async (req) => contentDeps(app).providers.stock.search(req.body.term));
}
