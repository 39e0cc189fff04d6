import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

// argon2id through a native binding: hashing runs on libuv's thread pool, never on the event loop. At most
// (cores - 1) hashes run at once, so a login storm queues logins but always leaves a core for the event loop
// and every other request (PASSWORD_HASH_CONCURRENCY overrides).
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const LIMIT = Math.max(1, Number(process.env.PASSWORD_HASH_CONCURRENCY) || availableParallelism() - 1);
/**
 * The queue is bounded by the wait it implies, not by a count: a burst of a few hundred sign-ins at once is served
 * within seconds, and only a backlog beyond PASSWORD_HASH_MAX_WAIT_MS (default 5 s) of hashing is refused (503
 * with Retry-After) rather than left to time out.
 */
const MAX_WAIT_MS = Math.max(100, Number(process.env.PASSWORD_HASH_MAX_WAIT_MS) || 5_000);

/** Thrown when the hashing backlog is too long; services answer it 503 with Retry-After. */
export class PasswordQueueFull extends Error {
  readonly statusCode = 503;
  constructor(readonly retryAfterSeconds = 1) {
    super('Too many sign-ins at once; try again in a moment');
  }
}

/**
 * A queue of hashes: at most `limit` at once, the rest waiting by key (an account), served in turn so that one
 * flooded account cannot hold up everyone else's, and refused past the wait they imply (`maxWaitMs`).
 */
export function createHashQueue(limit: number, maxWaitMs: number) {
  /** How long one hash takes on this machine, learnt as hashes run (a moving average; the first guess is cautious). */
  let hashMs = 25;
  let running = 0;
  let queued = 0;
  const waiting = new Map<string, Array<() => void>>();
  const waitMs = () => ((queued + Math.max(0, running - limit + 1)) * hashMs) / limit;
  const next = () => {
    // The key that has waited longest goes next: a Map keeps its keys in the order they were set.
    for (const [key, line] of waiting) {
      const go = line.shift()!;
      waiting.delete(key);
      if (line.length) waiting.set(key, line); // to the back of the round
      queued--;
      go();
      return;
    }
  };
  return {
    /** how long a hash queued now would wait, in milliseconds */
    waitMs,
    async run<T>(work: () => Promise<T>, key = ''): Promise<T> {
      if (running >= limit) {
        const wait = waitMs();
        const mine = waiting.get(key)?.length ?? 0;
        // Past the bound, a key holding more than its share of the backlog is refused; the others still queue (up
        // to twice the bound), so a flood against one account does not lock the rest out.
        const share = queued / Math.max(1, waiting.size);
        if (wait > 2 * maxWaitMs || (wait > maxWaitMs && mine >= share)) throw new PasswordQueueFull(Math.max(1, Math.ceil((wait - maxWaitMs) / 1000)));
        queued++;
        await new Promise<void>((resolve) => {
          const line = waiting.get(key);
          if (line) line.push(resolve);
          else waiting.set(key, [resolve]);
        });
      }
      running++;
      const started = performance.now();
      try {
        return await work();
      } finally {
        hashMs = hashMs * 0.9 + (performance.now() - started) * 0.1;
        running--;
        next();
      }
    },
  };
}

const queue = createHashQueue(LIMIT, MAX_WAIT_MS);
const limited = queue.run;

/** A salted argon2id hash in PHC string form; `key` (the account) shares the queue fairly with other accounts. */
export function hashPassword(password: string, key?: string): Promise<string> {
  return limited(() => hash(password, OPTIONS), key);
}

/** False for a wrong password or a malformed stored hash; never throws for bad input. */
export async function verifyPassword(stored: string | null | undefined, password: string, key?: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await limited(() => verify(stored, password), key);
  } catch (err) {
    if (err instanceof PasswordQueueFull) throw err;
    return false;
  }
}

/** A random temporary password for accounts created without one (register, role members). */
export function temporaryPassword(): string {
  return randomBytes(12).toString('base64url');
}
