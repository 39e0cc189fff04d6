import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

// argon2id through a native binding: hashing runs on libuv's thread pool, never on the event loop. At most
// (cores - 1) hashes run at once, so a login storm queues logins but always leaves a core for the event loop
// and every other request (PASSWORD_HASH_CONCURRENCY overrides).
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const LIMIT = Math.max(1, Number(process.env.PASSWORD_HASH_CONCURRENCY) || availableParallelism() - 1);
/** Hashes that may wait for a slot; past it a request is refused at once (503) instead of queueing without end. */
const MAX_WAITING = Math.max(1, Number(process.env.PASSWORD_HASH_QUEUE) || 8 * LIMIT);
let running = 0;
const waiting: Array<() => void> = [];

/** Thrown when the hashing queue is full; services answer it 503 with Retry-After. */
export class PasswordQueueFull extends Error {
  readonly statusCode = 503;
  constructor() {
    super('Too many sign-ins at once; try again in a moment');
  }
}

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= LIMIT) {
    if (waiting.length >= MAX_WAITING) throw new PasswordQueueFull();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** A salted argon2id hash in PHC string form. */
export function hashPassword(password: string): Promise<string> {
  return limited(() => hash(password, OPTIONS));
}

/** False for a wrong password or a malformed stored hash; never throws for bad input. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await limited(() => verify(stored, password));
  } catch (err) {
    if (err instanceof PasswordQueueFull) throw err;
    return false;
  }
}

/** A random temporary password for accounts created without one (register, role members). */
export function temporaryPassword(): string {
  return randomBytes(12).toString('base64url');
}
