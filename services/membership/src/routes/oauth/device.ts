import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isServerAdmin } from '@church/auth';
import { Id, badRequest, notFound, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { clock } from '../../domain/clock';
import { DEFAULT_VERIFICATION_URI, normalizeUserCode, pendingAuthorization, startDeviceAuthorization } from '../../domain/oauth/device';
import { authenticateClient, grantedScopes } from '../../domain/oauth/tokens';
import { findChurch, findUserChurch } from '../../repos/churches';
import { decideDeviceCode } from '../../repos/oauth';
import { OAuthErrorBody, field } from '../../schemas/oauth';
import { oauthReply } from './reply';
import { membershipDeps } from '../../deps';
import { DeviceAuthorization, Decision } from '../../schemas/oauth/device';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/oauth/device';
  const verificationUri = membershipDeps(app).config.DEVICE_VERIFICATION_URI ?? DEFAULT_VERIFICATION_URI;

  // Called by the device, an OAuth client: RFC 8628 §3.2 errors in the OAuth shape.
  app.post(
    `${base}/authorize`,
    {
      config: { access: 'public' },
      attachValidation: true,
      schema: { body: z.object({ client_id: field, scope: z.string().optional() }), response: { 200: DeviceAuthorization, 400: OAuthErrorBody } },
    },
    async (req, reply) =>
      oauthReply(req, reply, async () => {
        const client = await authenticateClient(app.db, req.body?.client_id);
        return startDeviceAuthorization(app.db, client, grantedScopes(client, req.body?.scope), verificationUri);
      }),
  );

  app.get(
    `${base}/pending/:userCode`,
    {
      config: { access: userSession },
      schema: {
        params: z.object({ userCode: z.string().max(20) }),
        response: {
          200: z.object({
            user_code: z.string(),
            client_id: z.string(),
            client_name: z.string(),
            scopes: z.array(z.object({ name: z.string(), description: z.string() })),
            expires_in: z.number(),
          }),
        },
      },
    },
    (req) => pendingAuthorization(app.db, req.params.userCode),
  );

  app.post(
    `${base}/approve`,
    { config: { access: userSession }, schema: { body: z.object({ user_code: z.string().min(1).max(20), church_id: Id }), response: { 200: Decision } } },
    async (req) => {
      const code = userCode(req.body.user_code);
      // The grant is for one church, and only one the approving user belongs to.
      const church = await findChurch(app.db, req.body.church_id);
      const link = church ? await findUserChurch(app.db, req.auth.id, church.id) : undefined;
      if (!church || (!isServerAdmin(req.auth) && (!link || church.archivedDate))) throw notFound('Church');
      const row = await decideDeviceCode(app.db, code, clock.now(), { status: 'approved', userId: req.auth.id, churchId: church.id });
      if (!row) throw badRequest('user_code', 'The code is invalid, expired or already decided');
      return { status: 'approved' as const };
    },
  );

  app.post(
    `${base}/deny`,
    { config: { access: userSession }, schema: { body: z.object({ user_code: z.string().min(1).max(20) }), response: { 200: Decision } } },
    async (req) => {
      const row = await decideDeviceCode(app.db, userCode(req.body.user_code), clock.now(), { status: 'denied', userId: req.auth.id });
      if (!row) throw badRequest('user_code', 'The code is invalid, expired or already decided');
      return { status: 'denied' as const };
    },
  );
}

function userCode(input: string): string {
  const code = normalizeUserCode(input);
  if (!code) throw badRequest('user_code', 'A code has 8 letters and digits, like ABCD-EFGH');
  return code;
}
