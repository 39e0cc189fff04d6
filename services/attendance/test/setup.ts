import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, fakeInternal, personFacts as sharedPersonFacts, useApp, type TestApp } from '@church/common/testing';
import { membershipInternal, type ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';
import { campuses, groupServiceTimes, serviceTimes, services, sessions, visitSessions, visits } from '../src/db/schema';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** Starts the attendance app before the file's tests and closes it after; the returned object reads through to it. */
export const useAttendance = (opts: Parameters<typeof useApp>[3] = {}) => useApp('attendance', MIGRATIONS, buildApp, opts);
export { fakeInternal, makeChurch, type InternalCall } from '@church/common/testing';

/** The attendance app on a fresh test database (PostgreSQL with TEST_DATABASE_URL, else PGlite). */

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



/**
 * Membership's group lists as a fake answers `POST /membership/internal/groups/list`: `add(churchId, id, name)`
 * puts a whole group record (as membership keeps it) into that church's list.
 */
export function fakeGroupLists(extra: Record<string, (body: unknown) => unknown> = {}) {
  const lists = new Map<string, Array<Record<string, unknown>>>();
  const internal = fakeInternal({ 'POST /membership/internal/groups/list': (body) => lists.get((body as { churchId: string }).churchId) ?? [], ...extra });
  const add = (churchId: string, id: string, name: string) => {
    // what attendance answers of it (`LinkedGroup`)
    const group = { id, name, categoryName: 'Kids', slug: name.toLowerCase(), trackAttendance: true, parentPickup: false, printNametag: true };
    lists.set(churchId, [...(lists.get(churchId) ?? []), { ...group, churchId, about: null, photoUrl: null, tags: ['standard'], labels: [], meetingTime: null, meetingLocation: null, publicRoster: false, parentGroupId: null }]);
    return group;
  };
  return { internal, add };
}

/** Today's UTC day as `YYYY-MM-DD` (check-in dates sessions and visits by UTC day). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** A person as membership's `peopleFacts` answers them (`membershipInternal.peopleFacts`), of a household or none. */
export const personFacts = (id: string, householdId: string | null) => sharedPersonFacts({ id, householdId });

/**
 * Membership's people as a fake answers `POST /membership/internal/people/facts` (`peopleFacts`: the church's
 * live people among the ids, with their household) and `POST /membership/internal/version` (the church's
 * data version, raised by every change of its people): `add(churchId, householdId?)` makes a person of that
 * church and answers their id; `remove(id)` removes one (facts leave them out), `move(id, householdId)` moves
 * one; each raises their church's version. `down = true` makes membership unreachable. Pass `internal` as
 * `overrides.internal`; `calls` records what was asked. Merged into another fake (`routes`), both answer from
 * the same people and versions.
 */
export function fakePeople(extra: Record<string, (body: unknown) => unknown> = {}) {
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
    return wanted
      .filter((p) => p.churchId === churchId && !p.removed)
      .map((p) => personFacts(p.id, p.householdId));
  };
  // the events each church listens for (webhooks, workflow triggers); a church not set here cannot be answered for
  const listening = new Map<string, string[]>();
  const listened = (body: unknown) => {
    const events = listening.get((body as { churchId: string }).churchId);
    if (!events) throw new TypeError('fetch failed');
    return { events };
  };
  const routes = {
    'POST /membership/internal/people/facts': facts,
    [`POST ${membershipInternal.version.path}`]: version,
    [`POST ${membershipInternal.listenedEvents.path}`]: listened,
    ...extra,
  };
  const internal = fakeInternal(routes);
  return {
    internal,
    /** the fake's routes, to merge into another fake (`fakeGroupLists(people.routes)`) */
    routes,
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
    /** while true, asking for facts fails as an unreachable membership does */
    set down(value: boolean) {
      state.down = value;
    },
    /** how many times facts were asked for */
    factCalls: () => internal.calls.filter((c) => c.path === '/membership/internal/people/facts').length,
    /** how many times the version of a church's people was asked for */
    probeCalls: () => internal.calls.filter((c) => c.path === membershipInternal.version.path).length,
  };
}
