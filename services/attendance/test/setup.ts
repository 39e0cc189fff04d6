import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, fakeInternal, personFacts as sharedPersonFacts, useModule, type TestApp } from '@church/common/testing';
import { membershipInternal, type ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';
import { campuses, groupServiceTimes, serviceTimes, services, sessions, visitSessions, visits } from '../src/db/schema';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/**
 * The one lifecycle of attendance's tests: the app on a fresh test database (PostgreSQL with TEST_DATABASE_URL,
 * else PGlite), started before the file's tests and closed after; the returned object reads through to it. Pass
 * a fake membership's `internal` in `overrides` (`fakeMembership`).
 */
export const useAttendance = (opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {}) =>
  useModule({ module: 'attendance', migrations: MIGRATIONS, build: buildApp, config: opts.config, overrides: opts.overrides });
export { makeChurch, type InternalCall } from '@church/common/testing';

/**
 * The attendance app alone, for a test outside this service that manages its own lifecycle (the shared package's
 * OpenAPI test); attendance's own tests call `useAttendance`.
 */
export function startAttendance(opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {}): Promise<TestApp> {
  return createTestApp('attendance', MIGRATIONS, buildApp, opts);
}

/** A campus → service → service time chain inserted directly; pass names to tell several apart. */
export async function makePlaces(t: TestApp, churchId: string, names: { campus?: string; service?: string; time?: string } = {}) {
  const campusId = randomUUID();
  const serviceId = randomUUID();
  const serviceTimeId = randomUUID();
  await t.app.db.insert(campuses).values({ id: campusId, churchId, name: names.campus ?? 'Main' });
  await t.app.db.insert(services).values({ id: serviceId, churchId, campusId, name: names.service ?? 'Sunday' });
  await t.app.db.insert(serviceTimes).values({ id: serviceTimeId, churchId, serviceId, name: names.time ?? '9:00' });
  return { campusId, serviceId, serviceTimeId };
}

/** Another time of an existing service. */
export async function makeServiceTime(t: TestApp, churchId: string, serviceId: string, name = '11:00') {
  const id = randomUUID();
  await t.app.db.insert(serviceTimes).values({ id, churchId, serviceId, name });
  return id;
}

/** Links a group to a service time. */
export async function linkGroup(t: TestApp, churchId: string, groupId: string, serviceTimeId: string) {
  const id = randomUUID();
  await t.app.db.insert(groupServiceTimes).values({ id, churchId, groupId, serviceTimeId });
  return id;
}

/** A session of a group on a day (`YYYY-MM-DD`, UTC midnight). */
export async function makeSession(t: TestApp, churchId: string, groupId: string, serviceTimeId: string | null, day: string) {
  const id = randomUUID();
  await t.app.db.insert(sessions).values({ id, churchId, groupId, serviceTimeId, sessionDate: new Date(`${day}T00:00:00Z`) });
  return id;
}

/** A visit of a person on a day, attending the given sessions. */
export async function makeVisit(t: TestApp, churchId: string, personId: string, serviceId: string | null, day: string, sessionIds: string[] = []) {
  const id = randomUUID();
  await t.app.db.insert(visits).values({ id, churchId, personId, serviceId, visitDate: new Date(`${day}T00:00:00Z`) });
  for (const sessionId of sessionIds) await t.app.db.insert(visitSessions).values({ id: randomUUID(), churchId, visitId: id, sessionId });
  return id;
}



/** Today's UTC day as `YYYY-MM-DD` (check-in dates sessions and visits by UTC day). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** A person as membership's `peopleFacts` answers them (`membershipInternal.peopleFacts`), of a household or none. */
export const personFacts = (id: string, householdId: string | null) => sharedPersonFacts({ id, householdId });

/**
 * An answer of a membership that drifted from its contract, for the tests of how attendance takes one (a 502
 * naming membership): a route of `fakeMembership` throws it, and the fake answers it as it is. Every other answer
 * of the fake is checked against its contract (`fakeInternal`), so only a test that means to can send one.
 */
/**
 * Membership as attendance's tests fake it, over `fakeInternal` (each answer checked against its contract):
 * - its people, as `POST /membership/internal/people/facts` (`peopleFacts`: the church's live people among the
 *   ids, with their household) and `POST /membership/internal/version` (the church's data version, raised by
 *   every change of its people) answer them: `add(churchId, householdId?)` makes a person of that church and
 *   answers their id; `remove(id)` removes one (facts leave them out), `move(id, householdId)` moves one; each
 *   raises their church's version. `down = true` makes membership unreachable for both;
 * - the events each church listens for (`listen(churchId, ...events)`; a church not set cannot be answered for);
 * - its group lists, as `POST /membership/internal/groups/list` answers them: `addGroup(churchId, id, name)` puts
 *   a whole group record (as membership keeps it) into that church's list and answers what attendance shows of it.
 * `routes` answer the rest, or instead (a test's roster, its failures; `offContract(answer)` for a malformed one).
 * Pass `internal` as `overrides.internal`; `internal.calls` records what was asked.
 */
export function fakeMembership(routes: Parameters<typeof fakeInternal>[0] = {}) {
  const people = new Map<string, { id: string; churchId: string; householdId: string | null; removed: boolean }>();
  const state = { down: false };
  // the church's data version, raised by every change of its people
  const versions = new Map<string, number>();
  const changed = (churchId: string) => versions.set(churchId, (versions.get(churchId) ?? 0) + 1);
  const version = (body: unknown) => {
    if (state.down) throw new TypeError('fetch failed');
    const { churchId } = body as { churchId: string };
    return { version: String(versions.get(churchId) ?? 0) };
  };
  const facts = (body: unknown) => {
    if (state.down) throw new TypeError('fetch failed'); // as the client fails when membership is unreachable
    const { churchId, ids } = body as { churchId: string; ids?: string[] };
    const wanted = ids ? ids.map((id) => people.get(id)).filter((p) => p !== undefined) : [...people.values()];
    return wanted.filter((p) => p.churchId === churchId && !p.removed).map((p) => personFacts(p.id, p.householdId));
  };
  // the events each church listens for (webhooks, workflow triggers); a church not set here cannot be answered for
  const listening = new Map<string, string[]>();
  const listened = (body: unknown) => {
    const events = listening.get((body as { churchId: string }).churchId);
    if (!events) throw new TypeError('fetch failed');
    return { events };
  };
  const groupLists = new Map<string, Array<Record<string, unknown>>>();
  const fake = fakeInternal({
    [`POST ${membershipInternal.peopleFacts.path}`]: facts,
    [`POST ${membershipInternal.version.path}`]: version,
    [`POST ${membershipInternal.listenedEvents.path}`]: listened,
    [`POST ${membershipInternal.groupsList.path}`]: (body) => groupLists.get((body as { churchId: string }).churchId) ?? [],
    ...routes,
  });
  return {
    internal: fake,
    add(churchId: string, householdId: string | null = randomUUID(), id: string = randomUUID()) {
      people.set(id, { id, churchId, householdId, removed: false });
      changed(churchId);
      return id;
    },
    remove(id: string) {
      const person = people.get(id)!;
      person.removed = true;
      changed(person.churchId);
    },
    move(id: string, householdId: string | null) {
      const person = people.get(id)!;
      person.householdId = householdId;
      changed(person.churchId);
    },
    /** the events the church listens for, as membership will answer them (unset: membership cannot answer) */
    listen(churchId: string, ...events: string[]) {
      listening.set(churchId, events);
    },
    /** while true, asking for facts or the version fails as an unreachable membership does */
    set down(value: boolean) {
      state.down = value;
    },
    /** how many times facts were asked for */
    factCalls: () => fake.calls.filter((c) => c.path === membershipInternal.peopleFacts.path).length,
    /** how many times the version of a church's people was asked for */
    probeCalls: () => fake.calls.filter((c) => c.path === membershipInternal.version.path).length,
    /** a group of the church's list; answers what attendance shows of it (`LinkedGroup`) */
    addGroup(churchId: string, id: string, name: string) {
      const group = { id, name, categoryName: 'Kids', slug: name.toLowerCase(), trackAttendance: true, parentPickup: false, printNametag: true };
      groupLists.set(churchId, [...(groupLists.get(churchId) ?? []), { ...group, churchId, about: null, photoUrl: null, tags: ['standard'], labels: [], meetingTime: null, meetingLocation: null, publicRoster: false, parentGroupId: null }]);
      return group;
    },
  };
}
export type FakeMembership = ReturnType<typeof fakeMembership>;
