import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';

/**
 * API keys (`cak_…`, made and revoked in membership) work as bearer tokens on every service: a service that is
 * sent one exchanges it for the short-lived token membership mints from it (the key's user's permissions narrowed
 * to its scopes), and keeps that token until a minute before it expires, keyed by a hash of the key (the key itself
 * is never kept). Every request still checks the kept token's revocation, so a deleted key is refused at once.
 */
export const API_KEY_PREFIX = 'cak_';

/** Membership's answer to `POST /membership/apiKeys/token`. */
export const apiKeyTokenContract = {
  module: 'membership' as const,
  path: '/membership/apiKeys/token',
  body: z.object({ key: z.string().min(1).max(300) }),
  answer: z.object({ token: z.string(), expiresAt: z.coerce.date() }),
};

/** Asks membership for a key's token: answers it with when it expires, or throws when the key is refused. */
export type ApiKeySource = (key: string) => Promise<{ token: string; expiresAt: Date }>;

/** The cache in front of `source`: one exchange per key per token lifetime, concurrent requests sharing it. */
export function apiKeyTokens(source: ApiKeySource, max = 5_000) {
  const kept = new LRUCache<string, Promise<{ token: string; until: number }>>({ max });
  return async (key: string): Promise<string | undefined> => {
    const id = createHash('sha256').update(key).digest('base64url');
    let entry = kept.get(id);
    if (entry) {
      const known = await entry.catch(() => undefined);
      if (known && known.until > Date.now()) return known.token;
      kept.delete(id);
    }
    entry = source(key).then((a) => ({ token: a.token, until: a.expiresAt.getTime() - 60_000 }));
    kept.set(id, entry);
    try {
      return (await entry).token;
    } catch {
      // a refused key is asked again next time (the gateway rate-limits the public exchange)
      kept.delete(id);
      return undefined;
    }
  };
}
