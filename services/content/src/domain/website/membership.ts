import { createHash } from 'node:crypto';
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

async function fetchNames(app: FastifyInstance, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const people = Basic.parse(await app.deps.internal.post('membership', '/membership/internal/people/basic', { churchId, ids }));
  return new Map(people.map((p) => [p.id, p.displayName]));
}

/**
 * Display names of people by id, in one call. A blog must not fail because membership is away: on a
 * failure the names are left out (null) and the failure is logged.
 */
export async function displayNames(app: FastifyInstance, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  try {
    return await fetchNames(app, churchId, unique);
  } catch (err) {
    app.log.warn({ err }, 'author names unavailable from membership');
    return new Map();
  }
}

/** How long the public blog keeps author names: a renamed author shows under the new name within this. */
export const KEPT_NAMES_MS = 60_000;

export interface KeptNames {
  names: Map<string, string | null>;
  /** false when membership could not answer (the names are missing; nothing was kept) */
  complete: boolean;
  /** a hash of the names: part of the key of an answer that shows them, which changes only when they do */
  stamp: string;
}

/**
 * Display names for the public blog, kept on the snapshot store per church and set of people for a period of
 * `KEPT_NAMES_MS` (the period's number is the value's version), so a public read does not call membership.
 * A failure is not kept: the names are missing and the next read asks again.
 */
export async function keptDisplayNames(app: FastifyInstance, churchId: string, ids: string[]): Promise<KeptNames> {
  const unique = [...new Set(ids)].sort();
  if (!unique.length) return { names: new Map(), complete: true, stamp: '' };
  try {
    const kept = await app.deps.snapshots.value(
      `author-names\n${churchId}\n${unique.join(',')}`,
      String(Math.floor(Date.now() / KEPT_NAMES_MS)),
      async () => {
        const names = await fetchNames(app, churchId, unique);
        const stamp = createHash('sha1').update(JSON.stringify(unique.map((id) => names.get(id) ?? null))).digest('base64url').slice(0, 16);
        return { names, stamp };
      },
      (k) => 64 + 80 * k.names.size,
    );
    return { ...kept, complete: true };
  } catch (err) {
    app.log.warn({ err }, 'author names unavailable from membership');
    return { names: new Map(), complete: false, stamp: '' };
  }
}

function downstream(err: unknown): HttpError {
  if (err instanceof HttpError && err.statusCode >= 500) return err;
  return new HttpError(502, [{ msg: 'The membership service could not answer' }]);
}
