import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import type { ZodTypeProvider } from '@church/common';
import { doingDeps } from '../deps';
import { providerOf } from '../providers';
import { callProvider, type ProxyOperation } from '../domain/provider-proxy';
import { ProxyBody } from '../schemas';

const OPERATIONS: ProxyOperation[] = ['browse', 'getPresentations', 'getPlaylist', 'getInstructions', 'getExpandedInstructions'];

/**
 * `/doing/providerProxy/*`: forwards to the content provider named by `providerId` with the ministry's tokens (read
 * calls of B1Admin's lesson browser: anyone signed in, as the spec has it; the tokens never leave the server).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  for (const operation of OPERATIONS) {
    app.post(`/doing/providerProxy/${operation}`, { config: { access: anyUser }, schema: { body: ProxyBody, response: { 200: z.unknown() } } }, async (req) => {
      const provider = providerOf(doingDeps(app).providers, req.body.providerId);
      return callProvider({ db: app.db, secrets: app.deps.secrets, provider, churchId: req.auth.churchId, ministryId: req.body.ministryId }, operation, req.body.path, req.body.resolution);
    });
  }
}
