import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError, membershipInternal } from '@church/common';

// The one place the website half calls membership: group membership for gates and timelines, author names.

const Basic = z.array(z.object({ id: z.string(), displayName: z.string().nullable() }));

/** The groups a person belongs to (membership's people facts); a membership failure is a 502. */
export async function personGroupIds(app: FastifyInstance, churchId: string, personId: string): Promise<string[]> {
  try {
    const facts = membershipInternal.peopleFacts.answer.parse(
      await app.deps.internal.post('membership', membershipInternal.peopleFacts.path, { churchId, ids: [personId] }),
    );
    return facts.find((f) => f.id === personId)?.groupIds ?? [];
  } catch (err) {
    throw downstream(err);
  }
}

/**
 * Display names of people by id, in one call. A blog must not fail because membership is away: on a
 * failure the names are left out (null) and the failure is logged.
 */
export async function displayNames(app: FastifyInstance, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  try {
    const people = Basic.parse(await app.deps.internal.post('membership', '/membership/internal/people/basic', { churchId, ids: unique }));
    return new Map(people.map((p) => [p.id, p.displayName]));
  } catch (err) {
    app.log.warn({ err }, 'author names unavailable from membership');
    return new Map();
  }
}

function downstream(err: unknown): HttpError {
  if (err instanceof HttpError && err.statusCode >= 500) return err;
  return new HttpError(502, [{ msg: 'The membership service could not answer' }]);
}
