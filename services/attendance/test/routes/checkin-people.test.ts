import { and, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { visits } from '../../src/db/schema';
import { fakeMembership, makeChurch, makePlaces, makeVisit, useAttendance, todayUtc } from '../setup';

// Who a check-in may name (issues 13 and 14): a caller whose only attendance right is Attendance.Checkin acts on
// their own household; Attendance.View / Attendance.Edit holders on anyone of the church; nobody on an id that is
// not a live person of the church. Membership's people come from the fake `peopleFacts` route.
// These tests ask membership's version on every check-in (CHECKIN_PEOPLE_MAX_AGE_MS 0), so each change in
// membership is seen at the next request; the window a deployment keeps is tested at the end.
const people = fakeMembership();
const t = useAttendance({ config: { CHECKIN_PEOPLE_MAX_AGE_MS: '0' }, overrides: { internal: people.internal } });

const visitsOf = (churchId: string, personId: string) =>
  t.app.db.select().from(visits).where(and(eq(visits.churchId, churchId), eq(visits.personId, personId)));

/** A church with a service, the caller's household (caller, spouse, kid) and a neighbour's household. */
async function household() {
  const c = makeChurch();
  const p = await makePlaces(t, c.churchId);
  const home = randomUUID();
  people.add(c.churchId, home, c.personId);
  const [spouse, kid] = [people.add(c.churchId, home), people.add(c.churchId, home)];
  const neighbour = people.add(c.churchId);
  const item = (personId: string, groupId = randomUUID()) => ({ personId, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId } }] });
  const post = (token: string, body: unknown, peopleIds: string[] = []) =>
    call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}${peopleIds.length ? `&peopleIds=${peopleIds.join(',')}` : ''}`, { token, body });
  const get = (token: string, peopleIds: string[]) => call(t.app, 'GET', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${peopleIds.join(',')}`, { token });
  return { c, p, home, spouse, kid, neighbour, item, post, get };
}

describe('check-in with only Attendance.Checkin: the own household', () => {
  it('reads and submits check-ins for the own household', async () => {
    const h = await household();
    const token = h.c.token(['Attendance.Checkin']);
    const res = await h.post(token, [h.item(h.c.personId), h.item(h.kid)], [h.spouse]);
    expect(res.statusCode).toBe(200);
    expect(res.json().visits.map((v: { personId: string }) => v.personId)).toEqual([h.c.personId, h.kid]);
    const read = await h.get(token, [h.c.personId, h.spouse, h.kid]);
    expect(read.statusCode).toBe(200);
    expect(read.json().map((v: { personId: string }) => v.personId).sort()).toEqual([h.c.personId, h.kid].sort());
  });

  it("refuses with 401 to read another household's check-in", async () => {
    const h = await household();
    await makeVisit(t, h.c.churchId, h.neighbour, h.p.serviceId, '2024-06-09');
    const token = h.c.token(['Attendance.Checkin']);
    for (const ids of [[h.neighbour], [h.kid, h.neighbour], [randomUUID()]]) {
      const res = await h.get(token, ids);
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0]).toMatch(/own household/);
    }
  });

  it("refuses with 401 to submit or erase another household's check-in, and writes nothing", async () => {
    const h = await household();
    const visitId = await makeVisit(t, h.c.churchId, h.neighbour, h.p.serviceId, todayUtc());
    const token = h.c.token(['Attendance.Checkin']);
    // checking the neighbour in (alone or with the own kid)
    expect((await h.post(token, [h.item(h.neighbour)])).statusCode).toBe(401);
    expect((await h.post(token, [h.item(h.kid), h.item(h.neighbour)])).statusCode).toBe(401);
    // erasing the neighbour's visit: in scope through peopleIds, absent from the body
    const erase = await h.post(token, [], [h.neighbour]);
    expect(erase.statusCode).toBe(401);
    expect(erase.json().errors[0]).toMatch(/own household/);
    expect((await visitsOf(h.c.churchId, h.neighbour)).map((v) => v.id)).toEqual([visitId]);
    expect(await visitsOf(h.c.churchId, h.kid)).toEqual([]);
  });

  it('refuses a caller who has no person, or whose person is not a live person of the church', async () => {
    const h = await household();
    const noPerson = h.c.token(['Attendance.Checkin'], { personId: null });
    expect((await h.get(noPerson, [h.kid])).statusCode).toBe(401);
    const stranger = makeChurch();
    const outsider = stranger.token(['Attendance.Checkin'], { churchId: h.c.churchId });
    expect((await h.post(outsider, [h.item(stranger.personId)])).statusCode).toBe(401);
    // a caller whose household is none may check in only themself
    const alone = makeChurch();
    people.add(h.c.churchId, null, alone.personId);
    const lone = alone.token(['Attendance.Checkin'], { churchId: h.c.churchId });
    expect((await h.post(lone, [h.item(alone.personId)])).statusCode).toBe(200);
    expect((await h.post(lone, [h.item(h.kid)])).statusCode).toBe(401);
    // a removed caller is no longer of the household
    const gone = makeChurch();
    people.add(h.c.churchId, h.home, gone.personId);
    people.remove(gone.personId);
    expect((await h.get(gone.token(['Attendance.Checkin'], { churchId: h.c.churchId }), [h.kid])).statusCode).toBe(401);
  });

  it('lets Attendance.View read and Attendance.Edit submit for anyone of the church', async () => {
    const h = await household();
    await makeVisit(t, h.c.churchId, h.neighbour, h.p.serviceId, '2024-06-09');
    const viewer = makeChurch().token(['Attendance.View', 'Attendance.Checkin'], { churchId: h.c.churchId });
    const read = await h.get(viewer, [h.neighbour]);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toHaveLength(1);
    // View does not widen a submission: with Checkin it is still the caller's household only
    expect((await h.post(viewer, [h.item(h.neighbour)])).statusCode).toBe(401);
    const editor = makeChurch().token(['Attendance.Edit'], { churchId: h.c.churchId });
    const res = await h.post(editor, [h.item(h.neighbour), h.item(h.kid)]);
    expect(res.statusCode).toBe(200);
    expect((await visitsOf(h.c.churchId, h.neighbour)).map((v) => v.visitDate.toISOString().slice(0, 10))).toContain(todayUtc());
  });
});

describe('check-in of people who are not the church’s', () => {
  it('refuses a random id, another church’s person and a removed person with 400 naming the item, and writes nothing', async () => {
    const h = await household();
    const other = makeChurch();
    const foreigner = people.add(other.churchId);
    const removed = people.add(h.c.churchId);
    people.remove(removed);
    const editor = h.c.token(['Attendance.Edit']);
    const res = await h.post(editor, [h.item(h.kid), h.item(randomUUID()), h.item(foreigner), h.item(removed)]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { msg: 'not a person of this church', param: '[1].personId', location: 'body' },
      { msg: 'not a person of this church', param: '[2].personId', location: 'body' },
      { msg: 'not a person of this church', param: '[3].personId', location: 'body' },
    ]);
    expect(await visitsOf(h.c.churchId, h.kid)).toEqual([]);
    // one object (not an array) names the field alone
    const single = await h.post(editor, h.item(randomUUID()));
    expect(single.statusCode).toBe(400);
    expect(single.json().errors[0]).toMatchObject({ param: 'personId', location: 'body' });
    // the trend counts nothing for them
    const trend = await call(t.app, 'GET', '/attendance/attendancerecords/trend', { token: h.c.token(['Attendance.View Summary']) });
    expect(trend.json()).toEqual([]);
  });

  it('asks membership for the people it does not keep at the church’s current version, in one call, and not at all for a kept household', async () => {
    const h = await household();
    const editor = h.c.token(['Attendance.Edit']);
    const before = people.factCalls();
    expect((await h.post(editor, [h.item(h.kid), h.item(h.spouse)])).statusCode).toBe(200);
    expect(people.factCalls()).toBe(before + 1);
    const asked = people.internal.calls.filter((c) => c.path === '/membership/internal/people/facts').at(-1)!;
    expect(asked).toMatchObject({ module: 'membership', method: 'POST', path: '/membership/internal/people/facts' });
    expect((asked.body as { ids: string[] }).ids.sort()).toEqual([h.kid, h.spouse].sort());
    // the same people again: kept, only the version is asked
    const probes = people.probeCalls();
    expect((await h.post(editor, [h.item(h.kid), h.item(h.spouse)])).statusCode).toBe(200);
    expect(people.factCalls()).toBe(before + 1);
    expect(people.probeCalls()).toBe(probes + 1);
    // an id that is no person of the church is kept as such while nothing changes: refused without a call
    const stranger = randomUUID();
    expect((await h.post(editor, [h.item(h.kid), h.item(stranger)])).statusCode).toBe(400);
    expect(people.factCalls()).toBe(before + 2);
    expect((people.internal.calls.at(-1)!.body as { ids: string[] }).ids).toEqual([stranger]);
    expect((await h.post(editor, [h.item(stranger)])).statusCode).toBe(400);
    expect(people.factCalls()).toBe(before + 2);
    // a person added in membership changes the version: what was kept is asked for again, with them, in one call
    const visitor = people.add(h.c.churchId);
    expect((await h.post(editor, [h.item(h.kid), h.item(visitor)])).statusCode).toBe(200);
    expect(people.factCalls()).toBe(before + 3);
    expect((people.internal.calls.at(-1)!.body as { ids: string[] }).ids.sort()).toEqual([h.kid, visitor].sort());
    // the household's own check-in: caller and household in one call, then kept
    const token = h.c.token(['Attendance.Checkin']);
    expect((await h.post(token, [h.item(h.c.personId)], [h.kid])).statusCode).toBe(200);
    expect(people.factCalls()).toBe(before + 4);
    expect((await h.get(token, [h.c.personId, h.kid])).statusCode).toBe(200);
    expect(people.factCalls()).toBe(before + 4);
  });

  it('accepts a person added in membership just now, even one refused a moment before, and refuses a removed one at once', async () => {
    const h = await household();
    const editor = h.c.token(['Attendance.Edit']);
    // kept as a live person of the church
    expect((await h.post(editor, [h.item(h.kid)])).statusCode).toBe(200);
    // refused (and kept as no person of the church), then created in membership with that id: accepted
    const newcomer = randomUUID();
    const refused = await h.post(editor, [h.item(newcomer)]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([{ msg: 'not a person of this church', param: '[0].personId', location: 'body' }]);
    people.add(h.c.churchId, null, newcomer);
    const accepted = await h.post(editor, [h.item(newcomer)]);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().visits.map((v: { personId: string }) => v.personId)).toEqual([newcomer]);
    expect(await visitsOf(h.c.churchId, newcomer)).toHaveLength(1);
    // the kept kid is removed in membership: the next check-in refuses them and writes nothing
    people.remove(h.kid);
    const res = await h.post(editor, [h.item(h.spouse), h.item(h.kid)]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ msg: 'not a person of this church', param: '[1].personId', location: 'body' }]);
    expect(await visitsOf(h.c.churchId, h.spouse)).toEqual([]);
  });

  it('sees a household move at once for a caller who checks in their own household', async () => {
    const h = await household();
    const token = h.c.token(['Attendance.Checkin']);
    expect((await h.post(token, [h.item(h.kid)])).statusCode).toBe(200);
    people.move(h.kid, randomUUID());
    const res = await h.post(token, [h.item(h.kid)]);
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0]).toMatch(/own household/);
    people.move(h.neighbour, h.home);
    expect((await h.post(token, [h.item(h.neighbour)])).statusCode).toBe(200);
  });

  it('answers 502 in the error shape when membership cannot answer, and writes nothing', async () => {
    const c = makeChurch(); // nobody of this church is kept
    const p = await makePlaces(t, c.churchId);
    const personId = randomUUID();
    const body = [{ personId, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: randomUUID() } }] }];
    people.down = true;
    try {
      for (const token of [c.token(['Attendance.Edit']), c.token(['Attendance.Checkin'])]) {
        const res = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token, body });
        expect(res.statusCode).toBe(502);
        expect(res.json()).toEqual({ errors: ['membership is unreachable'] });
      }
      const read = await call(t.app, 'GET', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${personId}`, { token: c.token(['Attendance.Checkin']) });
      expect(read.statusCode).toBe(502);
    } finally {
      people.down = false;
    }
    expect(await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId))).toEqual([]);
  });
});

describe('staff check-ins within CHECKIN_PEOPLE_MAX_AGE_MS', () => {
  const fake = fakeMembership();
  const w = useAttendance({ config: { CHECKIN_PEOPLE_MAX_AGE_MS: '60000' }, overrides: { internal: fake.internal } });

  it('ask membership nothing for kept people, still refuse an unknown id with its answer, and leave the household rule asking at once', async () => {
    const c = makeChurch();
    const p = await makePlaces(w, c.churchId);
    const home = randomUUID();
    fake.add(c.churchId, home, c.personId);
    const [kid, neighbour] = [fake.add(c.churchId, home), fake.add(c.churchId)];
    const item = (personId: string) => ({ personId, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: randomUUID() } }] });
    const post = (token: string, body: unknown) => call(w.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token, body });
    const editor = c.token(['Attendance.Edit']);
    expect((await post(editor, [item(kid), item(neighbour)])).statusCode).toBe(200);
    const probes = fake.probeCalls();
    const asked = fake.factCalls();
    expect((await post(editor, [item(kid), item(neighbour)])).statusCode).toBe(200);
    expect([fake.probeCalls(), fake.factCalls()]).toEqual([probes, asked]);
    // an id membership does not know is refused after asking it, and nothing is written
    const stranger = randomUUID();
    const refused = await post(editor, [item(kid), item(stranger)]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([{ msg: 'not a person of this church', param: '[1].personId', location: 'body' }]);
    expect(fake.factCalls()).toBe(asked + 1);
    // a member's own household check-in asks the version every time: a move out of the household is seen at once
    const member = c.token(['Attendance.Checkin']);
    expect((await post(member, [item(kid)])).statusCode).toBe(200);
    fake.move(kid, randomUUID());
    expect((await post(member, [item(kid)])).statusCode).toBe(401);
    expect(fake.probeCalls()).toBe(probes + 2);
  });
});
