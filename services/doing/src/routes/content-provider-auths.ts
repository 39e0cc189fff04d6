import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, deleteRow, getRow, listRows, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { contentProviderAuths } from '../db/schema';
import { doing } from '../app';
import { providerOf } from '../providers';
import { authsOf, linkProvider, refreshProvider, toAuthItem, type ProviderAuthRow } from '../repos/provider-auths';
import { ContentProviderAuth, ContentProviderAuthSave, ExchangeBody, IdsQuery, ProviderId, RefreshBody } from '../schemas';

const base = '/doing/contentProviderAuths';
const List = z.array(ContentProviderAuth);

/** `/doing/contentProviderAuths`: OAuth records per ministry and provider; tokens sealed at rest, never answered. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const items = (rows: unknown[]) => (rows as ProviderAuthRow[]).map(toAuthItem);
  const seal = (v: string | null | undefined) => (v ? app.deps.secrets.encrypt(v) : v);

  app.get(base, { ...read, schema: { response: { 200: List } } }, async (req) => items(await listRows(app.db, contentProviderAuths, req.auth.churchId, { orderBy: contentProviderAuths.providerId })));
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => items(await rowsByIds(app.db, contentProviderAuths, req.auth.churchId, req.query.ids)));
  app.get(`${base}/ministry/:ministryId`, { ...read, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, async (req) => items(await authsOf(app.db, req.auth.churchId, req.params.ministryId)));
  app.get(`${base}/ministry/:ministryId/:providerId`, { ...read, schema: { params: z.object({ ministryId: Id, providerId: ProviderId }), response: { 200: List } } }, async (req) =>
    items(await authsOf(app.db, req.auth.churchId, req.params.ministryId, req.params.providerId)),
  );
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: ContentProviderAuth } } }, async (req) => toAuthItem((await getRow(app.db, contentProviderAuths, req.auth.churchId, req.params.id, 'Content provider auth')) as ProviderAuthRow));
  app.post(base, { ...read, schema: { body: batchOf(ContentProviderAuthSave), response: { 200: List } } }, async (req) => {
    const rows = req.body.map(({ expiresIn, accessToken, refreshToken, scope, ...item }) => ({
      ...item,
      ...(item.scopes === undefined && scope !== undefined ? { scopes: scope } : {}),
      // absent tokens keep the stored ones; null clears them
      ...(accessToken !== undefined ? { accessToken: seal(accessToken) } : {}),
      ...(refreshToken !== undefined ? { refreshToken: seal(refreshToken) } : {}),
      ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
    }));
    return items(await app.db.transaction((tx) => saveRows(tx, contentProviderAuths, req.auth.churchId, rows)));
  });
  // B1Admin's PKCE sign-in (ContentProviderAuthHelper.exchangeCode): the provider's code is exchanged here, where
  // the client secret is, and the tokens are kept for the ministry; the same access as saving tokens directly.
  app.post(`${base}/exchange`, { ...read, schema: { body: ExchangeBody, response: { 200: ContentProviderAuth } } }, async (req) => {
    const provider = providerOf(doing.deps(app).providers, req.body.providerId);
    if (!provider.exchangeCode) throw badRequest('providerId', `${provider.name} has no sign-in to exchange a code from`);
    const token = await provider.exchangeCode(req.body.code, req.body.codeVerifier, req.body.redirectUri);
    return toAuthItem(await linkProvider(app.db, app.deps.secrets, req.auth.churchId, req.body.ministryId, provider.id, token));
  });
  // ContentProviderAuthHelper.getValidAuth: the stored token has expired; refresh it now and answer the record.
  app.post(`${base}/refresh`, { ...read, schema: { body: RefreshBody, response: { 200: ContentProviderAuth } } }, async (req) => {
    const provider = providerOf(doing.deps(app).providers, req.body.providerId);
    return toAuthItem(await refreshProvider(app.db, app.deps.secrets, req.auth.churchId, req.body.ministryId, provider));
  });
  app.delete(`${base}/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, contentProviderAuths, req.auth.churchId, req.params.id);
    return {};
  });
}
