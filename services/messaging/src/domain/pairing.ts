import { randomInt } from 'node:crypto';

/** Pairing-code alphabet: no look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B) and no vowels (no words). */
export const PAIRING_ALPHABET = 'CDFGHJKMNPQRTVWXY34679';

export function pairingCode(length = 4): string {
  let code = '';
  for (let i = 0; i < length; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}
