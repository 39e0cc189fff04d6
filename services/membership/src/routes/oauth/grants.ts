import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actorOf, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { authorize, grantTokens } from '../../domain/oauth/grants';
import { OAuthErrorBody, TokenResponse } from '../../schemas/oauth';
import { clientCredentials, oauthReply } from './reply';
import { AuthorizeBody, TokenBody } from '../../schemas/oauth/grants';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // The signed-in user consents in the app, which calls this with their login token; errors use the spec's body.
  app.post(
    '/membership/oauth/authorize',
    { config: { access: userSession }, schema: { body: AuthorizeBody, response: { 200: z.object({ code: z.string(), state: z.string().optional() }) } } },
    (req) => authorize(app.db, actorOf(req), req.body),
  );

  app.post(
    '/membership/oauth/token',
    { config: { access: 'public' }, attachValidation: true, schema: { body: TokenBody, response: { 200: TokenResponse, 400: OAuthErrorBody } } },
    async (req, reply) => oauthReply(req, reply, () => grantTokens(app.db, app.deps, req.body ?? {}, clientCredentials(req, req.body ?? {}))),
  );
}
