import { z } from 'zod';

/** A base64url key of a set length once decoded (the Push API's `toJSON()` writes them unpadded). */
const keyOf = (bytes: number, what: string) =>
  z
    .string()
    .trim()
    .max(200)
    .refine((v) => /^[A-Za-z0-9_-]+={0,2}$/.test(v) && Buffer.from(v, 'base64url').length === bytes, `must be ${what}, base64url`);

/** `POST /webpush/subscribe` as B1App's WebPushHelper sends it. */
export const Subscribe = z.object({
  subscription: z.object({
    endpoint: z.string().trim().min(1).max(1000),
    keys: z.object({ p256dh: keyOf(65, 'an uncompressed P-256 public key (65 bytes)'), auth: keyOf(16, 'a 16-byte secret') }),
  }),
  appName: z.string().trim().max(100).nullish(),
  deviceInfo: z.string().max(1000).nullish(),
});
export const Subscribed = z.object({ success: z.literal(true), id: z.string() });

export const Unsubscribe = z.object({ endpoint: z.string().trim().min(1).max(1000) });
export const Unsubscribed = z.object({ success: z.literal(true), removed: z.number() });

/** `enabled` is what B1App's WebPushHelper checks beside the key. */
export const PublicKey = z.object({ publicKey: z.string(), enabled: z.boolean() });
