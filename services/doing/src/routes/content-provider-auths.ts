import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, batchOf, deleteRow, getRow, listRows, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { contentProviderAuths } from '../db/schema';
import { authsOf, toAuthItem, type ProviderAuthRow } from '../repos/provider-auths';
import { ContentProviderAuth, ContentProviderAuthSave, IdsQuery, ProviderId } from '../schemas';

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
    const rows = req.body.map(({ expiresIn, accessToken, refreshToken, ...item }) => ({
      ...item,
      // absent tokens keep the stored ones; null clears them
      ...(accessToken !== undefined ? { accessToken: seal(accessToken) } : {}),
      ...(refreshToken !== undefined ? { refreshToken: seal(refreshToken) } : {}),
      ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
    }));
    return items(await app.db.transaction((tx) => saveRows(tx, contentProviderAuths, req.auth.churchId, rows)));
  });
  app.delete(`${base}/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, contentProviderAuths, req.auth.churchId, req.params.id);
    return {};
  });
}
