import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, Id, REMOTE, crud, itemParam, rowsByIds, type ZodTypeProvider } from '@church/common';
import { contentProviderAuths } from '../db/schema';
import { doingDeps } from '../deps';
import { providerOf } from '../providers';
import { authsOf, refreshProvider, toAuthItem } from '../repos/provider-auths';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { editableMinistries, ministryAccessOf, ministryEditor } from './access';
import { exchangeCode } from '../domain/provider-auths';
import { ContentProviderAuth, ContentProviderAuthSave, ExchangeBody, IdsQuery, ProviderId, RefreshBody } from '../schemas';

const base = '/doing/contentProviderAuths';
const List = z.array(ContentProviderAuth);

/**
 * `/doing/contentProviderAuths`: OAuth records per ministry and provider; tokens sealed at rest, never answered. Read
 * by anyone signed in (spec); a ministry's sign-ins are made and removed by holders of Plans.Edit and the ministry's
 * team (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const edit = { config: { access: ministryEditor } };
  const seal = (v: string | null | undefined) => (v ? app.deps.secrets.encrypt(v) : v);
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), contentProviderAuths.ministryId, 'ministry', req.auth.churchId);

  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, contentProviderAuths, req.auth.churchId, req.query.ids)).map(toAuthItem));
  app.get(`${base}/ministry/:ministryId`, { ...read, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, async (req) => (await authsOf(app.db, req.auth.churchId, req.params.ministryId)).map(toAuthItem));
  app.get(`${base}/ministry/:ministryId/:providerId`, { ...read, schema: { params: z.object({ ministryId: Id, providerId: ProviderId }), response: { 200: List } } }, async (req) =>
    (await authsOf(app.db, req.auth.churchId, req.params.ministryId, req.params.providerId)).map(toAuthItem),
  );
  crud(app, {
    path: base,
    name: 'Content provider auth',
    table: contentProviderAuths,
    item: ContentProviderAuth,
    save: ContentProviderAuthSave,
    view: anyUser,
    edit: ministryEditor,
    orderBy: contentProviderAuths.providerId,
    // the ministry is one of the church's groups (membership's)
    references: { ministryId: REMOTE.groups },
    toRow: ({ expiresIn, accessToken, refreshToken, scope: appScope, ...item }) => ({
      ...item,
      ...(item.scopes === undefined && appScope !== undefined ? { scopes: appScope } : {}),
      // absent tokens keep the stored ones; null clears them
      ...(accessToken !== undefined ? { accessToken: seal(accessToken) } : {}),
      ...(refreshToken !== undefined ? { refreshToken: seal(refreshToken) } : {}),
      ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
    }),
    toItem: toAuthItem,
    scope: { where: (req, verb) => (verb === 'list' || verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    afterSave: (rows, req, tx) => refuseOutside(tx, contentProviderAuths, req.auth.churchId, rows.map((r) => r.id), scope(req), outsideMinistry),
    changes: { entityType: 'contentProviderAuth' },
  });
  // B1Admin's PKCE sign-in (ContentProviderAuthHelper.exchangeCode): the provider's code is exchanged here, where
  // the client secret is, and the tokens are kept for the ministry.
  app.post(`${base}/exchange`, { ...edit, schema: { body: ExchangeBody, response: { 200: ContentProviderAuth } } }, (req) =>
    exchangeCode(doingDeps(app), actorOf(req), ministryAccessOf(app.deps, req), req.body, (i, f) => itemParam(req, i, f)),
  );
  // ContentProviderAuthHelper.getValidAuth: the stored token has expired; refresh it now and answer the record.
  app.post(`${base}/refresh`, { ...edit, schema: { body: RefreshBody, response: { 200: ContentProviderAuth } } }, async (req) => {
    await ministryAccessOf(app.deps, req).ministry(req.body.ministryId);
    const provider = providerOf(doingDeps(app).providers, req.body.providerId);
    return toAuthItem(await refreshProvider(app.db, app.deps.secrets, req.auth.churchId, req.body.ministryId, provider));
  });
}
