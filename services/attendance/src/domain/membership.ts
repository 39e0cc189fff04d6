import { HttpError, type InternalClient } from '@church/common';
import type { LinkedGroupData } from '../schemas';

/** A membership call; an unreachable membership is a 502 (a bad gateway), never a 500. */
export async function fromMembership<T>(internal: InternalClient, path: string, body: unknown, revalidate = false): Promise<T> {
  try {
    return await internal.post<T>('membership', path, body, { revalidate });
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(502, [{ msg: 'membership is unreachable' }]);
  }
}

/**
 * Fills in linked groups (stored here as ids) with membership's data, for `?include=groups` and the place
 * tree: one call for the church's group list, kept and revalidated (304 while its groups are unchanged).
 * Membership answers whole group records; the response schema keeps `LinkedGroup`'s fields. Groups
 * membership no longer has (removed there, still linked here) are left out.
 */
export async function groupFiller(internal: InternalClient, churchId: string) {
  const list = await fromMembership<LinkedGroupData[]>(internal, '/membership/internal/groups/list', { churchId }, true);
  const byId = new Map(list.map((group) => [group.id, group]));
  return (links: Array<{ id: string }>): LinkedGroupData[] => links.flatMap(({ id }) => byId.get(id) ?? []);
}
