import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@church/common';
import { previewData } from '../../domain/media/preview';
import { PreviewData, PreviewParams } from '../../schemas/media-streaming';

/** `/content/preview`: everything the streaming page shows, by the church's subdomain, in one answer. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/content/preview/data/:key', { config: { access: 'public' }, schema: { params: PreviewParams, response: { 200: PreviewData } } }, async (req) =>
    previewData(app.deps, req.params.key, String(req.id)),
  );
}
