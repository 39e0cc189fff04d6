import { HttpError, type InternalClient } from '@church/common';
import type { LinkedGroupData } from '../schemas';

/**
 * A membership call. Any failure of it is a 502 (a bad gateway) in the error shape, never a 500 and never
 * the callee's own status: a 404 or 401 from membership (a route it lacks, a secret that does not match) is
 * not the caller's missing record or bad token, and an answer that is not the agreed shape (`answer`, when
 * given) is a failure too, not an empty or partial result.
 */
export async function fromMembership<T>(internal: InternalClient, path: string, body: unknown, revalidate = false, shape?: (data: unknown) => boolean): Promise<T> {
  let data: unknown;
  try {
    data = await internal.post<T>('membership', path, body, { revalidate });
  } catch (err) {
    const status = err instanceof HttpError ? err.statusCode : undefined;
    throw membershipFailed(status && status !== 502 ? `membership answered ${status}` : 'membership is unreachable');
  }
  if (shape && !shape(data)) throw membershipFailed('membership answered an unexpected shape');
  return data as T;
}

const membershipFailed = (msg: string) => new HttpError(502, [{ msg }]);

/**
 * A shape check for a list answer: an array of objects whose `key` is a string. Checked in place, not parsed
 * into a copy: kept (revalidated) answers come back as the same array, which callers cache work on.
 */
export const listWith =
  (key: string) =>
  (data: unknown): boolean =>
    Array.isArray(data) && data.every((x) => typeof x === 'object' && x !== null && typeof (x as Record<string, unknown>)[key] === 'string');

/**
 * Fills in linked groups (stored here as ids) with membership's data, for `?include=groups` and the place
 * tree: one call for the church's group list, kept and revalidated (304 while its groups are unchanged).
 * Membership answers whole group records; the response schema keeps `LinkedGroup`'s fields. Groups
 * membership no longer has (removed there, still linked here) are left out.
 */
export async function groupFiller(internal: InternalClient, churchId: string) {
  const list = await fromMembership<LinkedGroupData[]>(internal, '/membership/internal/groups/list', { churchId }, true, listWith('id'));
  const byId = new Map(list.map((group) => [group.id, group]));
  return (links: Array<{ id: string }>): LinkedGroupData[] => links.flatMap(({ id }) => byId.get(id) ?? []);
}
