import { createHash } from 'node:crypto';
import { badRequest } from '@church/common';

/**
 * The key of a request's `Idempotency-Key` header (its value as the route read it), when it has one: a client that
 * may retry a post (a dropped answer, a reconnect) sends the same key again and finds the message it already posted
 * instead of posting it twice.
 */
export function idempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.length > 200 || !/^[\x21-\x7e]+$/.test(key)) throw badRequest('Idempotency-Key', 'must be 1 to 200 visible ASCII characters', 'header');
  return key;
}

/**
 * The id of the message a keyed request posts: the same key, caller, conversation, place in the request and text
 * give the same id (so a retry finds its message), and a key cannot reach a message another caller posted with it.
 * A UUID (version 8, RFC 9562: vendor-specific) from SHA-256.
 */
export function messageIdFor(key: string, parts: { churchId: string; conversationId: string; caller: string; index: number; content: string }): string {
  const hash = createHash('sha256').update([key, parts.churchId, parts.conversationId, parts.caller, String(parts.index), parts.content].join('\u0000')).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x80;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
