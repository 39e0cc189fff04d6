import { createHash } from 'node:crypto';
import type { ActorLog } from '@church/common';
import { displayNamesOf } from '../../clients/membership';
import type { ContentDeps } from '../../deps';

// What the website half reads of membership beyond a person's groups (clients/membership.ts): author names,
// which a blog shows without failing when membership is away.

/**
 * Display names of people by id, in one call. A blog must not fail because membership is away: on a
 * failure the names are left out (null) and the failure is logged.
 */
export async function displayNames(deps: Pick<ContentDeps, 'internal'>, log: ActorLog, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  try {
    return await displayNamesOf(deps.internal, churchId, unique);
  } catch (err) {
    log.warn({ err }, 'author names unavailable from membership');
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
export async function keptDisplayNames(deps: Pick<ContentDeps, 'internal' | 'snapshots'>, log: ActorLog, churchId: string, ids: string[]): Promise<KeptNames> {
  const unique = [...new Set(ids)].sort();
  if (!unique.length) return { names: new Map(), complete: true, stamp: '' };
  try {
    const kept = await deps.snapshots.value(
      `author-names\n${churchId}\n${unique.join(',')}`,
      String(Math.floor(Date.now() / KEPT_NAMES_MS)),
      async () => {
        const names = await displayNamesOf(deps.internal, churchId, unique);
        const stamp = createHash('sha1').update(JSON.stringify(unique.map((id) => names.get(id) ?? null))).digest('base64url').slice(0, 16);
        return { names, stamp };
      },
      (k) => 64 + 80 * k.names.size,
    );
    return { ...kept, complete: true };
  } catch (err) {
    log.warn({ err }, 'author names unavailable from membership');
    return { names: new Map(), complete: false, stamp: '' };
  }
}
