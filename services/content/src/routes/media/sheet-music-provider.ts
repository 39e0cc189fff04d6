import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { anyUser } from '@church/auth';
import { badRequest, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import type { SheetMusicUser } from '../../providers/sheet-music';
import { dropRequest, keepRequest, pendingRequest, storedToken, storeToken } from '../../repos/media/sheet-music';
import {
  AuthUrl,
  HasAccount,
  ProviderJson,
  RedirectUrl,
  SheetMusicAccessQuery,
  SheetMusicAuthUrlQuery,
  SheetMusicDownloadQuery,
  SheetMusicKeysQuery,
  SheetMusicRefParams,
  SheetMusicSearchQuery,
} from '../../schemas/media-songs';

/** What the provider answered, checked against `ProviderJson` by the response schema. */
const asJson = (value: unknown) => (value ?? {}) as z.output<typeof ProviderJson>;

/**
 * `/content/sheetMusicProvider` (the spec's name) and `/content/praiseCharts` (the name B1Admin and B1App call,
 * the provider's own): the catalog, and the user's library through their linked account (OAuth 1.0a).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const provider = () => contentDeps(app).providers.sheetMusic;

  /** The caller's linked account, decrypted; undefined when they have none. */
  const userToken = async (req: FastifyRequest): Promise<SheetMusicUser | undefined> => {
    const row = await storedToken(app.db, req.auth.churchId, req.auth.id);
    if (!row) return undefined;
    return { token: app.deps.secrets.decrypt(row.token), secret: app.deps.secrets.decrypt(row.secret) };
  };
  const requireToken = async (req: FastifyRequest) => {
    const token = await userToken(req);
    if (!token) throw badRequest('account', 'link a sheet-music provider account first (authUrl, then access)', 'query');
    return token;
  };

  for (const base of ['/content/sheetMusicProvider', '/content/praiseCharts']) {
    app.get(`${base}/raw/:id`, { config: { access: anyUser }, schema: { params: SheetMusicRefParams, response: { 200: ProviderJson } } }, async (req) => asJson(await provider().raw(req.params.id)));

    app.get(`${base}/hasAccount`, { config: { access: anyUser }, schema: { response: { 200: HasAccount } } }, async (req) => ({ hasAccount: Boolean(await userToken(req)) }));

    app.get(`${base}/search`, { config: { access: anyUser }, schema: { querystring: SheetMusicSearchQuery, response: { 200: ProviderJson } } }, async (req) => asJson(await provider().search(req.query.q)));

    app.get(
      `${base}/arrangement/raw/:id`,
      { config: { access: anyUser }, schema: { params: SheetMusicRefParams, querystring: SheetMusicKeysQuery, response: { 200: ProviderJson } } },
      async (req) => asJson(await provider().arrangementRaw(req.params.id, req.query.keys, await requireToken(req))),
    );

    app.get(
      `${base}/authUrl`,
      { config: { access: 'public' }, schema: { querystring: SheetMusicAuthUrlQuery, response: { 200: AuthUrl } } },
      async (req) => {
        const t = await provider().requestToken(req.query.returnUrl);
        // The request token's secret is kept (encrypted) for an hour, so `access` also works without `secret`.
        await keepRequest(app.db, t.token, app.deps.secrets.encrypt(t.secret));
        return { authUrl: t.authUrl, oauthToken: t.token, oauthTokenSecret: t.secret };
      },
    );

    app.get(
      `${base}/access`,
      { config: { access: anyUser }, schema: { querystring: SheetMusicAccessQuery, response: { 200: HasAccount } } },
      async (req) => {
        const { verifier, token } = req.query;
        let secret = req.query.secret;
        if (!secret) {
          const pending = await pendingRequest(app.db, token);
          if (!pending) throw badRequest('secret', 'is required (no pending authorization for this token)', 'query');
          secret = app.deps.secrets.decrypt(pending.secret);
        }
        const access = await provider().accessToken(token, secret, verifier);
        await storeToken(app.db, req.auth.churchId, req.auth.id, { token: app.deps.secrets.encrypt(access.token), secret: app.deps.secrets.encrypt(access.secret) });
        await dropRequest(app.db, token);
        return { hasAccount: true };
      },
    );

    app.get(`${base}/products/:id`, { config: { access: anyUser }, schema: { params: SheetMusicRefParams, querystring: SheetMusicKeysQuery, response: { 200: ProviderJson } } }, async (req) =>
      asJson(await provider().products(req.params.id, req.query.keys, await userToken(req))),
    );

    app.get(
      `${base}/download`,
      { config: { access: anyUser }, schema: { querystring: SheetMusicDownloadQuery, response: { 200: RedirectUrl } } },
      async (req) => ({ redirectUrl: await provider().download(req.query.skus, req.query.keys, req.query.file_name, await requireToken(req)) }),
    );

    app.get(`${base}/library`, { config: { access: anyUser }, schema: { response: { 200: ProviderJson } } }, async (req) => asJson(await provider().library(await requireToken(req))));
  }
}
