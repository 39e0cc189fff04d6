import { createHash } from 'node:crypto';
import { badRequest, conflict, type Actor, type DbOrTx } from '@church/common';
import { claimKey, freeExpiredKey, keepAnswer, keyClaim, releaseKey } from '../repos/idempotency-keys';

/** How long a key's first answer is kept. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** The `Idempotency-Key` header's value, if any (1 to 255 visible characters; anything else is a 400). */
export function idempotencyKeyOf(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) throw badRequest('Idempotency-Key', 'must be 1 to 255 visible characters', 'headers');
  return key;
}

/**
 * Who asks: the signed-in user (and the person they act as), or, for a caller without a user, their address.
 * A key is the caller's own: two donors who happen to send the same key and body are two requests.
 */
function callerOf(actor: Actor): string {
  const who = actor.id ? `user:${actor.id}:${actor.personId ?? ''}` : `address:${actor.ip}`;
  return createHash('sha256').update(who).digest('base64url').slice(0, 22);
}

/** An answer of idempotent work: its status (200 when absent) and body, and whether it is a stored first answer. */
export interface IdempotentAnswer<T> {
  status?: number;
  body: T;
  /** the stored answer of the key's first request, run nothing */
  replayed?: boolean;
}

const busy = () => conflict('A request with this Idempotency-Key is being processed; retry shortly', 'Idempotency-Key');

/**
 * Runs `work` once per (church, scope, caller, key) within 24 hours: the first request claims the key, a retry
 * by the same caller with the same key and body answers the stored first answer (status and body, `replayed`)
 * without running anything, the same key with another body is a 400, and a retry while the first is still
 * running is a 409. A failed first attempt (an error answer) releases the key, so the client can retry it. The
 * key handed to `work` (and on to the provider as its own idempotency key) names the caller too, so the provider
 * never answers one donor's payment to another. No key: `work` runs with none.
 */
export async function withIdempotency<T>(
  db: DbOrTx,
  actor: Actor,
  request: { scope: string; key: string | undefined; body: unknown },
  work: (key: string | undefined) => Promise<IdempotentAnswer<T>>,
): Promise<IdempotentAnswer<T>> {
  if (!request.key) return work(undefined);
  const churchId = actor.churchId;
  const caller = callerOf(actor);
  const ref = { churchId, scope: request.scope, key: `${caller}:${request.key}` };
  // The stored hash covers who asks as well as what: a claim can only ever be answered to its caller.
  const requestHash = createHash('sha256').update(caller).update('\n').update(JSON.stringify(request.body ?? null)).digest('hex');
  // A key older than the window is free again.
  await freeExpiredKey(db, ref, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS));
  if (!(await claimKey(db, ref, requestHash))) {
    const first = await keyClaim(db, ref);
    if (!first) throw busy();
    if (first.requestHash !== requestHash) throw badRequest('Idempotency-Key', 'was used with a different request body', 'headers');
    if (first.statusCode === null) throw busy();
    return { status: first.statusCode, body: first.response as T, replayed: true };
  }
  try {
    const out = await work(`${churchId}:${ref.scope}:${ref.key}`);
    await keepAnswer(db, ref, out.status ?? 200, out.body);
    return out;
  } catch (err) {
    // A refused or failed request charged nothing: release the key so a retry runs again. A timeout after the
    // provider may have acted is safe too, because the provider sees the same idempotency key on the retry.
    await releaseKey(db, ref);
    throw err;
  }
}
