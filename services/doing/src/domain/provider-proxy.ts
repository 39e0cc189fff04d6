import { notConfigured, providerFailed, type Db, type SecretBox } from '@church/common';
import { ProviderUnauthorized, type ContentProvider } from '../providers/content-provider';
import { openAuth, saveTokens } from '../repos/provider-auths';

export type ProxyOperation = 'browse' | 'getPresentations' | 'getPlaylist' | 'getInstructions' | 'getExpandedInstructions';

/** Tokens this close to expiry are refreshed before the call rather than risk a refusal halfway. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * One proxied call: the ministry's token for the provider (refreshed first when expired, and the new one
 * saved), the call, and on a 401 one refresh and one retry. Provider failures are 502.
 */
export async function callProvider(
  ctx: { db: Db; secrets: SecretBox; provider: ContentProvider; churchId: string; ministryId: string },
  operation: ProxyOperation,
  path: string,
  resolution?: number,
): Promise<unknown> {
  const { provider } = ctx;
  const auth = await openAuth(ctx.db, ctx.secrets, ctx.churchId, ctx.ministryId, provider.id);
  if (!auth?.accessToken && provider.requiresAuth) throw notConfigured(`${provider.name} for this ministry`, 'contentProviderAuths');
  let token = auth?.accessToken ?? null;
  let refreshed = false;
  const refresh = async () => {
    if (!auth?.refreshToken) return false;
    const fresh = await provider.refresh(auth.refreshToken);
    await saveTokens(ctx.db, ctx.secrets, auth.row.id, fresh);
    token = fresh.accessToken;
    refreshed = true;
    return true;
  };
  if (auth?.row.expiresAt && auth.row.expiresAt.getTime() - EXPIRY_MARGIN_MS <= Date.now()) await refresh();
  const run = () => {
    switch (operation) {
      case 'browse':
        return provider.browse(path, token);
      case 'getPresentations':
        return provider.getPresentations(path, token);
      case 'getPlaylist':
        return provider.getPlaylist(path, token, resolution);
      case 'getInstructions':
        return provider.getInstructions(path, token);
      case 'getExpandedInstructions':
        return provider.getExpandedInstructions(path, token);
    }
  };
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ProviderUnauthorized)) throw err;
    if (!refreshed && (await refresh())) {
      try {
        return await run();
      } catch (again) {
        if (again instanceof ProviderUnauthorized) throw providerFailed(provider.name, 'refused the refreshed token');
        throw again;
      }
    }
    throw providerFailed(provider.name, 'refused the stored token; authorize the ministry again');
  }
}
