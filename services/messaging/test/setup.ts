import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, fakeInternal, useModule, type TestApp } from '@church/common/testing';
import { HttpError, type ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');
export { makeChurch } from '@church/common/testing';

export interface FakePerson {
  id: string;
  churchId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  mobilePhone: string | null;
  optedOut: boolean;
  groupIds: string[];
  leaderGroupIds: string[];
}

/**
 * Membership as messaging sees it over signed internal HTTP: people with contacts and groups, answering the
 * `membershipInternal` contracts (`contacts`, `optOut`, `church`, `peopleFacts`), over `fakeInternal` (each answer
 * checked against its contract; `internal.calls` records every call). Tests add the other modules' contracts they
 * need (content's events, doing's plans) to `routes`.
 */
export function fakeMembership() {
  const people: FakePerson[] = [];
  const churches = new Map<string, string>();
  const contact = (p: FakePerson, groupId?: string) => ({
    id: p.id,
    firstName: p.firstName,
    lastName: p.lastName,
    displayName: `${p.firstName} ${p.lastName}`,
    email: p.email,
    mobilePhone: p.mobilePhone,
    optedOut: p.optedOut,
    leader: groupId ? p.leaderGroupIds.includes(groupId) : false,
  });
  const routes: Record<string, (body: Record<string, unknown>) => unknown> = {
    'POST /membership/internal/people/contacts': (b) => {
      const inChurch = people.filter((p) => p.churchId === b.churchId);
      if (b.groupId) return inChurch.filter((p) => p.groupIds.includes(b.groupId as string)).map((p) => contact(p, b.groupId as string));
      const ids = (b.ids as string[] | undefined) ?? [];
      return inChurch.filter((p) => ids.includes(p.id)).map((p) => contact(p));
    },
    'POST /membership/internal/people/optOut': (b) => {
      const digits = (s: string) => s.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '');
      const hit = people.filter((p) => p.churchId === b.churchId && p.mobilePhone && digits(p.mobilePhone) === digits(b.phone as string));
      for (const p of hit) p.optedOut = b.optedOut as boolean;
      return { personIds: hit.map((p) => p.id) };
    },
    'POST /membership/internal/church': (b) => {
      const name = churches.get(b.churchId as string);
      if (!name) throw new HttpError(404, [{ msg: 'Church not found' }]);
      return { id: b.churchId, name, subDomain: null };
    },
    'POST /membership/internal/people/facts': (b) =>
      people
        .filter((p) => p.churchId === b.churchId && ((b.ids as string[] | undefined) ?? []).includes(p.id))
        .map((p) => ({ ...contact(p), birthDate: null, anniversary: null, gender: null, maritalStatus: null, membershipStatus: 'Member', campusId: null, householdId: null, groupIds: p.groupIds, leaderGroupIds: p.leaderGroupIds })),
  };
  const internal = fakeInternal(routes);
  return {
    internal,
    calls: internal.calls,
    people,
    /** the fake's answers by `POST /path`; tests add other modules' contracts (`POST /content/internal/...`) */
    routes,
    addChurch: (churchId: string, name: string) => churches.set(churchId, name),
    addPerson(churchId: string, p: Partial<FakePerson> = {}): FakePerson {
      const person: FakePerson = {
        id: randomUUID(),
        churchId,
        firstName: 'Pat',
        lastName: `Person${people.length}`,
        email: `p${people.length}-${randomUUID().slice(0, 4)}@example.test`,
        mobilePhone: `+1555${String(1000000 + people.length).slice(-7)}`,
        optedOut: false,
        groupIds: [],
        leaderGroupIds: [],
        ...p,
      };
      people.push(person);
      return person;
    },
  };
}
export type FakeMembership = ReturnType<typeof fakeMembership>;

export interface MessagingTest extends TestApp {
  membership: FakeMembership;
}

/** What a test's fakes started before the app add to it (`useModule`'s `fakes`): a provider's loopback server, say. */
type Started<X> = X & { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; close?: () => Promise<void> };

/**
 * The one lifecycle of messaging's tests: the app on a fresh test database with a fake membership (`membership`,
 * a new one unless given), started before the file's (or the describe's) tests and closed after; the returned
 * object reads through to it. `fakes` starts what the app talks to first (a provider's server) and adds its config.
 */
export function useMessaging<X extends object = object>(
  opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; membership?: FakeMembership; fakes?: () => Promise<Started<X>> } = {},
) {
  return useModule({
    module: 'messaging',
    migrations: MIGRATIONS,
    build: buildApp,
    config: opts.config,
    overrides: opts.overrides,
    fakes: async (): Promise<Started<X & { membership: FakeMembership }>> => {
      const membership = opts.membership ?? fakeMembership();
      const started = opts.fakes ? await opts.fakes() : ({} as Started<X>);
      return { ...started, membership, overrides: { internal: membership.internal, ...started.overrides } };
    },
  });
}

/**
 * A messaging app whose lifecycle is a test's own subject (a replica that dies in the middle of the test); every
 * other test starts its app with `useMessaging`.
 */
export async function startMessaging(opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; membership?: FakeMembership } = {}): Promise<MessagingTest> {
  const membership = opts.membership ?? fakeMembership();
  const t = await createTestApp('messaging', MIGRATIONS, buildApp, { config: opts.config, overrides: { internal: membership.internal, ...opts.overrides } });
  return Object.assign(t, { membership });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` answers truthy (real-time deliveries and queued work), failing after `ms`. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await sleep(25);
  }
  throw last instanceof Error ? last : new Error('condition not met in time');
}
