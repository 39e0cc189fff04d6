import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { DAY_MS, badRequest, notFound, reportChanges, unauthorized, type Actor, type Db } from '@church/common';
import type { MembershipDeps } from '../deps';
import { apiKeyByPrefix, deleteApiKey, insertApiKey, touchApiKey, type ApiKeyRow } from '../repos/api-keys';
import { clock } from './clock';
import { scopedClaims } from './oauth/tokens';
import { OAUTH_SCOPES, parseScopes } from './oauth/scopes';
import { announce, revokeTokens } from './revocations';
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

/** What the audit log keeps of a key (never its hash). */
const audited = (k: ApiKeyRow) => ({ name: k.name, prefix: k.prefix, scopes: k.scopes, userId: k.userId, expiresAt: k.expiresAt });

/**
 * Makes an API key for the caller in the church, within the scopes asked (a list, or a space- or comma-separated string); a date
 * alone as `expiresAt` is the last day the key works (UTC), an instant is when it stops. Answers the row and the
 * key itself, which is shown once.
 */
export async function createApiKey(
  deps: Pick<MembershipDeps, 'db' | 'module' | 'queue'>,
  actor: Actor,
  input: { name: string; scopes: string | string[]; expiresAt?: Date | null },
): Promise<{ row: ApiKeyRow; key: string }> {
  const { churchId, id: userId, personId, scope } = actor;
  // A key made with a scoped token (another key, an OAuth client) could outlive what made it: only people make keys.
  if (scope !== undefined) throw unauthorized('API keys are made by a signed-in person, not with a scoped token');
  const scopes = parseScopes(input.scopes);
  if (!scopes.length) throw badRequest('scopes', 'choose at least one scope');
  const unknown = scopes.filter((s) => !KEY_SCOPE_NAMES.has(s));
  if (unknown.length) throw badRequest('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  const given = input.expiresAt;
  // A date alone is the last day the key works (UTC); an instant is when it stops.
  const expiresAt = given ? (given.getUTCHours() + given.getUTCMinutes() + given.getUTCSeconds() === 0 ? new Date(given.getTime() + DAY_MS) : given) : null;
  if (expiresAt && expiresAt <= clock.now()) throw badRequest('expiresAt', 'must be in the future');
  const made = newApiKey();
  const row = await deps.db.transaction(async (tx) => {
    const saved = await insertApiKey(tx, { id: randomUUID(), churchId, userId, personId, name: input.name, prefix: made.prefix, keyHash: made.keyHash, scopes, expiresAt });
    await reportChanges(deps, [{ churchId, entityType: 'apiKey', entityId: saved.id, action: 'created', after: audited(saved) }], { req: actor, tx });
    return saved;
  });
  return { row, key: made.key };
}

/** Deletes a key of the church; every token minted from it is refused at once (a revocation stamp). */
export async function revokeApiKey(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'revocations'>, actor: Actor, id: string): Promise<void> {
  const { churchId } = actor;
  const stamps = await deps.db.transaction(async (tx) => {
    const gone = await deleteApiKey(tx, churchId, id);
    if (!gone) throw notFound('API key');
    await reportChanges(deps, [{ churchId, entityType: 'apiKey', entityId: gone.id, action: 'destroyed', before: audited(gone) }], { req: actor, tx });
    return revokeTokens(tx, [{ userId: gone.id }]);
  });
  await announce(deps, stamps);
}
