import { createSigner, createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';
import type { ApiName } from './permissions';

/** What a login token carries (spec: id, churchId, personId, per-API permissions, leaderGroupIds). */
export interface Claims {
  /** user id */
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  churchId: string;
  personId: string | null;
  /** the person's membership status in this church; `Member` access means Member or Staff */
  membershipStatus?: string | null;
  /** canonical permission keys (`People.View`, `Attendance.ViewSummary`) per API */
  permissions: Partial<Record<ApiName, string[]>>;
  leaderGroupIds: string[];
  /** set on tokens minted by OAuth; the scopes that narrowed the permissions */
  scope?: string;
  /** set on tokens minted for an app's grant (OAuth): revoking the grant (a stamp under this id) refuses them */
  gid?: string;
  /** when the token was minted, in milliseconds (`iat` is whole seconds): what revocation stamps compare with */
  ts?: number;
  iat?: number;
  exp?: number;
}

/** Church-scoped login tokens last 2 days (NOTES.md); OAuth access tokens 12 hours (spec). */
export const LOGIN_TOKEN_SECONDS = 2 * 24 * 3600;
export const OAUTH_TOKEN_SECONDS = 12 * 3600;

/** Signs HS256 tokens with the shared secret; `expiresIn` in seconds. */
export function createTokenSigner(secret: string) {
  const signers = new Map<number, (payload: object) => string>();
  return (claims: Omit<Claims, 'iat' | 'exp' | 'ts'>, expiresInSeconds = LOGIN_TOKEN_SECONDS): string => {
    let sign = signers.get(expiresInSeconds);
    if (!sign) {
      sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: expiresInSeconds * 1000 });
      signers.set(expiresInSeconds, sign);
    }
    return sign({ ...claims, ts: Date.now() });
  };
}

/** When a token was minted, in milliseconds (tokens from before `ts` existed: their `iat`). */
export function mintedAt(claims: Pick<Claims, 'ts' | 'iat'>): number {
  return typeof claims.ts === 'number' ? claims.ts : (claims.iat ?? 0) * 1000;
}

/** Verified tokens kept at most (about 1.3 KB of text each): a church's staff, its members' apps and the services. */
const VERIFIED_TOKENS = 10_000;

/**
 * Verifies HS256 tokens. Verification is the largest fixed cost of an authenticated request, so a token seen
 * before is answered from a cache of verified tokens, keyed by the token's whole text (nothing but that exact
 * token can hit its entry) and checked against its `exp` on every hit. fast-jwt's own cache is off: it keys by a
 * SHA-256 of the token, which cost about a tenth of membership's CPU on `people/:id`, and the option to key it
 * otherwise makes fast-jwt print a security warning on every start (GHSA-rp9m-7r4c-75qg). A refused token is
 * not kept: each try is verified again.
 */
export function createTokenVerifier(secret: string): (token: string) => Claims {
  // A token without `exp` never expires: refused, like one without the claims every route reads.
  const verify = createVerifier({ key: secret, algorithms: ['HS256'], requiredClaims: ['exp', 'iat'] }) as (token: string) => Claims;
  const verified = new LRUCache<string, Claims>({ max: VERIFIED_TOKENS });
  return (token) => {
    const known = verified.get(token);
    if (known && known.exp! * 1000 > Date.now()) return known;
    if (known) verified.delete(token);
    const claims = verify(token);
    verified.set(token, claims);
    return claims;
  };
}
