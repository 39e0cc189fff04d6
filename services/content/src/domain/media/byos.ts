import { lookup } from 'node:dns/promises';
import type { z } from 'zod';
import { badRequest, createStorage, isPublicAddress, notFound, type Storage } from '@church/common';
import { disableOthers, enabledProvider, listProviders, providerById, upsertProvider, type StorageProviderRow } from '../../repos/media/storage-providers';
import type { StorageProviderSave } from '../../schemas/media';
import type { ContentDeps } from '../../deps';
import { S3Settings } from '../../lib/storage';

/** A provider's settings text as the church saved it (400 naming `param` unless it is JSON of an S3 location). */
export function parseSettings(text: string | null | undefined, param = 'settings'): S3Settings {
  let value: unknown = {};
  try {
    value = text ? JSON.parse(text) : {};
  } catch {
    throw badRequest(param, 'must be JSON text of an object');
  }
  const parsed = S3Settings.safeParse(value);
  if (!parsed.success) throw badRequest(param, 'must be {endpoint, region, bucket, publicBase}');
  return parsed.data;
}

/**
 * The endpoint of a church's bucket is an address the church chose, which the service then connects to: it must
 * be a public http(s) address (every address its name resolves to), unless STORAGE_ALLOW_PRIVATE_ENDPOINTS is
 * `true` (development, the loopback fake in tests). Checked when saved and when the storage is built, and, what
 * holds, by every connection to it (the S3 client's lookup), which connects to the address it checked.
 */
export async function checkEndpoint(deps: Pick<ContentDeps, 'config'>, endpoint: string, param = 'settings.endpoint'): Promise<void> {
  if (!endpoint) return;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw badRequest(param, 'must be an http(s) address');
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) throw badRequest(param, 'must be an http(s) address');
  if (deps.config.STORAGE_ALLOW_PRIVATE_ENDPOINTS === 'true') return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (!addresses.length || addresses.some((a) => !isPublicAddress(a.address))) throw badRequest(param, 'must be a public http(s) address');
}

const built = new Map<string, Promise<Storage>>();

/** What choosing a church's storage reads: its provider rows, the platform's storage, the config and the secret box. */
export type StorageDeps = Pick<ContentDeps, 'db' | 'storage' | 'config' | 'secrets'>;

/** The storage a provider row writes to (kept per row version, so a changed secret builds a new client). */
export async function storageOf(deps: Pick<ContentDeps, 'config' | 'secrets'>, row: StorageProviderRow): Promise<Storage> {
  const key = `${row.id}\n${row.updatedAt.getTime()}`;
  let storage = built.get(key);
  if (!storage) {
    const settings = parseSettings(row.settings);
    const anyAddress = deps.config.STORAGE_ALLOW_PRIVATE_ENDPOINTS === 'true';
    storage = checkEndpoint(deps, settings.endpoint).then(() =>
      // every connection checks the addresses it resolves and connects to the one checked (createStorage's allowAddress)
      createStorage({
        bucket: settings.bucket,
        region: settings.region || 'us-east-1',
        endpoint: settings.endpoint || undefined,
        accessKeyId: row.apiKey ? deps.secrets.decrypt(row.apiKey) : undefined,
        secretAccessKey: row.apiSecret ? deps.secrets.decrypt(row.apiSecret) : undefined,
        localDir: '',
        publicBaseUrl: settings.publicBase,
        allowAddress: anyAddress ? () => true : isPublicAddress,
        endpointParam: 'settings.endpoint',
      }),
    );
    built.set(key, storage);
    storage.catch(() => built.delete(key));
  }
  return storage;
}

/** Where the church's new files go: its enabled S3 storage, else the platform's. */
export async function storageFor(deps: StorageDeps, churchId: string): Promise<{ storage: Storage; providerId: string | null }> {
  const row = await enabledProvider(deps.db, churchId);
  if (!row || row.provider !== 's3') return { storage: deps.storage, providerId: null };
  return { storage: await storageOf(deps, row), providerId: row.id };
}

/** The storage a stored file was written to (its provider's, even when no longer enabled; else the platform's). */
export async function storageOfFile(deps: StorageDeps, churchId: string, providerId: string | null): Promise<Storage> {
  if (!providerId) return deps.storage;
  const row = await providerById(deps.db, churchId, providerId);
  return row ? storageOf(deps, row) : deps.storage;
}

/** What the apps show for a stored secret; sent back unchanged it keeps the stored one. */
export const MASK = '********';

/**
 * Saves a church's storage providers (`param(i, field)` names a field of item `i`). Checked before anything is
 * written: only s3 takes files, an enabled one needs a bucket and a public base, and its endpoint is an address
 * the service may connect to. Secrets are kept encrypted (the mask keeps the stored one); the enabled provider
 * disables the others, in one transaction.
 */
export async function saveProviders(
  deps: Pick<ContentDeps, 'db' | 'config' | 'secrets'>,
  churchId: string,
  items: Array<z.output<typeof StorageProviderSave>>,
  param: (i: number, field: string) => string,
): Promise<StorageProviderRow[]> {
  const existing = await listProviders(deps.db, churchId);
  for (const [i, item] of items.entries()) {
    if (item.id && !existing.some((r) => r.id === item.id)) throw notFound('Storage provider');
    if (item.provider !== 's3') {
      if (item.enabled) throw badRequest(param(i, 'provider'), 'only s3 storage can take the church’s files here');
      continue;
    }
    const settings = parseSettings(item.settings, param(i, 'settings'));
    if (item.enabled && (!settings.bucket || !settings.publicBase)) throw badRequest(param(i, 'settings'), 'bucket and publicBase are required');
    if (settings.publicBase && !/^https?:\/\//.test(settings.publicBase)) throw badRequest(param(i, 'settings'), 'publicBase must be an http(s) address');
    await checkEndpoint(deps, settings.endpoint, param(i, 'settings'));
  }
  const secret = (value: string | null | undefined, old: string | null | undefined) => (!value || value === MASK ? (old ?? null) : deps.secrets.encrypt(value));
  return deps.db.transaction(async (tx) => {
    const out: StorageProviderRow[] = [];
    for (const item of items) {
      const old = existing.find((r) => (item.id ? r.id === item.id : r.provider === item.provider));
      const row = await upsertProvider(tx, churchId, item.provider, {
        enabled: item.enabled ?? old?.enabled ?? false,
        settings: item.settings ?? old?.settings ?? null,
        apiKey: secret(item.apiKey, old?.apiKey),
        apiSecret: secret(item.apiSecret, old?.apiSecret),
      });
      if (row.enabled) await disableOthers(tx, churchId, row.id);
      out.push(row);
    }
    return out;
  });
}
