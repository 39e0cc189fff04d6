import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, itemParam, optionalActorOf, systemActor, type Actor, type DbOrTx } from '@church/common';
import { idempotencyKeyOf, withIdempotency, type IdempotentAnswer } from '../domain/idempotency';
import type { ItemParam } from '../lib/params';

// What the route files share of Fastify: the request's item names, JSON text sent as it is, idempotent replies.

/** The names of a batch body's fields in errors (`[i].field`, or `field` for a single object). */
export const itemParams = (req: FastifyRequest): ItemParam => (i, field) => itemParam(req, i, field);

/** An answer already written as JSON text in the response schema's shape, sent as it is. */
export const sendText = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

/**
 * Runs `work` under the request's `Idempotency-Key` (domain/idempotency.ts) and answers as it says: its status,
 * and `idempotent-replayed: true` on a stored first answer.
 */
export async function idempotent<T>(db: DbOrTx, req: FastifyRequest, reply: FastifyReply, scope: string, work: (key: string | undefined) => Promise<IdempotentAnswer<T>>): Promise<T> {
  const key = idempotencyKeyOf(req.headers['idempotency-key']);
  const out = await withIdempotency(db, actorOf(req), { scope, key, body: req.body }, work);
  if (out.replayed) reply.header('idempotent-replayed', 'true');
  if (out.status) reply.code(out.status);
  return out.body;
}

/**
 * Who a public or internal route acts for: the caller when a valid token came with the request, otherwise the
 * module itself in the church the body names, from the caller's address (what the audit log records of a guest
 * or of another module's signed call).
 */
export function callerOrModule(req: FastifyRequest, churchId: string): Actor {
  return optionalActorOf(req) ?? { ...systemActor(churchId.toLowerCase(), String(req.id), req.log), ip: req.ip };
}
