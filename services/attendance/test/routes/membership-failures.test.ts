import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { HttpError, membershipInternal } from '@church/common';
import { call, offContract } from '@church/common/testing';
import { sessions, visits } from '../../src/db/schema';
import { fakeMembership, linkGroup, personFacts, makeChurch, makePlaces, makeSession, makeVisit, useAttendance } from '../setup';

// How every attendance route that asks membership answers when membership fails (issue 32, item 5): a membership
// that is briefly away (503) is passed on as 503 with its Retry-After, so the apps retry; any other failure is
// attendance's 502 naming membership; never a 500, an empty or a partial answer, and a check-in writes nothing.

type Failure = 'busy' | 'down' | 'refused' | 'missing' | 'malformed';
/** which membership routes fail, and how (none: every route answers) */
const failing: { paths: string[] | 'all'; how?: Failure } = { paths: 'all' };
const fail = (path: string) => {
  if (!failing.how || (failing.paths !== 'all' && !failing.paths.includes(path))) return undefined;
  switch (failing.how) {
    case 'busy': // what the internal client throws for a 503 (membership's database restarting)
      throw new HttpError(503, [{ msg: 'The service is briefly unavailable; try again shortly' }], { 'retry-after': '7' });
    case 'down':
      throw new TypeError('fetch failed');
    case 'refused':
      throw new HttpError(401, [{ msg: 'Unauthorized' }]);
    case 'missing':
      throw new HttpError(404, [{ msg: 'Route not found' }]);
    case 'malformed': // an answer its contract refuses
      return offContract({ nope: true });
  }
};

const groupId = randomUUID();
const member = randomUUID();
const visitor = randomUUID();
const { groupsList, groupMembers, peopleBasic, peopleFacts, version, listenedEvents } = membershipInternal;
/** whether membership says what churches listen for (when it cannot, a check-in hands every event on) */
const listening = { answers: true };
let versions = 0;
const membership = fakeMembership({
  [`POST ${groupsList.path}`]: () =>
    fail(groupsList.path) ?? [{ id: groupId, name: 'Kids', categoryName: 'Kids', slug: 'kids', trackAttendance: true, parentPickup: false, printNametag: true }],
  [`POST ${groupMembers.path}`]: () =>
    fail(groupMembers.path) ?? [{ personId: member, displayName: 'Ann Lee', firstName: 'Ann', lastName: 'Lee', photo: null, leader: false }],
  [`POST ${peopleBasic.path}`]: (body: { ids: string[] }) =>
    fail(peopleBasic.path) ?? body.ids.map((id) => ({ id, displayName: 'Vic Visitor', firstName: 'Vic', lastName: 'Visitor', photo: null })),
  // a new version every time, so no person is kept between calls and each check-in asks for facts
  [`POST ${version.path}`]: () => fail(version.path) ?? { version: String(++versions) },
  // everyone asked about is a live person of one household
  [`POST ${peopleFacts.path}`]: (body: { ids?: string[] }) => fail(peopleFacts.path) ?? (body.ids ?? []).map((id) => personFacts(id, 'home')),
  [`POST ${listenedEvents.path}`]: () => {
    if (!listening.answers) throw new TypeError('fetch failed');
    return { events: ['attendance.recorded'] };
  },
});
// a staff check-in asks membership's version every time (no window in which kept people are taken as current)
const { internal } = membership;
const t = useAttendance({ config: { CHECKIN_PEOPLE_MAX_AGE_MS: '0' }, overrides: { internal } });

afterEach(() => {
  failing.paths = 'all';
  failing.how = undefined;
});

/** A church with a service time its group meets at, a session of it attended by a member and a visitor. */
async function church() {
  const c = makeChurch();
  const p = await makePlaces(t, c.churchId);
  await linkGroup(t, c.churchId, groupId, p.serviceTimeId);
  const sessionId = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-03-03');
  await makeVisit(t, c.churchId, member, p.serviceId, '2024-03-03', [sessionId]);
  await makeVisit(t, c.churchId, visitor, p.serviceId, '2024-03-03', [sessionId]);
  const body = [{ personId: c.personId, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId } }] }];
  const checkin = `/attendance/visits/checkin?serviceId=${p.serviceId}`;
  /** every route that asks membership, with a caller allowed to use it */
  const routes = [
    { name: 'service times with groups', method: 'GET', url: '/attendance/servicetimes?include=groups', token: c.token([]), asks: [groupsList.path] },
    { name: 'the place tree', method: 'GET', url: '/attendance/attendancerecords/tree', token: c.token([]), asks: [groupsList.path] },
    { name: 'the session download', method: 'GET', url: `/attendance/visitsessions/download/${sessionId}`, token: c.token(['Attendance.View']), asks: [groupMembers.path, peopleBasic.path] },
    { name: 'reading a household check-in', method: 'GET', url: `${checkin}&peopleIds=${c.personId}`, token: c.token(['Attendance.Checkin']), asks: [version.path, peopleFacts.path] },
    { name: 'a household check-in', method: 'POST', url: checkin, body, token: c.token(['Attendance.Checkin']), asks: [version.path, peopleFacts.path] },
    { name: 'a staff check-in', method: 'POST', url: checkin, body, token: c.token(['Attendance.Edit']), asks: [version.path, peopleFacts.path] },
  ] as const;
  return { ...c, ...p, sessionId, routes };
}

const send = (route: Awaited<ReturnType<typeof church>>['routes'][number]) => call(t.app, route.method, route.url, { token: route.token, body: 'body' in route ? route.body : undefined });
const checkedIn = async (churchId: string) => (await t.app.db.select().from(visits).where(eq(visits.churchId, churchId))).filter((v) => v.checkinTime !== null);

describe('a route that asks membership', () => {
  it('answers as usual while membership answers (each route asks what the failures below break)', async () => {
    const c = await church();
    for (const route of c.routes) {
      internal.calls.length = 0;
      const res = await send(route);
      expect([route.name, res.statusCode]).toEqual([route.name, 200]);
      // what a check-in's events are handed on to is asked once a while per church, and never fails it (below)
      expect([route.name, internal.calls.map((x) => x.path).filter((path) => path !== listenedEvents.path)]).toEqual([route.name, route.asks]);
    }
    expect(await checkedIn(c.churchId)).toHaveLength(1);
  });

  it('checks in when membership cannot say what the church listens for, and hands every event of it on', async () => {
    const c = await church();
    listening.answers = false;
    try {
      await t.drain();
      const before = t.deps.queue.handedOff.length;
      const res = await send(c.routes.find((r) => r.name === 'a household check-in')!);
      expect(res.statusCode).toBe(200);
      await t.drain();
      const events = t.deps.queue.handedOff.slice(before).flatMap((j) => (j.data as { records: Array<{ churchId: string; event?: string }> }).records.filter((r) => r.churchId === c.churchId).map((r) => r.event));
      expect(events.sort()).toEqual(['attendance.recorded', 'session.created']);
    } finally {
      listening.answers = true;
    }
    expect(await checkedIn(c.churchId)).toHaveLength(1);
  });

  it("answers 503 with membership's Retry-After when membership answered 503, for each of its calls, and writes nothing", async () => {
    const c = await church();
    for (const route of c.routes) {
      for (const path of route.asks) {
        failing.paths = [path];
        failing.how = 'busy';
        const res = await send(route);
        expect([route.name, path, res.statusCode, res.headers['retry-after'], res.json()]).toEqual([
          route.name,
          path,
          503,
          '7',
          { errors: ['The service is briefly unavailable; try again shortly'] },
        ]);
      }
    }
    expect(await checkedIn(c.churchId)).toEqual([]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toHaveLength(1);
  });

  it('answers 502 naming membership, not its status nor a 500, when membership fails otherwise, and writes nothing', async () => {
    const c = await church();
    for (const [how, msg] of [
      ['down', 'membership is unreachable'],
      ['refused', 'membership answered 401'],
      ['missing', 'membership answered 404'],
      ['malformed', 'membership answered an unexpected shape'],
    ] as const) {
      for (const route of c.routes) {
        for (const path of route.asks) {
          failing.paths = [path];
          failing.how = how;
          const res = await send(route);
          expect([route.name, path, res.statusCode, res.headers['retry-after'], res.json()]).toEqual([route.name, path, 502, undefined, { errors: [msg] }]);
        }
      }
    }
    expect(await checkedIn(c.churchId)).toEqual([]);
  });
});
