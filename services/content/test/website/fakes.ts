import { randomUUID } from 'node:crypto';
import { HttpError, type InternalClient } from '@church/common';
import { personFacts } from '@church/common/testing';

/**
 * Membership as the website half sees it, for tests: people's groups (`groupsOf`), names (`names`), the church's
 * name and its groups (`group(churchId)` makes one), and another church's people and forms (`theirs`). Set `down` to make every call fail as an unreachable service
 * would.
 */
export function fakeMembership() {
  const groupsOf = new Map<string, string[]>();
  const names = new Map<string, string>();
  /** group id → the church it is of */
  const groups = new Map<string, string>();
  const group = (churchId: string) => {
    const id = randomUUID();
    groups.set(id, churchId);
    return id;
  };
  /** ids of another church's people and forms (membership's reference check refuses them) */
  const theirs = new Set<string>();
  const calls: Array<{ path: string; body: unknown }> = [];
  const state = { down: false };
  const post = async <T>(_module: string, path: string, body: unknown): Promise<T> => {
    calls.push({ path, body });
    if (state.down) throw new HttpError(502, [{ msg: 'membership is down' }]);
    const b = body as { churchId: string; ids?: string[] };
    if (path === '/membership/internal/people/facts') {
      return (b.ids ?? []).map((id) =>
        personFacts({ id, firstName: null, lastName: null, displayName: names.get(id) ?? null, membershipStatus: null, groupIds: groupsOf.get(id) ?? [] }),
      ) as T;
    }
    if (path === '/membership/internal/people/basic') {
      return (b.ids ?? []).filter((id) => names.has(id)).map((id) => ({ id, displayName: names.get(id)!, firstName: null, lastName: null, photo: null })) as T;
    }
    if (path === '/membership/internal/groups/list') {
      return [...groups].filter(([, churchId]) => churchId === b.churchId).map(([id]) => ({ id, name: 'Group', categoryName: null })) as T;
    }
    // the shared reference check: the church's groups among the ids; of other kinds, a check naming another church's
    // (`theirs`) is refused them, and any other is left to the test app's own answer (every id but the walk's)
    if (path === '/membership/internal/owned') {
      const ids = b.ids ?? [];
      if ((body as { kind: string }).kind === 'groups') return { ids: ids.filter((id) => groups.get(id) === b.churchId) } as T;
      if (ids.some((id) => theirs.has(id))) return { ids: ids.filter((id) => !theirs.has(id)) } as T;
    }
    if (path === '/membership/internal/church') return { id: b.churchId, name: 'Grace Church', subDomain: 'grace' } as T;
    throw new HttpError(404, [{ msg: `Route POST:${path} not found` }]);
  };
  const internal: InternalClient = {
    post,
    get: async () => {
      throw new HttpError(404, [{ msg: 'not found' }]);
    },
    request: async <T>(module: string, method: string, path: string, body?: unknown) => post<T>(module, path, body),
  };
  return { internal, groupsOf, names, calls, state, group, theirs };
}
