import type { FastifyRequest } from 'fastify';
import { assertReferences, type References } from '@church/common';

/**
 * The shared reference check (issue 41) for items nested in a body (a tree's sections, a registration's members):
 * every field of `refs` names a record of the church, else a 400 naming each offending field as
 * `<prefix>[i].<field>` (or as `param` names it). Calls other modules for their kinds: never inside a transaction.
 */
export async function checkNested(
  req: FastifyRequest,
  items: ReadonlyArray<Record<string, unknown>> | null | undefined,
  refs: References,
  prefix: string | ((i: number, field: string) => string),
  churchId: string = req.auth.churchId,
): Promise<void> {
  if (!items?.length) return;
  await assertReferences(req.server.deps, churchId, [...items], refs, typeof prefix === 'function' ? prefix : (i, field) => `${prefix}[${i}].${field}`);
}
