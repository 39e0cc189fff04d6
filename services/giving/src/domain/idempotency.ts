import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, conflict, HttpError } from '@church/common';
import { idempotencyKeys } from '../db/schema';

/** How long a key's first answer is kept. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** The request's `Idempotency-Key` header, if any (1 to 255 visible characters). */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) throw badRequest('Idempotency-Key', 'must be 1 to 255 visible characters', 'headers');
  return key;
}

/**
 * Who asks: the signed-in user (and the person they act as), or, for a caller without a token, their address.
 * A key is the caller's own: two donors who happen to send the same key and body are two requests.
 */
function callerOf(req: FastifyRequest): string {
  const auth = req.auth as { id?: string; personId?: string | null } | null | undefined;
  const who = auth?.id ? `user:${auth.id}:${auth.personId ?? ''}` : `address:${req.ip}`;
  return createHash('sha256').update(who).digest('base64url').slice(0, 22);
}

/**
 * Runs `work` once per (church, scope, caller, key) within 24 hours: the first request claims the key, a retry
 * by the same caller with the same key and body answers the stored first answer (status and body) without
 * running anything, the same key with another body is a 400, and a retry while the first is still running is a
 * 409. A failed first attempt (an error answer) releases the key, so the client can retry it. The key handed to
 * `work` (and on to the provider as its own idempotency key) names the caller too, so the provider never answers
 * one donor's payment to another.
 */
export async function withIdempotency<T>(req: FastifyRequest, reply: FastifyReply, scope: string, work: (key: string | undefined) => Promise<{ status?: number; body: T }>): Promise<T> {
  const given = idempotencyKeyOf(req);
  if (!given) {
    const out = await work(undefined);
    if (out.status) reply.code(out.status);
    return out.body;
  }
  const db = req.server.db;
  const churchId = req.auth.churchId;
  const caller = callerOf(req);
  const key = `${caller}:${given}`;
  // The stored hash covers who asks as well as what: a claim can only ever be answered to its caller.
  const requestHash = createHash('sha256').update(caller).update('\n').update(JSON.stringify(req.body ?? null)).digest('hex');
  const where = and(eq(idempotencyKeys.churchId, churchId), eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  // A key older than the window is free again.
  await db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS))));
  const [claimed] = await db.insert(idempotencyKeys).values({ churchId, scope, key, requestHash }).onConflictDoNothing().returning({ key: idempotencyKeys.key });
  if (!claimed) {
    const [first] = await db.select().from(idempotencyKeys).where(where).limit(1);
    if (!first) throw conflict('A request with this Idempotency-Key is being processed; retry shortly', 'Idempotency-Key');
    if (first.requestHash !== requestHash) throw badRequest('Idempotency-Key', 'was used with a different request body', 'headers');
    if (first.statusCode === null) throw conflict('A request with this Idempotency-Key is being processed; retry shortly', 'Idempotency-Key');
    reply.header('idempotent-replayed', 'true');
    reply.code(first.statusCode);
    return first.response as T;
  }
  try {
    const out = await work(`${churchId}:${scope}:${key}`);
    await db.update(idempotencyKeys).set({ statusCode: out.status ?? 200, response: out.body as object }).where(where);
    if (out.status) reply.code(out.status);
    return out.body;
  } catch (err) {
    // A refused or failed request charged nothing: release the key so a retry runs again. A timeout after the
    // provider may have acted is safe too, because the provider sees the same idempotency key on the retry.
    await db.delete(idempotencyKeys).where(where);
    throw err instanceof HttpError ? err : err;
  }
}
