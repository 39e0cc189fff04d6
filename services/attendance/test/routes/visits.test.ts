import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { sessions, visitSessions, visits } from '../../src/db/schema';
import { fakeMembership, makeChurch, makePlaces, makeServiceTime, makeSession, makeVisit, useAttendance, todayUtc } from '../setup';

// Membership's people (live people and their households), as check-in asks for them.
const people = fakeMembership();
const t = useAttendance({ overrides: { internal: people.internal } });

const ID = '00000000-0000-4000-8000-000000000001';

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/visits', permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/visits/${ID}`, permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/visits/checkin?serviceId=${ID}&peopleIds=${ID}`, permission: 'Attendance.Checkin' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/visits', body: { personId: ID, visitDate: '2024-01-01' }, permission: 'Attendance.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: `/attendance/visits/checkin?serviceId=${ID}`, body: [], permission: 'Attendance.Checkin' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/visits/${ID}`, permission: 'Attendance.Edit' }, c.churchId);
    // View alone does not submit a check-in
    const viewer = c.token(['Attendance.View']);
    expect((await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${ID}`, { token: viewer, body: [] })).statusCode).toBe(401);
  });
});

describe('POST, GET and DELETE /attendance/visits', () => {
  it('saves a visit, lists it by person, reads it with its visit sessions, deletes both', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const personId = randomUUID();
    const res = await call(t.app, 'POST', '/attendance/visits', { token: c.token(['Attendance.Edit']), body: { personId, serviceId: p.serviceId, visitDate: '2024-05-05' } });
    expect(res.statusCode).toBe(200);
    const [visit] = res.json();
    expect(visit).toEqual({ id: expect.any(String), personId, serviceId: p.serviceId, visitDate: '2024-05-05T00:00:00.000Z', checkinTime: null, visitSessions: [] });
    const older = await makeVisit(t, c.churchId, personId, p.serviceId, '2024-04-28');
    await makeVisit(t, c.churchId, randomUUID(), p.serviceId, '2024-05-05');

    const view = c.token(['Attendance.View']);
    const list = await call(t.app, 'GET', `/attendance/visits?personId=${personId}`, { token: view });
    expect(list.json().map((v: { id: string }) => v.id)).toEqual([visit.id, older]);
    expect((await call(t.app, 'GET', '/attendance/visits', { token: view })).json()).toHaveLength(3);

    const sessionId = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-05-05');
    await t.app.db.insert(visitSessions).values({ id: randomUUID(), churchId: c.churchId, visitId: visit.id, sessionId });
    const got = await call(t.app, 'GET', `/attendance/visits/${visit.id}`, { token: view });
    expect(got.json().visitSessions).toEqual([
      { id: expect.any(String), visitId: visit.id, sessionId, session: { id: sessionId, groupId: expect.any(String), serviceTimeId: p.serviceTimeId, sessionDate: '2024-05-05T00:00:00.000Z' } },
    ]);

    expect((await call(t.app, 'DELETE', `/attendance/visits/${visit.id}`, { token: c.token(['Attendance.Edit']) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(visits).where(eq(visits.id, visit.id))).toEqual([]);
    expect(await t.app.db.select().from(visitSessions).where(eq(visitSessions.visitId, visit.id))).toEqual([]);
  });

  it('validates and keeps churches apart', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, a.churchId);
    const visitId = await makeVisit(t, a.churchId, randomUUID(), p.serviceId, '2024-01-07');
    const edit = b.token(['Attendance.Edit']);
    const noPerson = await call(t.app, 'POST', '/attendance/visits', { token: edit, body: [{ visitDate: '2024-01-07' }] });
    expect(noPerson.statusCode).toBe(400);
    expect(noPerson.json().errors[0].param).toBe('[0].personId');
    const foreign = await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { personId: randomUUID(), serviceId: p.serviceId, visitDate: '2024-01-07' } });
    expect(foreign.json().errors[0].param).toBe('serviceId');
    const badId = await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { personId: 'bob', visitDate: '2024-01-07' } });
    expect(badId.json().errors[0].param).toBe('personId');
    expect((await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { id: visitId, visitDate: '2020-01-01' } })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/attendance/visits/${visitId}`, { token: b.token(['Attendance.View']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/attendance/visits/${visitId}`, { token: edit })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/attendance/visits', { token: b.token(['Attendance.View']) })).json()).toEqual([]);
    expect(await t.app.db.select().from(visits).where(eq(visits.churchId, b.churchId))).toEqual([]);
    expect((await t.app.db.select().from(visits).where(eq(visits.id, visitId)))[0]!.visitDate.toISOString()).toBe('2024-01-07T00:00:00.000Z');
  });
});

describe('moving visits from one person to another (B1Admin merges people so)', () => {
  it("folds a moved visit into the person's visit at the same service that day; other visits just move; a new duplicate is 409", async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const [winner, loser] = [randomUUID(), randomUUID()];
    const [kids, adults] = [randomUUID(), randomUUID()];
    const kidsSession = await makeSession(t, c.churchId, kids, p.serviceTimeId, '2024-05-05');
    const adultsSession = await makeSession(t, c.churchId, adults, p.serviceTimeId, '2024-05-05');
    const kept = await makeVisit(t, c.churchId, winner, p.serviceId, '2024-05-05', [kidsSession]);
    const same = await makeVisit(t, c.churchId, loser, p.serviceId, '2024-05-05', [kidsSession, adultsSession]);
    const other = await makeVisit(t, c.churchId, loser, p.serviceId, '2024-05-12');
    const edit = c.token(['Attendance.Edit', 'Attendance.View', 'Attendance.View Summary']);

    // Merge.tsx posts each visit it read back with the winner's personId
    const read = (await call(t.app, 'GET', `/attendance/visits?personId=${loser}`, { token: edit })).json();
    const answers = [];
    for (const visit of read) answers.push(await call(t.app, 'POST', '/attendance/visits', { token: edit, body: [{ ...visit, personId: winner }] }));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
    const [moved, folded] = answers.map((r) => r.json()[0]);
    expect(moved).toMatchObject({ id: other, personId: winner, visitDate: '2024-05-12T00:00:00.000Z' });
    expect(folded).toMatchObject({ id: kept, personId: winner, visitDate: '2024-05-05T00:00:00.000Z' });
    expect(folded.visitSessions.map((vs: { sessionId: string }) => vs.sessionId).sort()).toEqual([kidsSession, adultsSession].sort());

    expect(await t.app.db.select().from(visits).where(eq(visits.id, same))).toEqual([]);
    expect((await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId))).map((v) => v.personId)).toEqual([winner, winner]);
    expect((await t.app.db.select().from(visitSessions).where(eq(visitSessions.churchId, c.churchId))).map((l) => l.visitId)).toEqual([kept, kept]);
    // the trend counts the visits that remain
    const trend = await call(t.app, 'GET', `/attendance/attendancerecords/trend?serviceId=${p.serviceId}`, { token: edit });
    expect(trend.json().map((r: { count: number }) => r.count)).toEqual([1, 1]);
    // creating a second visit of a person at a service on a date is still refused
    const dup = await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { personId: winner, serviceId: p.serviceId, visitDate: '2024-05-05' } });
    expect(dup.statusCode).toBe(409);
    expect(typeof dup.json().errors[0]).toBe('string');
  });
});

describe('POST /attendance/visits/checkin', () => {
  const today = () => `${todayUtc()}T00:00:00.000Z`;

  it('creates sessions, visits and visit sessions and answers them with a security code', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const home = randomUUID();
    people.add(c.churchId, home, c.personId);
    const [kid, teen] = [people.add(c.churchId, home), people.add(c.churchId, home)];
    const [nursery, youth] = [randomUUID(), randomUUID()];
    const res = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${kid},${teen}`, {
      token: c.token(['Attendance.Checkin']),
      body: [
        { personId: kid, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: nursery } }] },
        { personId: teen, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: youth } }] },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.securityCode).toMatch(/^[CDFHJKMNPQRTWX3479]{4}$/);
    const session = (groupId: string) => ({ id: expect.any(String), groupId, serviceTimeId: p.serviceTimeId, sessionDate: today() });
    expect(body.visits).toEqual([
      { id: expect.any(String), personId: kid, serviceId: p.serviceId, visitDate: today(), checkinTime: expect.any(String), visitSessions: [{ id: expect.any(String), visitId: body.visits[0].id, sessionId: expect.any(String), session: session(nursery) }] },
      { id: expect.any(String), personId: teen, serviceId: p.serviceId, visitDate: today(), checkinTime: expect.any(String), visitSessions: [{ id: expect.any(String), visitId: body.visits[1].id, sessionId: expect.any(String), session: session(youth) }] },
    ]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toHaveLength(2);
  });

  it('replaces the household’s visits for today: moves, removes, reuses sessions, leaves others alone', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const late = await makeServiceTime(t, c.churchId, p.serviceId, '11:00');
    const [kid, sister, neighbour] = [people.add(c.churchId), people.add(c.churchId), people.add(c.churchId)];
    const [nursery, preschool] = [randomUUID(), randomUUID()];
    const token = c.token(['Attendance.Edit']);
    const checkin = (peopleIds: string[], body: unknown) => call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${peopleIds.join(',')}`, { token, body });
    const vs = (serviceTimeId: string, groupId: string) => ({ session: { serviceTimeId, groupId } });

    const first = (await checkin([kid, sister], [
      { personId: kid, visitSessions: [vs(p.serviceTimeId, nursery), vs(late, nursery)] },
      { personId: sister, visitSessions: [vs(p.serviceTimeId, nursery)] },
    ])).json();
    const other = (await checkin([neighbour], [{ personId: neighbour, visitSessions: [vs(p.serviceTimeId, nursery)] }])).json();
    const kidVisit = first.visits[0].id;
    const nurseryAt9 = first.visits[1].visitSessions[0].sessionId;
    expect(other.visits[0].visitSessions[0].sessionId).toBe(nurseryAt9); // the same (group, time, today) session

    // The kid moves to preschool at 9:00 and leaves the 11:00; the sister is no longer checked in.
    const second = await checkin([kid, sister], [{ personId: kid, visitSessions: [vs(p.serviceTimeId, preschool)] }]);
    expect(second.statusCode).toBe(200);
    const [moved] = second.json().visits;
    expect(moved.id).toBe(kidVisit);
    expect(moved.visitSessions).toEqual([{ id: expect.any(String), visitId: kidVisit, sessionId: expect.any(String), session: expect.objectContaining({ groupId: preschool, serviceTimeId: p.serviceTimeId }) }]);

    const rows = await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId));
    expect(rows.map((r) => r.personId).sort()).toEqual([kid, neighbour].sort());
    const links = await t.app.db.select().from(visitSessions).where(eq(visitSessions.churchId, c.churchId));
    expect(links).toHaveLength(2);
    expect(links.find((l) => l.visitId === kidVisit)!.sessionId).toBe(moved.visitSessions[0].sessionId);
    expect(links.find((l) => l.visitId === other.visits[0].id)!.sessionId).toBe(nurseryAt9);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toHaveLength(3);
  });

  it('keeps the visit sessions a repeated check-in still wants, first and with their ids, then adds the new ones once', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const home = randomUUID();
    people.add(c.churchId, home, c.personId);
    const kid = people.add(c.churchId, home);
    const [nursery, preschool] = [randomUUID(), randomUUID()];
    const token = c.token(['Attendance.Checkin']);
    const vs = (groupId: string) => ({ session: { serviceTimeId: p.serviceTimeId, groupId } });
    const checkin = (body: unknown) => call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token, body });

    const [first] = (await checkin([{ personId: kid, visitSessions: [vs(nursery)] }])).json().visits;
    const again = await checkin({ personId: kid, visitSessions: [vs(preschool), vs(nursery), vs(preschool)] });
    expect(again.statusCode).toBe(200);
    const [visit] = again.json().visits;
    expect(visit.id).toBe(first.id);
    expect(visit.visitSessions.map((l: { session: { groupId: string } }) => l.session.groupId)).toEqual([nursery, preschool]);
    expect(visit.visitSessions[0]).toEqual(first.visitSessions[0]);
    const links = await t.app.db.select().from(visitSessions).where(eq(visitSessions.churchId, c.churchId));
    expect(links.map((l) => l.id).sort()).toEqual(visit.visitSessions.map((l: { id: string }) => l.id).sort());
  });

  it('refuses a service time of another service with 400 and writes nothing', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const other = await makePlaces(t, c.churchId, { service: 'Wednesday' });
    const token = c.token(['Attendance.Edit']);
    const res = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, {
      token,
      body: [
        { personId: people.add(c.churchId), visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: randomUUID() } }] },
        { personId: people.add(c.churchId), visitSessions: [{ session: { serviceTimeId: other.serviceTimeId, groupId: randomUUID() } }] },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].visitSessions[0].session.serviceTimeId', location: 'body' });
    expect(await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId))).toEqual([]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toEqual([]);

    const person = people.add(c.churchId);
    const twice = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token, body: [{ personId: person }, { personId: person }] });
    expect(twice.json().errors[0].param).toBe('[1].personId');
    const noService = await call(t.app, 'POST', '/attendance/visits/checkin', { token, body: [] });
    expect(noService.json().errors[0]).toMatchObject({ param: 'serviceId', location: 'query' });
    const noGroup = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token, body: [{ personId: person, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId } }] }] });
    expect(noGroup.json().errors[0].param).toBe('[0].visitSessions[0].session.groupId');
  });

  it("answers 404 for another church's service and writes nothing", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, a.churchId);
    const home = randomUUID();
    people.add(b.churchId, home, b.personId);
    const res = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, {
      token: b.token(['Attendance.Checkin']),
      body: [{ personId: people.add(b.churchId, home), visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: randomUUID() } }] }],
    });
    expect(res.statusCode).toBe(404);
    expect(await t.app.db.select().from(visits).where(eq(visits.churchId, b.churchId))).toEqual([]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.serviceTimeId, p.serviceTimeId))).toEqual([]);
  });
});

describe('GET /attendance/visits/checkin', () => {
  it("answers the people's visits at the service on the last date they were logged", async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const other = await makePlaces(t, c.churchId, { service: 'Wednesday' });
    const home = randomUUID();
    people.add(c.churchId, home, c.personId);
    const [kid, dad, stranger] = [people.add(c.churchId, home), people.add(c.churchId, home), people.add(c.churchId)];
    const groupId = randomUUID();
    const s1 = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-06-02');
    const s2 = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-06-09');
    await makeVisit(t, c.churchId, kid, p.serviceId, '2024-06-02', [s1]);
    const latest = await makeVisit(t, c.churchId, kid, p.serviceId, '2024-06-09', [s2]);
    await makeVisit(t, c.churchId, dad, other.serviceId, '2024-06-12');
    await makeVisit(t, c.churchId, stranger, p.serviceId, '2024-06-16');

    const res = await call(t.app, 'GET', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${kid},${dad}`, { token: c.token(['Attendance.Checkin']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: latest,
        personId: kid,
        serviceId: p.serviceId,
        visitDate: '2024-06-09T00:00:00.000Z',
        checkinTime: null,
        visitSessions: [{ id: expect.any(String), visitId: latest, sessionId: s2, session: { id: s2, groupId, serviceTimeId: p.serviceTimeId, sessionDate: '2024-06-09T00:00:00.000Z' } }],
      },
    ]);
    expect((await call(t.app, 'GET', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=${kid}`, { token: makeChurch().token(['Attendance.View']) })).json()).toEqual([]);
    const bad = await call(t.app, 'GET', `/attendance/visits/checkin?serviceId=${p.serviceId}&peopleIds=kid`, { token: c.token(['Attendance.View']) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('peopleIds[0]');
  });
});
