import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from '@church/common/testing';
import { HttpError, type InternalClient, type ModuleName, type ServiceDeps } from '@church/common';
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

export interface InternalCall {
  module: ModuleName;
  method: string;
  path: string;
  body?: unknown;
}

/**
 * Membership as messaging sees it over signed internal HTTP: people with contacts and groups, answering the
 * `membershipInternal` contracts (`contacts`, `optOut`, `church`, `peopleFacts`). Records every call. Tests add the
 * other modules' contracts they need to `routes`.
 */
export function fakeMembership() {
  const people: FakePerson[] = [];
  const churches = new Map<string, string>();
  const calls: InternalCall[] = [];
  let down = false;
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
  const request = async <T>(module: ModuleName, method: string, p: string, body?: unknown): Promise<T> => {
    calls.push({ module, method, path: p, body });
    if (down) throw new HttpError(502, [{ msg: 'membership answered 503' }]);
    const handler = routes[`${method} ${p}`];
    if (!handler) throw new HttpError(404, [{ msg: `no fake for ${method} ${p}` }]);
    return structuredClone(await handler((body ?? {}) as Record<string, unknown>)) as T;
  };
  const internal: InternalClient = { request, get: (m, p) => request(m, 'GET', p), post: (m, p, b) => request(m, 'POST', p, b) };
  return {
    internal,
    calls,
    people,
    /** answers of other modules' contracts (`POST /content/internal/...`), set by the tests that need them */
    routes,
    setDown: (v: boolean) => (down = v),
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

export async function startMessaging(opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; membership?: FakeMembership } = {}): Promise<MessagingTest> {
  const membership = opts.membership ?? fakeMembership();
  const t = await createTestApp('messaging', MIGRATIONS, buildApp, { config: opts.config, overrides: { internal: membership.internal, ...opts.overrides } });
  return Object.assign(t, { membership });
}

/** Starts the messaging app before the file's tests and closes it after; the returned object reads through to it. */
export function useMessaging(opts: Parameters<typeof startMessaging>[0] = {}): MessagingTest {
  let current: MessagingTest | undefined;
  beforeAll(async () => {
    current = await startMessaging(opts);
  });
  afterAll(() => current?.close());
  return new Proxy({} as MessagingTest, { get: (_t, key) => current![key as keyof MessagingTest] });
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
