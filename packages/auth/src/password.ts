import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

// argon2id through a native binding: hashing runs on libuv's thread pool, never on the event loop,
// so a login storm slows logins but not the other requests.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** A salted argon2id hash in PHC string form. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** False for a wrong password or a malformed stored hash; never throws for bad input. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A random temporary password for accounts created without one (register, role members). */
export function temporaryPassword(): string {
  return randomBytes(12).toString('base64url');
}
