import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * After a captcha is verified, the anonymous flows (`ach-setup-intent-anon`) take a short-lived pass instead
 * of a second captcha: `<expiry ms>.<hmac>` signed with the service's encryption key.
 */
const PASS_MS = 10 * 60 * 1000;

const sign = (secret: string, expiry: number) => createHmac('sha256', `captcha-pass:${secret}`).update(String(expiry)).digest('base64url');

export function issuePass(secret: string, now = Date.now()): string {
  const expiry = now + PASS_MS;
  return `${expiry}.${sign(secret, expiry)}`;
}

export function checkPass(secret: string, pass: string, now = Date.now()): boolean {
  const [expiryText, mac] = pass.split('.');
  const expiry = Number(expiryText);
  if (!Number.isFinite(expiry) || expiry < now || !mac) return false;
  const expected = Buffer.from(sign(secret, expiry));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
