import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * One-time secrets (authGuids, OAuth codes, refresh tokens, device codes, client secrets) are random and long,
 * so a plain sha256 is enough to store them: there is nothing to brute-force that a slow hash would protect.
 */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Constant-time comparison of a presented secret with a stored sha256. */
export function matchesHash(presented: string, storedHash: string | null | undefined): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(sha256(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Letters and digits a person can read back without confusing 0/O, 1/I/L. */
export const USER_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** `length` characters drawn uniformly from `alphabet` with a cryptographic generator. */
export function randomCode(length: number, alphabet = USER_CODE_ALPHABET): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A UUID that is always the same for the same text (ids of rows a retried job must not write twice). */
export function stableUuid(text: string): string {
  const h = sha256(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
