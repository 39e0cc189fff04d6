import { EventEmitter } from 'node:events';
import { z } from 'zod';
import { mintedAt, LOGIN_TOKEN_SECONDS, type Claims } from '@church/auth';

/**
 * Token revocation. A token outlives a change to its user's rights (a password change, the account deleted, a
 * role or a church taken away) only until every service has heard of the change: membership writes a stamp per
 * user, or per user and church, and a token minted before a stamp that covers it is refused everywhere.
 *
 * Every service keeps the stamps of the last two days (a login token's lifetime) in memory, so the check costs
 * two map lookups and no database round trip. It learns new stamps at once from membership's `publish`: through
 * the process itself for the services that share membership's process (the embedded fleet), and through Redis
 * pub/sub when `REDIS_URL` is set. Asking membership every `REVOCATION_POLL_MS` (2 s by default) covers a
 * message a replica missed while its subscription was reconnecting. When membership cannot be asked, the last
 * known stamps stay in force (and the failure is logged): an outage of membership does not lock every church
 * out of every module.
 */

export const RevocationEntry = z.object({
  userId: z.string(),
  /** null: every token of the user; else the user's tokens for this church */
  churchId: z.string().nullable(),
  /** milliseconds since the epoch: tokens minted before it are refused */
  at: z.number(),
});
export type RevocationEntry = z.output<typeof RevocationEntry>;

/** The internal route membership answers: stamps written since `since` (ms), and its clock. */
export const revocationsContract = {
  path: '/membership/internal/revocations',
  body: z.object({ since: z.number().min(0) }),
  answer: z.object({ entries: z.array(RevocationEntry), now: z.number() }),
} as const;

export const REVOCATION_CHANNEL = 'church:token-revocations';

export interface Revocations {
  /** true when a stamp written after the token was minted covers it */
  isRevoked(claims: Claims): boolean;
  /** takes stamps in (membership after writing them, the poller, the Redis subscriber) */
  apply(entries: RevocationEntry[]): void;
  /** membership: tells every replica at once (Redis), after the stamps are committed */
  publish(entries: RevocationEntry[]): Promise<void>;
  /** asks the source once now (tests; the poller does it on its own) */
  refresh(): Promise<void>;
  /** starts polling (when the service listens: its own migrations have run, and membership may be up) */
  start(): void;
  close(): Promise<void>;
}

export interface RevocationOptions {
  /** stamps written since a time; membership reads its table, other modules call membership */
  source: (since: number) => Promise<{ entries: RevocationEntry[]; now: number }>;
  /** 0 turns polling off (tests that do not exercise revocation) */
  pollMs: number;
  redisUrl?: string;
  log: { warn(obj: object, msg: string): void };
}

const KEEP_MS = LOGIN_TOKEN_SECONDS * 1000 + 60_000;

/** Stamps published in this process reach every service of the process at once (the embedded fleet). */
const inProcess = new EventEmitter().setMaxListeners(0);

export async function createRevocations(options: RevocationOptions): Promise<Revocations> {
  const stamps = new Map<string, number>();
  // Ask from a little before the last answer: a stamp committed just before it may not have been visible yet.
  let since = Date.now() - KEEP_MS;
  const keyOf = (userId: string, churchId: string | null) => (churchId ? `${userId}|${churchId}` : userId);
  const apply = (entries: RevocationEntry[]) => {
    for (const e of entries) {
      const key = keyOf(e.userId, e.churchId);
      if ((stamps.get(key) ?? 0) < e.at) stamps.set(key, e.at);
    }
  };
  const prune = () => {
    const oldest = Date.now() - KEEP_MS;
    for (const [key, at] of stamps) if (at < oldest) stamps.delete(key);
  };
  const refresh = async () => {
    try {
      const answer = await options.source(since);
      apply(answer.entries);
      since = answer.now - 30_000;
      prune();
    } catch (err) {
      options.log.warn({ err: { message: (err as Error).message } }, 'token revocations could not be refreshed; the last known stamps stay in force');
    }
  };

  inProcess.on('stamps', apply);

  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    if (options.pollMs <= 0 || timer) return;
    timer = setInterval(() => void refresh(), options.pollMs);
    timer.unref();
    void refresh();
  };

  let publisher: import('ioredis').Redis | undefined;
  let subscriber: import('ioredis').Redis | undefined;
  if (options.redisUrl) {
    const { Redis } = await import('ioredis');
    publisher = new Redis(options.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
    subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    subscriber.on('error', () => undefined);
    publisher.on('error', () => undefined);
    subscriber.on('message', (_channel, message) => {
      const parsed = z.array(RevocationEntry).safeParse(safeJson(message));
      if (parsed.success) apply(parsed.data);
    });
    await subscriber.subscribe(REVOCATION_CHANNEL).catch((err: Error) => options.log.warn({ err: { message: err.message } }, 'revocation channel unavailable'));
  }

  return {
    isRevoked(claims) {
      if (!stamps.size) return false;
      const minted = mintedAt(claims);
      const user = stamps.get(claims.id);
      if (user !== undefined && user > minted) return true;
      const church = stamps.get(`${claims.id}|${claims.churchId}`);
      if (church !== undefined && church > minted) return true;
      // A token minted for an app's grant (OAuth) falls with the grant: its stamp is written under the grant's id.
      const grant = claims.gid ? stamps.get(claims.gid) : undefined;
      return grant !== undefined && grant > minted;
    },
    apply,
    async publish(entries) {
      inProcess.emit('stamps', entries);
      if (publisher) await publisher.publish(REVOCATION_CHANNEL, JSON.stringify(entries)).catch(() => undefined);
    },
    refresh,
    start,
    async close() {
      inProcess.off('stamps', apply);
      if (timer) clearInterval(timer);
      subscriber?.disconnect();
      publisher?.disconnect();
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
