import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { IdParams, badRequest, batchOf, itemParam, notConfigured, notFound, type ZodTypeProvider } from '@church/common';
import { MASK, saveProviders } from '../../domain/media/byos';
import type { OAUTH_PROVIDERS } from '../../lib/storage';
import { contentDeps } from '../../deps';
import { fetchJson } from '@church/common';
import {
  deleteProvider,
  enabledProvider,
  filesIn,
  listProviders,
  providerById,
  setEnabled,
  upsertProvider,
  usedBytes,
  type StorageProviderRow,
} from '../../repos/media/storage-providers';
import { StorageExchange, StorageProvider, StorageProviderDeleted, StorageProviders, StorageProviderSave, StorageStatus } from '../../schemas/media';

const base = '/content/storage';
const edit = requires('Content.Edit');
const TOKEN_URLS: Record<(typeof OAUTH_PROVIDERS)[number], string> = {
  googledrive: 'https://oauth2.googleapis.com/token',
  dropbox: 'https://api.dropboxapi.com/oauth2/token',
  onedrive: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
};

/** Never the credentials: only whether they are set. */
const masked = (p: StorageProviderRow) => ({
  id: p.id,
  churchId: p.churchId,
  provider: p.provider,
  enabled: p.enabled,
  settings: p.settings,
  apiKey: p.apiKey ? MASK : '',
  apiSecret: p.apiSecret ? MASK : '',
  connected: Boolean(p.accessToken),
});

/** `/content/storage`: a church's own storage (B1Admin StorageSettingsEdit.tsx); new files go to the enabled one. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/providers`, { config: { access: edit }, schema: { response: { 200: StorageProviders } } }, async (req) => (await listProviders(app.db, req.auth.churchId)).map(masked));

  app.post(`${base}/providers`, { config: { access: edit }, schema: { body: batchOf(StorageProviderSave), response: { 200: StorageProviders } } }, async (req) =>
    (await saveProviders(contentDeps(app), req.auth.churchId, req.body, (i, field) => itemParam(req, i, field))).map(masked),
  );

  // Files still in the storage keep its credentials (they are read and deleted through it): it is only disabled.
  app.delete(
    `${base}/providers/:id`,
    { config: { access: edit }, schema: { params: IdParams, response: { 200: StorageProviderDeleted } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const row = await providerById(app.db, churchId, req.params.id);
      if (!row) throw notFound('Storage provider');
      const inUse = await filesIn(app.db, churchId, row.id);
      if (inUse > 0) {
        await setEnabled(app.db, churchId, row.id, false);
        return { disabled: true, fileCount: inUse };
      }
      await deleteProvider(app.db, churchId, row.id);
      return {};
    },
  );

  // Read by the apps' file screens (B1Admin FilesManager, B1App group resources): which storage takes new files.
  app.get(`${base}/status`, { config: { access: anyUser }, schema: { response: { 200: StorageStatus } } }, async (req) => {
    const row = await enabledProvider(app.db, req.auth.churchId);
    return { provider: row?.provider ?? 'default', usedBytes: await usedBytes(app.db, req.auth.churchId) };
  });

  // The OAuth code exchange of a drive (the token endpoint needs the client secret): tokens kept encrypted.
  app.post(`${base}/exchange`, { config: { access: edit }, schema: { body: StorageExchange, response: { 200: StorageProvider } } }, async (req) => {
    const { provider, code, codeVerifier, redirectUri } = req.body;
    const c = contentDeps(app).config;
    const settings = new Map([
      ['googledrive', [c.BYOS_GOOGLEDRIVE_CLIENT_ID, c.BYOS_GOOGLEDRIVE_CLIENT_SECRET, c.BYOS_GOOGLEDRIVE_TOKEN_URL]],
      ['dropbox', [c.BYOS_DROPBOX_CLIENT_ID, c.BYOS_DROPBOX_CLIENT_SECRET, c.BYOS_DROPBOX_TOKEN_URL]],
      ['onedrive', [c.BYOS_ONEDRIVE_CLIENT_ID, c.BYOS_ONEDRIVE_CLIENT_SECRET, c.BYOS_ONEDRIVE_TOKEN_URL]],
    ]);
    const [clientId, clientSecret, tokenUrl] = settings.get(provider)!;
    const name = `BYOS_${provider.toUpperCase()}`;
    if (!clientId) throw notConfigured(`Linking ${provider}`, `${name}_CLIENT_ID`);
    if (!clientSecret) throw notConfigured(`Linking ${provider}`, `${name}_CLIENT_SECRET`);
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri, client_id: clientId, client_secret: clientSecret });
    const { status, data } = await fetchJson<{ access_token?: string; refresh_token?: string; expires_in?: number }>(`The ${provider} sign-in`, tokenUrl || TOKEN_URLS[provider], {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    });
    if (status === 404 || !data?.access_token) throw badRequest('code', 'the sign-in could not be completed');
    const row = await upsertProvider(app.db, req.auth.churchId, provider, {
      accessToken: app.deps.secrets.encrypt(data.access_token),
      ...(data.refresh_token ? { refreshToken: app.deps.secrets.encrypt(data.refresh_token) } : {}),
      tokenExpiresAt: data.expires_in ? new Date(Date.now() + data.expires_in * 1000) : null,
    });
    return masked(row);
  });
}
