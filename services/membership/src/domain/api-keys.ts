import { randomBytes, timingSafeEqual } from 'node:crypto';
import { unauthorized, type Db } from '@church/common';
import type { MembershipDeps } from '../deps';
import { apiKeyByPrefix, touchApiKey, type ApiKeyRow } from '../repos/api-keys';
import { clock } from './clock';
import { scopedClaims } from './oauth';
import { OAUTH_SCOPES } from './oauth-scopes';
import { sha256 } from './secrets';

/** Scopes a key may carry: the OAuth scopes that grant something (`offline_access` means nothing for a key). */
export const KEY_SCOPES = [...OAUTH_SCOPES.entries()].filter(([, s]) => s.permissions.length).map(([name, s]) => ({ name, description: s.description }));
export const KEY_SCOPE_NAMES = new Set(KEY_SCOPES.map((s) => s.name));

const INVALID = 'Invalid API key';

/** A new key: what is shown once (`cak_<prefix>.<secret>`) and what is stored (the prefix and sha256 of the secret). */
export function newApiKey(): { key: string; prefix: string; keyHash: string } {
  const prefix = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { key: `cak_${prefix}.${secret}`, prefix, keyHash: sha256(secret) };
}

/** The stored key a presented one names, when its secret matches and it has not expired; else 401. */
async function keyOf(db: Db, presented: string): Promise<ApiKeyRow> {
  const m = /^cak_([0-9a-f]{12})\.([A-Za-z0-9_-]{20,100})$/.exec(presented.trim());
  if (!m) throw unauthorized(INVALID);
  const row = await apiKeyByPrefix(db, m[1]!);
  const given = Buffer.from(sha256(m[2]!), 'hex');
  const stored = Buffer.from(row?.keyHash ?? '00'.repeat(32), 'hex');
  if (!row || given.length !== stored.length || !timingSafeEqual(given, stored)) throw unauthorized(INVALID);
  if (row.expiresAt && row.expiresAt <= clock.now()) throw unauthorized('This API key has expired');
  return row;
}

/**
 * Exchanges a key for a short-lived bearer token valid on every service: the key's user's permissions in the key's
 * church as they are now, narrowed to its scopes. The token's `id` is the key's, so revoking the key (a stamp on
 * it) refuses the token everywhere at once; its `scope` keeps it out of account routes and `login {jwt}`.
 */
export async function exchangeApiKey(deps: MembershipDeps, presented: string): Promise<{ token: string; expiresIn: number; expiresAt: Date; scope: string; churchId: string }> {
  const key = await keyOf(deps.db, presented);
  const granted = await scopedClaims(deps.db, { userId: key.userId, churchId: key.churchId, scopes: key.scopes });
  if (typeof granted === 'string') throw unauthorized('The user of this API key no longer belongs to its church');
  const lifetime = key.expiresAt ? Math.min(deps.config.API_KEY_TOKEN_SECONDS, Math.floor((key.expiresAt.getTime() - clock.now().getTime()) / 1000)) : deps.config.API_KEY_TOKEN_SECONDS;
  const token = deps.signToken({ ...granted.claims, id: key.id, personId: key.personId ?? granted.claims.personId }, Math.max(1, lifetime));
  await touchApiKey(deps.db, key.id);
  return { token, expiresIn: lifetime, expiresAt: new Date(Date.now() + lifetime * 1000), scope: key.scopes.join(' '), churchId: key.churchId };
}
