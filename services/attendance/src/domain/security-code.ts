import { randomInt } from 'node:crypto';

/**
 * Label-printing codes: no vowels (no accidental words) and none of the look-alikes 0/O, 1/I/L, 2/Z, 5/S,
 * 6/G, 8/B, U/V, Y, so a volunteer reads the parent's tag against the child's at a glance.
 */
export const SECURITY_CODE_ALPHABET = 'CDFHJKMNPQRTWX3479';

/** A fresh 4-character code from a cryptographic source. */
export function securityCode(length = 4): string {
  let code = '';
  for (let i = 0; i < length; i++) code += SECURITY_CODE_ALPHABET[randomInt(SECURITY_CODE_ALPHABET.length)];
  return code;
}
