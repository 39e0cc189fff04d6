import type { FastifyRequest } from 'fastify';
import { rule, type AccessRule } from '@church/auth';
import type { Db } from '@church/common';

// The spec's "own" terms as access rules. Rules that read the path or query string decide before the body is
// read (the shared access hook); rules over a body field pass any signed-in person at that point, and the
// domain finishes the decision with `assertOwnPerson` (domain/access.ts) once the body is validated.

/** `own personId` from the query string or path (`?personId=`, `/personid/:id`). */
export const ownPersonIn = (where: 'query' | 'params', field: string): AccessRule =>
  rule('own personId', (req, auth) => {
    const source = (where === 'query' ? req.query : req.params) as Record<string, unknown> | undefined;
    const value = source?.[field];
    return !!auth.personId && typeof value === 'string' && value.toLowerCase() === auth.personId.toLowerCase();
  });

/** `own …` decided in the handler from the body: admits a signed-in person here. */
export const ownInBody = (text: string): AccessRule => rule(text, (_req, auth) => !!auth.personId);

/** `own record` / `own customer` / `own subscription` decided from a path or query id by looking the record up. */
export function ownByLookup(text: string, db: () => Db, owner: (db: Db, churchId: string, id: unknown) => Promise<string | null>, pick: (req: FastifyRequest) => unknown): AccessRule {
  return rule(text, async (req, auth) => {
    if (!auth.personId) return false;
    const personId = await owner(db(), auth.churchId, pick(req));
    return !!personId && personId.toLowerCase() === auth.personId.toLowerCase();
  });
}
