import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, tokenFor, type TestApp, type TokenOptions } from '@church/common/testing';
import { HttpError, type InternalClient, type ModuleName, type PersonFacts, type ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

type Options = { config?: Record<string, string>; overrides?: Partial<ServiceDeps> };

/** Starts the doing app before the file's tests and closes it after; the returned object reads through to it. */
export function useDoing(opts: Options | (() => Options) = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await createTestApp('doing', MIGRATIONS, buildApp as never, typeof opts === 'function' ? opts() : opts);
  });
  afterAll(() => current?.close());
  return new Proxy({} as TestApp, { get: (_target, key) => current![key as keyof TestApp] });
}

/** A church for a test: a fresh id, a person, and tokens for them. */
export function makeChurch() {
  const churchId = randomUUID();
  const personId = randomUUID();
  return {
    churchId,
    personId,
    token: (permissions: TokenOptions['permissions'] = [], extra: Partial<TokenOptions> = {}) => tokenFor({ churchId, personId, permissions, ...extra }),
    tokenOf: (personId: string, permissions: TokenOptions['permissions'] = []) => tokenFor({ churchId, personId, permissions }),
  };
}

export interface InternalCall {
  module: ModuleName;
  method: string;
  path: string;
  body?: unknown;
}

/** A fake internal client: answers from `routes` (`POST /path` → handler of the body), records every call. */
export function fakeInternal(routes: Record<string, (body: never) => unknown>): InternalClient & { calls: InternalCall[] } {
  const calls: InternalCall[] = [];
  const request = async <T>(module: ModuleName, method: string, path: string, body?: unknown): Promise<T> => {
    calls.push({ module, method, path, body });
    const handler = routes[`${method} ${path}`];
    if (!handler) throw new HttpError(404, [{ msg: `no fake for ${method} ${path}` }]);
    return structuredClone(await handler(body as never)) as T;
  };
  return { calls, request, get: (m, p) => request(m, 'GET', p), post: (m, p, b) => request(m, 'POST', p, b) };
}

/** A person as membership's people facts answer them. */
export function person(facts: Partial<PersonFacts> & { id?: string } = {}): PersonFacts {
  return {
    id: facts.id ?? randomUUID(),
    firstName: 'Pat',
    lastName: 'Doe',
    displayName: 'Pat Doe',
    email: null,
    mobilePhone: null,
    optedOut: false,
    birthDate: null,
    anniversary: null,
    gender: null,
    maritalStatus: null,
    membershipStatus: 'Member',
    campusId: null,
    householdId: null,
    groupIds: [],
    leaderGroupIds: [],
    ...facts,
  };
}

/** Membership as the doing module sees it: people facts per church, group members, updates recorded. */
export function fakeMembership() {
  const people = new Map<string, PersonFacts[]>();
  const groups = new Map<string, Array<{ personId: string; displayName: string; leader: boolean }>>();
  const updates: Array<{ churchId: string; personId: string; changes: Record<string, unknown> }> = [];
  let down = false;
  const guard = () => {
    if (down) throw new HttpError(502, [{ msg: 'membership answered 503' }]);
  };
  const internal = fakeInternal({
    'POST /membership/internal/people/facts': (body: { churchId: string; ids?: string[] }) => {
      guard();
      const all = people.get(body.churchId) ?? [];
      return body.ids ? all.filter((p) => body.ids!.includes(p.id)) : all;
    },
    'POST /membership/internal/groups/members': (body: { churchId: string; groupId: string }) => {
      guard();
      return (groups.get(`${body.churchId}/${body.groupId}`) ?? []).map((m) => ({ ...m, firstName: null, lastName: null, photo: null }));
    },
    'POST /membership/internal/people/basic': (body: { churchId: string; ids: string[] }) => {
      guard();
      return (people.get(body.churchId) ?? []).filter((p) => body.ids.includes(p.id)).map((p) => ({ id: p.id, displayName: p.displayName, firstName: p.firstName, lastName: p.lastName, photo: null }));
    },
    'POST /membership/internal/people/update': (body: { churchId: string; personId: string; changes: Record<string, unknown> }) => {
      guard();
      updates.push(body);
      return { id: body.personId };
    },
  });
  return {
    internal,
    updates,
    setDown: (value: boolean) => (down = value),
    addPeople: (churchId: string, list: PersonFacts[]) => people.set(churchId, [...(people.get(churchId) ?? []), ...list]),
    addMember: (churchId: string, groupId: string, personId: string, displayName: string, leader = false) =>
      groups.set(`${churchId}/${groupId}`, [...(groups.get(`${churchId}/${groupId}`) ?? []), { personId, displayName, leader }]),
  };
}
