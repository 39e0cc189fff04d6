import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (gateway keys, texting credentials). The stored form is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url, so a key rotation can add `v2` later.
 */
export function createSecretBox(encryptionKey: string) {
  const key = deriveKey(encryptionKey);
  return {
    encrypt(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    decrypt(stored: string): string {
      const [version, iv, tag, data] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not an encrypted secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;

/** A 32-byte key given as base64/hex, or any other string hashed to 32 bytes. */
function deriveKey(text: string): Buffer {
  for (const encoding of ['base64', 'hex'] as const) {
    const buf = Buffer.from(text, encoding);
    if (buf.length === 32) return buf;
  }
  return createHash('sha256').update(text).digest();
}
