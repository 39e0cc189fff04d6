import { and, eq } from 'drizzle-orm';
import { gunzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { call, expectGuarded, offContract } from '@church/common/testing';
import { HttpError } from '@church/common';
import { visitSessions, visits } from '../../src/db/schema';
import { fakeMembership, makeChurch, makePlaces, makeSession, makeVisit, useAttendance } from '../setup';

// Membership, as the fake answers it: one group with two members, and the names of anyone asked about.
const groupId = randomUUID();
const unreachable = randomUUID(); // asking about this group fails like a network error
// asking about these answers a client error of membership's own, or a body that is no roster
const [refused, unknownRoute, malformed] = [randomUUID(), randomUUID(), randomUUID()];
const [ann, bob, cid] = [randomUUID(), randomUUID(), randomUUID()];
const membership = fakeMembership({
  'POST /membership/internal/groups/members': (body) => {
    if ((body as { groupId: string }).groupId === unreachable) throw new TypeError('fetch failed');
    if ((body as { groupId: string }).groupId === refused) throw new HttpError(401, [{ msg: 'Unauthorized' }]);
    if ((body as { groupId: string }).groupId === unknownRoute) throw new HttpError(404, [{ msg: 'Route not found' }]);
    if ((body as { groupId: string }).groupId === malformed) return offContract({ members: [] });
    return (body as { groupId: string }).groupId === groupId
      ? [
          { personId: ann, displayName: 'Ann Lee', firstName: 'Ann', lastName: 'Lee', photo: null, leader: true },
          { personId: bob, displayName: 'Bob Ray', firstName: 'Bob', lastName: 'Ray', photo: null, leader: false },
        ]
      : [];
  },
  'POST /membership/internal/people/basic': (body) =>
    (body as { ids: string[] }).ids.map((id) => ({ id, displayName: id === cid ? 'Cid Visitor' : null, firstName: null, lastName: null, photo: null })),
});

const t = useAttendance({ overrides: { internal: membership.internal } });

const ID = '00000000-0000-4000-8000-000000000001';
const visitsOf = (churchId: string) => t.app.db.select().from(visits).where(eq(visits.churchId, churchId));
const linksOf = (churchId: string) => t.app.db.select().from(visitSessions).where(eq(visitSessions.churchId, churchId));

describe('access', () => {
  it('guards every route', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/visitsessions', permission: 'Attendance.View or Group Leader' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/visitsessions/${ID}`, permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/visitsessions/download/${ID}`, permission: 'Attendance.View' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/visitsessions', body: { visitId: ID, sessionId: ID }, permission: 'Attendance.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/visitsessions/log', body: { personId: ID, visitSessions: [{ sessionId: ID }] }, permission: 'Attendance.Edit or Group Leader' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/visitsessions/${ID}`, permission: 'Attendance.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/visitsessions?personId=${ID}&sessionId=${ID}`, permission: 'Attendance.Edit or Group Leader' }, c.churchId);
  });
});

describe('GET /attendance/visitsessions', () => {
  it("lists a session's visit sessions with the person; leaders see only their groups", async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const s1 = await makeSession(t, c.churchId, mine, p.serviceTimeId, '2024-01-07');
    const s2 = await makeSession(t, c.churchId, theirs, p.serviceTimeId, '2024-01-07');
    const person = randomUUID();
    const v = await makeVisit(t, c.churchId, person, p.serviceId, '2024-01-07', [s1, s2]);
    const res = await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${s1}`, { token: c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: expect.any(String), visitId: v, sessionId: s1, personId: person, visit: { id: v, personId: person }, session: { id: s1, groupId: mine, serviceTimeId: p.serviceTimeId, sessionDate: '2024-01-07T00:00:00.000Z' } },
    ]);
    const id = res.json()[0].id;
    expect((await call(t.app, 'GET', `/attendance/visitsessions/${id}`, { token: c.token(['Attendance.View']) })).json()).toEqual(res.json()[0]);

    const leader = c.token([], { leaderGroupIds: [mine] });
    expect((await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${s1}`, { token: leader })).json()).toEqual(res.json());
    expect((await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${s2}`, { token: leader })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/attendance/visitsessions', { token: leader })).json().map((r: { sessionId: string }) => r.sessionId)).toEqual([s1]);
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${s1}`, { token: other.token(['Attendance.View']) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/attendance/visitsessions/${id}`, { token: other.token(['Attendance.View']) })).statusCode).toBe(404);
  });
});

describe('GET /attendance/visitsessions/download/:sessionId', () => {
  it('lists every member present or absent, plus present non-members, by name', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const s = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-02-04');
    const annVisit = await makeVisit(t, c.churchId, ann, p.serviceId, '2024-02-04', [s]);
    const cidVisit = await makeVisit(t, c.churchId, cid, p.serviceId, '2024-02-04', [s]);
    membership.internal.calls.length = 0;
    const res = await call(t.app, 'GET', `/attendance/visitsessions/download/${s}`, { token: c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(200);
    const date = '2024-02-04T00:00:00.000Z';
    expect(res.json()).toEqual([
      { id: expect.any(String), personId: ann, visitId: annVisit, sessionId: s, sessionDate: date, personName: 'Ann Lee', status: 'present' },
      { id: '', personId: bob, visitId: '', sessionId: s, sessionDate: date, personName: 'Bob Ray', status: 'absent' },
      { id: expect.any(String), personId: cid, visitId: cidVisit, sessionId: s, sessionDate: date, personName: 'Cid Visitor', status: 'present' },
    ]);
    expect(membership.internal.calls).toEqual([
      { module: 'membership', method: 'POST', path: '/membership/internal/groups/members', body: { churchId: c.churchId, groupId } },
      { module: 'membership', method: 'POST', path: '/membership/internal/people/basic', body: { churchId: c.churchId, ids: [cid] } },
    ]);
  });

  it('sends an unchanged sheet again under the same ETag (304 when held, gzip when accepted) and a new one after a check-in', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const s = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-02-04');
    await makeVisit(t, c.churchId, ann, p.serviceId, '2024-02-04', [s]);
    const url = `/attendance/visitsessions/download/${s}`;
    const token = c.token(['Attendance.View']);
    const first = await call(t.app, 'GET', url, { token });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(first.json().map((r: { status: string }) => r.status)).toEqual(['present', 'absent']);

    const again = await call(t.app, 'GET', url, { token, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const zipped = await call(t.app, 'GET', url, { token, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.rawPayload).toString())).toEqual(first.json());

    await makeVisit(t, c.churchId, bob, p.serviceId, '2024-02-04', [s]);
    const changed = await call(t.app, 'GET', url, { token, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json().map((r: { status: string }) => r.status)).toEqual(['present', 'present']);
  });

  it('answers concurrent downloads (read together) each from its own church, and a foreign session 404', async () => {
    const [a, b] = [makeChurch(), makeChurch()];
    const [pa, pb] = [await makePlaces(t, a.churchId), await makePlaces(t, b.churchId)];
    const sa = await makeSession(t, a.churchId, groupId, pa.serviceTimeId, '2024-02-04');
    const sb = await makeSession(t, b.churchId, groupId, pb.serviceTimeId, '2024-02-11');
    await makeVisit(t, a.churchId, ann, pa.serviceId, '2024-02-04', [sa]);
    await makeVisit(t, b.churchId, bob, pb.serviceId, '2024-02-11', [sb]);
    const [ta, tb] = [a.token(['Attendance.View']), b.token(['Attendance.View'])];
    const get = (token: string, s: string) => call(t.app, 'GET', `/attendance/visitsessions/download/${s}`, { token });
    const answers = await Promise.all([get(ta, sa), get(tb, sb), get(ta, sa), get(tb, sa)]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 404]);
    const present = (r: (typeof answers)[number]) => r.json().filter((row: { status: string }) => row.status === 'present').map((row: { personId: string }) => row.personId);
    expect([present(answers[0]!), present(answers[1]!), present(answers[2]!)]).toEqual([[ann], [bob], [ann]]);
    expect(answers[1]!.json()[0].sessionDate).toBe('2024-02-11T00:00:00.000Z');
  });

  it('answers 502 when membership cannot be reached', async () => {
    const c = makeChurch();
    const s = await makeSession(t, c.churchId, unreachable, null, '2024-02-04');
    const res = await call(t.app, 'GET', `/attendance/visitsessions/download/${s}`, { token: c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toBe('membership is unreachable');
  });

  it("answers 502, not membership's own status nor a 500, when membership refuses or answers no roster", async () => {
    const c = makeChurch();
    for (const [group, msg] of [
      [refused, 'membership answered 401'],
      [unknownRoute, 'membership answered 404'],
      [malformed, 'membership answered an unexpected shape'],
    ] as const) {
      const s = await makeSession(t, c.churchId, group, null, '2024-02-04');
      const res = await call(t.app, 'GET', `/attendance/visitsessions/download/${s}`, { token: c.token(['Attendance.View']) });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toEqual({ errors: [msg] });
    }
  });

  it("answers 404 for another church's session without asking membership", async () => {
    const a = makeChurch();
    const s = await makeSession(t, a.churchId, groupId, null, '2024-02-04');
    membership.internal.calls.length = 0;
    expect((await call(t.app, 'GET', `/attendance/visitsessions/download/${s}`, { token: makeChurch().token(['Attendance.View']) })).statusCode).toBe(404);
    expect(membership.internal.calls).toEqual([]);
  });
});

describe('POST /attendance/visitsessions', () => {
  it('links a visit to a session of the church; foreign ids are 400', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, a.churchId);
    const s = await makeSession(t, a.churchId, randomUUID(), p.serviceTimeId, '2024-01-07');
    const v = await makeVisit(t, a.churchId, randomUUID(), p.serviceId, '2024-01-07');
    const res = await call(t.app, 'POST', '/attendance/visitsessions', { token: a.token(['Attendance.Edit']), body: [{ visitId: v, sessionId: s }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: expect.any(String), visitId: v, sessionId: s }]);
    const foreign = await call(t.app, 'POST', '/attendance/visitsessions', { token: b.token(['Attendance.Edit']), body: { visitId: v, sessionId: s } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0].param).toBe('visitId');
    const missing = await call(t.app, 'POST', '/attendance/visitsessions', { token: a.token(['Attendance.Edit']), body: [{ visitId: v }] });
    expect(missing.json().errors[0].param).toBe('[0].sessionId');
    expect(await linksOf(b.churchId)).toEqual([]);
  });
});

describe('POST /attendance/visitsessions (checks before writing)', () => {
  it('names every missing or foreign field of the batch at once; an unknown id is 404', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const p = await makePlaces(t, b.churchId);
    const foreignSession = await makeSession(t, b.churchId, randomUUID(), p.serviceTimeId, '2024-01-07');
    const v = await makeVisit(t, a.churchId, randomUUID(), null, '2024-01-07');
    const token = a.token(['Attendance.Edit']);
    const res = await call(t.app, 'POST', '/attendance/visitsessions', { token, body: [{ visitId: v, sessionId: foreignSession }, { sessionId: foreignSession }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { param: string }) => e.param).sort()).toEqual(['[0].sessionId', '[1].sessionId', '[1].visitId']);
    const unknown = await call(t.app, 'POST', '/attendance/visitsessions', { token, body: { id: randomUUID(), visitId: v } });
    expect(unknown.statusCode).toBe(404);
    expect(await linksOf(a.churchId)).toEqual([]);
  });
});

describe('POST /attendance/visitsessions/log', () => {
  it('creates the visit when needed (service and date from the session) and links once', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const s1 = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-03-03');
    const s2 = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-03-03');
    const person = randomUUID();
    const log = (sessionIds: string[]) =>
      call(t.app, 'POST', '/attendance/visitsessions/log', { token: c.token(['Attendance.Edit']), body: { personId: person, visitSessions: sessionIds.map((sessionId) => ({ sessionId })) } });
    const res = await log([s1]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(await log([s1, s2])).toHaveProperty('statusCode', 200);
    const rows = await visitsOf(c.churchId);
    expect(rows).toEqual([expect.objectContaining({ personId: person, serviceId: p.serviceId, visitDate: new Date('2024-03-03T00:00:00Z') })]);
    expect((await linksOf(c.churchId)).map((l) => l.sessionId).sort()).toEqual([s1, s2].sort());
  });

  it("lets a leader log only their groups' sessions; other churches get 404", async () => {
    const c = makeChurch();
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const s1 = await makeSession(t, c.churchId, mine, null, '2024-03-03');
    const s2 = await makeSession(t, c.churchId, theirs, null, '2024-03-03');
    const leader = c.token([], { leaderGroupIds: [mine] });
    const person = randomUUID();
    expect((await call(t.app, 'POST', '/attendance/visitsessions/log', { token: leader, body: { personId: person, visitSessions: [{ sessionId: s1 }] } })).statusCode).toBe(200);
    const refused = await call(t.app, 'POST', '/attendance/visitsessions/log', { token: leader, body: { personId: randomUUID(), visitSessions: [{ sessionId: s2 }] } });
    expect(refused.statusCode).toBe(401);
    expect((await visitsOf(c.churchId)).map((v) => [v.personId, v.serviceId])).toEqual([[person, null]]);
    const other = makeChurch();
    expect((await call(t.app, 'POST', '/attendance/visitsessions/log', { token: other.token(['Attendance.Edit']), body: { personId: person, visitSessions: [{ sessionId: s1 }] } })).statusCode).toBe(404);
    expect(await visitsOf(other.churchId)).toEqual([]);
    const empty = await call(t.app, 'POST', '/attendance/visitsessions/log', { token: leader, body: { personId: person, visitSessions: [] } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].param).toBe('visitSessions');
  });
});

describe('DELETE /attendance/visitsessions', () => {
  it('removes a person from a session and the visit with its last session', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const s1 = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-04-07');
    const s2 = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-04-07');
    const person = randomUUID();
    const v = await makeVisit(t, c.churchId, person, p.serviceId, '2024-04-07', [s1, s2]);
    const edit = c.token(['Attendance.Edit']);
    const remove = (sessionId: string, token = edit) => call(t.app, 'DELETE', `/attendance/visitsessions?personId=${person}&sessionId=${sessionId}`, { token });

    expect((await remove(s1)).json()).toEqual({});
    expect((await linksOf(c.churchId)).map((l) => l.sessionId)).toEqual([s2]);
    expect((await visitsOf(c.churchId)).map((x) => x.id)).toEqual([v]);

    expect((await remove(s2, makeChurch().token(['Attendance.Edit']))).statusCode).toBe(404);
    expect((await remove(s2, c.token([], { leaderGroupIds: [groupId] }))).statusCode).toBe(401);
    expect(await linksOf(c.churchId)).toHaveLength(1);

    expect((await remove(s2)).statusCode).toBe(200);
    expect(await linksOf(c.churchId)).toEqual([]);
    expect(await visitsOf(c.churchId)).toEqual([]);
    const bad = await call(t.app, 'DELETE', `/attendance/visitsessions?sessionId=${s2}`, { token: edit });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'personId', location: 'query' });
  });

  it('lets a leader remove people from their own group', async () => {
    const c = makeChurch();
    const s = await makeSession(t, c.churchId, groupId, null, '2024-04-07');
    const person = randomUUID();
    await makeVisit(t, c.churchId, person, null, '2024-04-07', [s]);
    const res = await call(t.app, 'DELETE', `/attendance/visitsessions?personId=${person}&sessionId=${s}`, { token: c.token([], { leaderGroupIds: [groupId] }) });
    expect(res.statusCode).toBe(200);
    expect(await visitsOf(c.churchId)).toEqual([]);
  });

  it('deletes by id, and the visit with its last session', async () => {
    const c = makeChurch();
    const s = await makeSession(t, c.churchId, groupId, null, '2024-04-14');
    const v = await makeVisit(t, c.churchId, randomUUID(), null, '2024-04-14', [s]);
    const [link] = await t.app.db.select().from(visitSessions).where(and(eq(visitSessions.visitId, v), eq(visitSessions.churchId, c.churchId)));
    expect((await call(t.app, 'DELETE', `/attendance/visitsessions/${link!.id}`, { token: makeChurch().token(['Attendance.Edit']) })).statusCode).toBe(404);
    expect(await linksOf(c.churchId)).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/attendance/visitsessions/${link!.id}`, { token: c.token(['Attendance.Edit']) })).statusCode).toBe(200);
    expect(await linksOf(c.churchId)).toEqual([]);
    expect(await visitsOf(c.churchId)).toEqual([]);
  });
});
