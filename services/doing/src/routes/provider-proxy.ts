import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { badRequest, type ZodTypeProvider } from '@church/common';
import { doing } from '../app';
import { callProvider, type ProxyOperation } from '../domain/provider-proxy';
import { ProxyBody } from '../schemas';

const OPERATIONS: ProxyOperation[] = ['browse', 'getPresentations', 'getPlaylist', 'getInstructions', 'getExpandedInstructions'];

/** `/doing/providerProxy/*`: forwards to the content provider named by `providerId` with the ministry's tokens. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  for (const operation of OPERATIONS) {
    app.post(`/doing/providerProxy/${operation}`, { config: { access: anyUser }, schema: { body: ProxyBody, response: { 200: z.unknown() } } }, async (req) => {
      const deps = doing.deps(app);
      // Own keys only: `constructor` or `toString` must be an unknown provider, not Object's (a 500).
      const { contentProviders } = deps.providers;
      const provider = Object.hasOwn(contentProviders, req.body.providerId) ? contentProviders[req.body.providerId] : undefined;
      if (!provider) throw badRequest('providerId', `unknown provider; known: ${Object.keys(deps.providers.contentProviders).join(', ')}`);
      return callProvider({ db: app.db, secrets: app.deps.secrets, provider, churchId: req.auth.churchId, ministryId: req.body.ministryId }, operation, req.body.path, req.body.resolution);
    });
  }
}
