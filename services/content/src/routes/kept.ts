import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ContentDeps } from '../deps';
import type { KeptRead } from '../lib/kept';

// Route helpers of kept answers of both halves, on the shared snapshot store (`deps.snapshots`, packages/common
// snapshots.ts): the public routes read the church's data version first (the page gate, the publish schedule,
// author names: domain code, which answers a `KeptRead`) and answer a kept body at that version with
// `snapshots.sendAt`.

/** A route's JSON for `value`, by its own 200 response schema (what the route would have sent). */
export const serialized = (reply: FastifyReply, value: unknown): string => reply.serializeInput(value as Record<string, unknown>, '200') as string;

/**
 * Sends what a domain read decided: its answer as it is, or the body kept for the church (`scope`) at its version
 * and variant, serialized by the route's own 200 schema and built only when none is kept.
 */
export function sendRead<T>(deps: Pick<ContentDeps, 'snapshots'>, req: FastifyRequest, reply: FastifyReply, scope: string, read: KeptRead<T>): T | Promise<FastifyReply> {
  if (!read.kept) return read.answer;
  const { variant, version, build } = read.kept;
  return deps.snapshots.sendAt(req, reply, scope, variant, version, async () => serialized(reply, await build()));
}
