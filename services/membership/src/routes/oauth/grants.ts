import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { DEVICE_GRANT, pollDeviceCode } from '../../domain/device-flow';
import { OAuthError, authenticateClient, createCode, exchangeCode, grantedScopes, refresh } from '../../domain/oauth';
import { SERVER_CHURCH_ID } from '../../db/schema';
import { findClientByClientId } from '../../repos/oauth';
import { OAuthErrorBody, TokenResponse } from '../../schemas/oauth';
import { clientCredentials, oauthReply } from './reply';
import { AuthorizeBody, TokenBody } from '../../schemas/oauth/grants';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // The signed-in user consents in the app, which calls this with their login token; errors use the spec's body.
  app.post(
    '/membership/oauth/authorize',
    { config: { access: userSession }, schema: { body: AuthorizeBody, response: { 200: z.object({ code: z.string(), state: z.string().optional() }) } } },
    async (req) => {
      const { client_id, redirect_uri, response_type, scope, state } = req.body;
      if (response_type !== 'code') throw badRequest('response_type', 'response_type must be code');
      const client = await findClientByClientId(app.db, client_id);
      if (!client) throw badRequest('client_id', 'Unknown client');
      if (!client.redirectUris.includes(redirect_uri)) throw badRequest('redirect_uri', 'redirect_uri is not registered for this client');
      if (req.auth.churchId === SERVER_CHURCH_ID) throw badRequest('churchId', 'Select a church before authorizing an application');
      let scopes: string[];
      try {
        scopes = grantedScopes(client, scope);
      } catch (err) {
        if (err instanceof OAuthError) throw badRequest('scope', err.description);
        throw err;
      }
      const code = await createCode(app.db, { client, userId: req.auth.id, churchId: req.auth.churchId, redirectUri: redirect_uri, scopes });
      return { code, ...(state !== undefined ? { state } : {}) };
    },
  );

  app.post(
    '/membership/oauth/token',
    { config: { access: 'public' }, attachValidation: true, schema: { body: TokenBody, response: { 200: TokenResponse, 400: OAuthErrorBody } } },
    async (req, reply) =>
      oauthReply(req, reply, async () => {
        const body = req.body ?? {};
        const { clientId, secret } = clientCredentials(req, body);
        switch (body.grant_type) {
          case 'authorization_code': {
            if (!body.code || !body.redirect_uri) throw new OAuthError('invalid_request', 'code and redirect_uri are required');
            const client = await authenticateClient(app.db, clientId, secret);
            return exchangeCode(app.db, app.deps, { code: body.code, clientId: client.clientId, redirectUri: body.redirect_uri });
          }
          case 'refresh_token': {
            if (!body.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
            const client = await authenticateClient(app.db, clientId, secret);
            return refresh(app.db, app.deps, { refreshToken: body.refresh_token, clientId: client.clientId });
          }
          case DEVICE_GRANT: {
            // Devices are public clients (RFC 8628 §3.4): no secret is asked.
            if (!body.device_code) throw new OAuthError('invalid_request', 'device_code is required');
            const client = await authenticateClient(app.db, clientId);
            return pollDeviceCode(app.db, app.deps, body.device_code, client.clientId);
          }
          case undefined:
            throw new OAuthError('invalid_request', 'grant_type is required');
          default:
            throw new OAuthError('unsupported_grant_type', `Unsupported grant_type ${body.grant_type}`);
        }
      }),
  );
}
