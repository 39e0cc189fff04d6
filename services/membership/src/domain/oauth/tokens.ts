import { createHash } from 'node:crypto';
import { OAUTH_TOKEN_SECONDS, type Claims } from '@church/auth';
import type { DbOrTx, ServiceDeps } from '@church/common';
import { findChurch, findUserChurch } from '../../repos/churches';
import { findClientByClientId, insertCode, insertRefreshToken, spendCode, spendRefreshToken, type OauthClientRow } from '../../repos/oauth';
import { findUserById } from '../../repos/users';
import { clock, secondsFromNow } from '../clock';
import { narrowPermissions, parseScopes, unknownScopes } from './scopes';
import { serverPermissions } from '../../repos/roles';
import { churchContexts, holdsServerAdmin, tokenPermissions } from '../roles/permissions';
import { matchesHash, randomSecret, sha256 } from '../secrets';

/** Authorization codes live 10 minutes; refresh tokens 30 days, rotated on every use. */
export const CODE_SECONDS = 600;
export const REFRESH_SECONDS = 30 * 24 * 3600;

/** An error of the OAuth endpoints, answered as RFC 6749 §5.2 says: `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly statusCode = 400,
  ) {
    super(description);
  }
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** The client with this client id; with `secret` also checks it (confidential clients). */
export async function authenticateClient(db: DbOrTx, clientId: string | undefined, secret?: string | null): Promise<OauthClientRow> {
  const client = clientId ? await findClientByClientId(db, clientId) : undefined;
  if (!client) throw new OAuthError('invalid_client', 'Unknown client');
  if (secret !== undefined && !matchesHash(secret ?? '', client.clientSecretHash)) throw new OAuthError('invalid_client', 'Client authentication failed');
  return client;
}

/** Requested scopes, which must all be registered for the client; none asked means all of the client's. */
export function grantedScopes(client: OauthClientRow, scope: string | undefined): string[] {
  const asked = parseScopes(scope);
  if (!asked.length) return client.scopes;
  const bad = [...unknownScopes(asked), ...asked.filter((s) => !client.scopes.includes(s))];
  if (bad.length) throw new OAuthError('invalid_scope', `Scope not allowed for this client: ${[...new Set(bad)].join(' ')}`);
  return asked;
}

/** Issues an authorization code for the user's current church, bound to the client and redirect_uri. */
export async function createCode(db: DbOrTx, input: { client: OauthClientRow; userId: string; churchId: string; redirectUri: string; scopes: string[] }): Promise<string> {
  const code = randomSecret();
  await insertCode(db, {
    codeHash: sha256(code),
    clientId: input.client.clientId,
    userId: input.userId,
    churchId: input.churchId,
    redirectUri: input.redirectUri,
    scopes: input.scopes,
    expiresAt: secondsFromNow(CODE_SECONDS),
  });
  return code;
}

export async function exchangeCode(db: DbOrTx, deps: ServiceDeps, input: { code: string; clientId: string; redirectUri: string }): Promise<TokenResponse> {
  const row = await spendCode(db, sha256(input.code), clock.now());
  if (!row || row.clientId !== input.clientId || row.redirectUri !== input.redirectUri) {
    throw new OAuthError('invalid_grant', 'The code is invalid, used, expired, or was issued to another client or redirect_uri');
  }
  return issueTokens(db, deps, { userId: row.userId, churchId: row.churchId, clientId: row.clientId, scopes: row.scopes });
}

export async function refresh(db: DbOrTx, deps: ServiceDeps, input: { refreshToken: string; clientId: string }): Promise<TokenResponse> {
  const row = await spendRefreshToken(db, sha256(input.refreshToken), clock.now());
  if (!row || row.clientId !== input.clientId) throw new OAuthError('invalid_grant', 'The refresh token is invalid, used or expired');
  return issueTokens(db, deps, { userId: row.userId, churchId: row.churchId, clientId: row.clientId, scopes: row.scopes });
}

/**
 * The revocation key of an app's grant (a client, for a user, in a church): its access tokens carry it as `gid`,
 * so disconnecting the app refuses the tokens it already holds, across refresh-token rotations.
 */
export function grantKey(grant: { clientId: string; userId: string; churchId: string }): string {
  // A UUID derived from the three (stamps are kept by uuid), never equal to a user's or a key's id.
  const h = createHash('sha256').update(`grant|${grant.clientId}|${grant.userId}|${grant.churchId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * An access token (12 h) and a refresh token for a user in a church. Permissions are recomputed at every issue,
 * so a user who lost a role or left the church cannot refresh their way back.
 */
export async function issueTokens(db: DbOrTx, deps: ServiceDeps, grant: { userId: string; churchId: string; clientId: string; scopes: string[] }): Promise<TokenResponse> {
  const claims = await scopedClaims(db, grant);
  if (claims === 'gone') throw new OAuthError('invalid_grant', 'The user or church of this grant no longer exists');
  if (claims === 'left') throw new OAuthError('invalid_grant', 'The user no longer belongs to this church');
  const { user, church } = claims;
  const refreshToken = randomSecret();
  await insertRefreshToken(db, {
    tokenHash: sha256(refreshToken),
    clientId: grant.clientId,
    userId: user.id,
    churchId: church.id,
    scopes: grant.scopes,
    expiresAt: secondsFromNow(REFRESH_SECONDS),
  });
  return {
    access_token: deps.signToken({ ...claims.claims, gid: grantKey(grant) }, OAUTH_TOKEN_SECONDS),
    token_type: 'Bearer',
    expires_in: OAUTH_TOKEN_SECONDS,
    refresh_token: refreshToken,
    scope: grant.scopes.join(' '),
  };
}

/**
 * The claims of a token acting for a user in a church within scopes (OAuth access tokens, API keys): the user's
 * permissions there as they are now, narrowed to the scopes; no membership status or led groups, so `Member` and
 * `Group Leader` access needs a login token. `gone`: the user or church no longer exists; `left`: the user is no
 * longer linked to the church (or it is archived), unless a server admin.
 */
export async function scopedClaims(
  db: DbOrTx,
  grant: { userId: string; churchId: string; scopes: string[] },
): Promise<'gone' | 'left' | { user: { id: string; email: string }; church: { id: string }; claims: Omit<Claims, 'iat' | 'exp'> }> {
  const user = await findUserById(db, grant.userId);
  const church = await findChurch(db, grant.churchId);
  if (!user || !church) return 'gone';
  const server = await serverPermissions(db, user.id);
  const admin = holdsServerAdmin(server);
  const link = (await findUserChurch(db, user.id, church.id)) ?? null;
  if ((!link || church.archivedDate) && !admin) return 'left';
  const [ctx] = await churchContexts(db, user.id, [{ church, uc: link }], server);
  return {
    user,
    church,
    claims: {
      id: user.id,
      email: user.email,
      churchId: church.id,
      personId: ctx?.person.id ?? null,
      membershipStatus: null,
      permissions: tokenPermissions(narrowPermissions(ctx?.permissions ?? [], grant.scopes)),
      leaderGroupIds: [],
      scope: grant.scopes.join(' '),
    },
  };
}
