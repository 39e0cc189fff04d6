import { lookup } from 'node:dns/promises';
import { z } from 'zod';
import { badRequest, createStorage, isPublicAddress, type Storage } from '@church/common';
import { enabledProvider, providerById, type StorageProviderRow } from '../../repos/media/storage-providers';
import type { ContentDeps } from '../../deps';

/** A church's own S3-compatible storage: where it is (the key and secret are kept apart, encrypted). */
export const S3Settings = z.object({
  endpoint: z.string().trim().max(500).optional().default(''),
  region: z.string().trim().max(50).optional().default(''),
  bucket: z.string().trim().max(255).optional().default(''),
  publicBase: z.string().trim().max(500).optional().default(''),
});
export type S3Settings = z.output<typeof S3Settings>;

/** The providers a church can link; only `s3` takes files here (the drives are linked, not written to yet). */
export const OAUTH_PROVIDERS = ['googledrive', 'dropbox', 'onedrive'] as const;
export const PROVIDERS = ['s3', ...OAUTH_PROVIDERS] as const;

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
