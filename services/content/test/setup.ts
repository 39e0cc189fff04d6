import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { HttpError } from '@church/common';
import { fakeInternal, personFacts, useModule } from '@church/common/testing';
import { buildApp } from '../src/app';

export const MIGRATIONS = [path.join(__dirname, '..', 'drizzle', 'website'), path.join(__dirname, '..', 'drizzle', 'media')];
export { makeChurch } from '@church/common/testing';

/** Answers of other modules' internal routes a test fakes, by `METHOD /path` (`fakeInternal`'s routes). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route's body is its contract's
export type FakeRoutes = Record<string, (body: any) => unknown>;

/** A person membership knows: of one church, or (`churchId` null) of whichever church asks. */
interface FakePerson {
  churchId: string | null;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  email: string | null;
  householdId: string | null;
}

/**
 * Membership as content calls it, answering as membership does: only what it has. People are added with
 * `addPerson(churchId)` (a person of that church), or named with `names` and given groups with `groupsOf` (a
 * person of whichever church asks); groups are made with `group(churchId)`. A person or group it has not been
 * told of is no record of any church, as are the ids in `theirs` (another church's people and forms). Set
 * `state.down` to make every call fail as an unreachable membership would. `routes` adds other modules' answers
 * (giving's charge, messaging's blocked IPs) to the same client; every call is recorded in `internal.calls`.
 */
export function fakeMembership(routes: FakeRoutes = {}) {
  const people = new Map<string, FakePerson>();
  /** a person's display name (a person of every church) */
  const names = new Map<string, string>();
  /** the groups a person is a member of (a person of every church) */
  const groupsOf = new Map<string, string[]>();
  /** group id → the church it is of */
  const groups = new Map<string, string>();
  /** ids of another church's people and forms (membership's reference check refuses them) */
  const theirs = new Set<string>();
  const state = { down: false };

  const group = (churchId: string) => {
    const id = randomUUID();
    groups.set(id, churchId);
    return id;
  };
  const addPerson = (churchId: string, firstName = 'Ann') => {
    const id = randomUUID();
    people.set(id, { churchId, firstName, lastName: 'Lee', displayName: `${firstName} Lee`, email: `${firstName.toLowerCase()}@example.test`, householdId: randomUUID() });
    return id;
  };
  /** the person, when it is one of the church's */
  const personIn = (churchId: string, id: string): FakePerson | undefined => {
    const added = people.get(id);
    if (added) return added.churchId === churchId ? added : undefined;
    if (!names.has(id) && !groupsOf.has(id)) return undefined;
    return { churchId: null, firstName: null, lastName: null, displayName: names.get(id) ?? null, email: null, householdId: null };
  };
  const peopleIn = (churchId: string, ids: string[] = []) => ids.flatMap((id) => {
    const p = personIn(churchId, id);
    return p ? [{ id, ...p }] : [];
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route's body is its contract's
  const up = (answer: (body: any) => unknown) => (body: unknown) => {
    if (state.down) throw new HttpError(502, [{ msg: 'membership is down' }]);
    return answer(body);
  };

  const internal = fakeInternal({
    'POST /membership/internal/people/facts': up((b: { churchId: string; ids?: string[] }) =>
      peopleIn(b.churchId, b.ids).map((p) =>
        personFacts({ id: p.id, firstName: p.firstName, lastName: p.lastName, displayName: p.displayName, email: p.email, householdId: p.householdId, membershipStatus: p.churchId ? 'Member' : null, groupIds: groupsOf.get(p.id) ?? [] }),
      ),
    ),
    'POST /membership/internal/people/basic': up((b: { churchId: string; ids: string[] }) =>
      peopleIn(b.churchId, b.ids).filter((p) => p.displayName !== null).map((p) => ({ id: p.id, displayName: p.displayName, firstName: p.firstName, lastName: p.lastName, photo: null })),
    ),
    'POST /membership/internal/people/contacts': up((b: { churchId: string; ids?: string[] }) =>
      peopleIn(b.churchId, b.ids).map((p) => ({ id: p.id, firstName: p.firstName, lastName: p.lastName, displayName: p.displayName, email: p.email, mobilePhone: null, optedOut: false, leader: false })),
    ),
    'POST /membership/internal/groups/list': up((b: { churchId: string }) => [...groups].filter(([, churchId]) => churchId === b.churchId).map(([id]) => ({ id, name: 'Group' }))),
    'POST /membership/internal/church': up((b: { churchId: string }) => ({ id: b.churchId, name: 'Grace Church', subDomain: 'grace' })),
    // the shared reference check: the church's people and groups among the ids; of other kinds (forms, sites), a
    // check naming another church's (`theirs`) is refused them, and any other is left to the test app's own
    // answer (every id but those the reference walk hands out as another church's)
    'POST /membership/internal/owned': up((b: { churchId: string; kind: string; ids: string[] }) => {
      if (b.kind === 'groups') return { ids: b.ids.filter((id) => groups.get(id) === b.churchId) };
      if (b.kind === 'people') return { ids: peopleIn(b.churchId, b.ids).map((p) => p.id) };
      if (b.ids.some((id) => theirs.has(id))) return { ids: b.ids.filter((id) => !theirs.has(id)) };
      throw new HttpError(404, [{ msg: 'left to the test app' }]);
    }),
    ...routes,
  });
  return { internal, calls: internal.calls, names, groupsOf, group, addPerson, theirs, state };
}

export type FakeMembership = ReturnType<typeof fakeMembership>;

export interface ContentTestOptions<X extends object> {
  /** config the app starts with */
  config?: Record<string, string>;
  /** other modules' internal routes this file fakes beside membership's (giving's charge, messaging's blocked IPs) */
  routes?: FakeRoutes;
  /**
   * outside systems started before the app (a provider's loopback server): their `config` joins the app's, the
   * rest is read through the returned object, and `close` runs after the app closes
   */
  fakes?: () => Promise<X & { config?: Record<string, string>; close?: () => Promise<void> }>;
}

/**
 * The content app on a fresh test database for a test file's tests, closed after them, with membership faked
 * (`membership`, its client `internal`) and whatever else the file starts (`fakes`).
 */
export function useContent<X extends object = object>(opts: ContentTestOptions<X> = {}) {
  return useModule({
    module: 'content',
    migrations: MIGRATIONS,
    build: buildApp,
    config: opts.config,
    fakes: async () => {
      const membership = fakeMembership(opts.routes);
      const started = opts.fakes ? await opts.fakes() : ({} as X & { config?: Record<string, string>; close?: () => Promise<void> });
      return { ...started, membership, internal: membership.internal, overrides: { internal: membership.internal } };
    },
  });
}
