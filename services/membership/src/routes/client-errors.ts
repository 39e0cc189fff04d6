import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import type { ZodTypeProvider } from '@church/common';
import { ClientError, ClientErrorSave, recordClientError } from '../domain/client-errors';

/** Client-side error reports: stored per church and user, rate-limited per user, text capped. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/membership/clientErrors',
    { config: { access: anyUser }, bodyLimit: 64 * 1024, schema: { body: ClientErrorSave, response: { 200: ClientError } } },
    (req) => recordClientError(app.db, req.auth.churchId, req.auth.id, req.body),
  );
}
