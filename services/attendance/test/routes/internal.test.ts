import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call, signedCall } from '@church/common/testing';
import { attendanceInternal } from '@church/common';
import { campuses } from '../../src/db/schema';
import { linkGroup, makeChurch, makePlaces, makeServiceTime, makeSession, makeVisit, useAttendance } from '../setup';

const t = useAttendance();

/** A call signed as another module's internal client signs it. */
const signed = (url: string, body: unknown, secret?: string) => signedCall(t.app, url, body, secret);

describe('POST /attendance/internal/people', () => {
  it('refuses unsigned, badly signed and token-bearing calls', async () => {
    const c = makeChurch();
    const body = { churchId: c.churchId };
    expect((await call(t.app, 'POST', '/attendance/internal/people', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/attendance/internal/people', { body, token: c.token('all', { serverAdmin: true }) })).statusCode).toBe(401);
    expect((await signed('/attendance/internal/people', body, 'another-secret-another-secret-another')).statusCode).toBe(401);
    expect((await signed('/attendance/internal/people', body)).statusCode).toBe(200);
  });

  it('answers the distinct people with matching visits', async () => {
    const c = makeChurch();
    const main = await makePlaces(t, c.churchId, { campus: 'Main' });
    const late = await makeServiceTime(t, c.churchId, main.serviceId, '11:00');
    const east = await makePlaces(t, c.churchId, { campus: 'East' });
    const [g1, g2] = [randomUUID(), randomUUID()];
    const [p1, p2, p3] = [randomUUID(), randomUUID(), randomUUID()].sort();
    const s1 = await makeSession(t, c.churchId, g1, main.serviceTimeId, '2024-01-07');
    const s2 = await makeSession(t, c.churchId, g2, late, '2024-01-14');
    await makeVisit(t, c.churchId, p1, main.serviceId, '2024-01-07', [s1]);
    await makeVisit(t, c.churchId, p1, main.serviceId, '2024-01-14', [s2]);
    await makeVisit(t, c.churchId, p2, main.serviceId, '2024-01-14', [s2]);
    await makeVisit(t, c.churchId, p3, east.serviceId, '2024-01-07');
    await makeVisit(t, makeChurch().churchId, randomUUID(), main.serviceId, '2024-01-07');
    const people = async (filter: object) => (await signed('/attendance/internal/people', { churchId: c.churchId, ...filter })).json();

    expect(await people({})).toEqual({ personIds: [p1, p2, p3] });
    expect(await people({ campusId: main.campusId })).toEqual({ personIds: [p1, p2] });
    expect(await people({ serviceTimeId: late })).toEqual({ personIds: [p1, p2] });
    expect(await people({ groupId: g1 })).toEqual({ personIds: [p1] });
    expect(await people({ groupIds: [g1, g2], startDate: '2024-01-10' })).toEqual({ personIds: [p1, p2] });
    expect(await people({ categoryName: 'Kids', groupIds: [g1] })).toEqual({ personIds: [p1] });
    expect(await people({ startDate: '2024-01-01', endDate: '2024-01-07' })).toEqual({ personIds: [p1, p3] });
    expect(await people({ serviceId: east.serviceId, endDate: '2024-01-06' })).toEqual({ personIds: [] });

    const bad = await signed('/attendance/internal/people', { churchId: 'nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('churchId');
    const category = await signed('/attendance/internal/people', { churchId: c.churchId, categoryName: 'Kids' });
    expect(category.statusCode).toBe(400);
    expect(category.json().errors[0].param).toBe('groupIds');
  });
});

describe('POST /attendance/internal/groups', () => {
  it('refuses unsigned calls', async () => {
    expect((await call(t.app, 'POST', '/attendance/internal/groups', { body: { churchId: makeChurch().churchId } })).statusCode).toBe(401);
  });

  it('answers the groups linked to live service times matching the filters', async () => {
    const c = makeChurch();
    const main = await makePlaces(t, c.churchId, { campus: 'Main' });
    const late = await makeServiceTime(t, c.churchId, main.serviceId, '11:00');
    const east = await makePlaces(t, c.churchId, { campus: 'East' });
    const [g1, g2, g3] = [randomUUID(), randomUUID(), randomUUID()].sort();
    await linkGroup(t, c.churchId, g1, main.serviceTimeId);
    await linkGroup(t, c.churchId, g2, late);
    await linkGroup(t, c.churchId, g1, late);
    await linkGroup(t, c.churchId, g3, east.serviceTimeId);
    const groups = async (filter: object) => (await signed('/attendance/internal/groups', { churchId: c.churchId, ...filter })).json();
    expect(await groups({})).toEqual({ groupIds: [g1, g2, g3] });
    expect(await groups({ campusId: main.campusId })).toEqual({ groupIds: [g1, g2] });
    expect(await groups({ serviceTimeId: main.serviceTimeId })).toEqual({ groupIds: [g1] });
    expect(await groups({ serviceId: east.serviceId, campusId: main.campusId })).toEqual({ groupIds: [] });
    expect(await groups({ campusId: null, serviceId: null, serviceTimeId: late })).toEqual({ groupIds: [g1, g2] });
    expect((await signed('/attendance/internal/groups', { churchId: makeChurch().churchId })).json()).toEqual({ groupIds: [] });
  });
});

describe('POST /attendance/internal/campuses (attendanceInternal.campuses)', () => {
  const path = attendanceInternal.campuses.path;

  it('refuses unsigned, badly signed and token-bearing calls', async () => {
    const c = makeChurch();
    const body = { churchId: c.churchId };
    expect((await call(t.app, 'POST', path, { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', path, { body, token: c.token('all', { serverAdmin: true }) })).statusCode).toBe(401);
    expect((await signed(path, body, 'another-secret-another-secret-another')).statusCode).toBe(401);
    expect((await signed(path, body)).statusCode).toBe(200);
  });

  it("answers the church's live campuses by name, or the ones named (removed ones too), in the contract's shape", async () => {
    const [c, other] = [makeChurch(), makeChurch()];
    const east = await makePlaces(t, c.churchId, { campus: 'East' });
    const main = await makePlaces(t, c.churchId, { campus: 'Main' });
    const closed = await makePlaces(t, c.churchId, { campus: 'Closed' });
    const theirs = await makePlaces(t, other.churchId, { campus: 'Theirs' });
    await t.app.db.update(campuses).set({ removed: true }).where(eq(campuses.id, closed.campusId));
    const ask = async (body: object) => {
      const res = await signed(path, body);
      expect(res.statusCode).toBe(200);
      return attendanceInternal.campuses.answer.parse(res.json());
    };
    expect(await ask({ churchId: c.churchId })).toEqual([
      { id: east.campusId, name: 'East' },
      { id: main.campusId, name: 'Main' },
    ]);
    expect(await ask({ churchId: c.churchId, ids: [main.campusId, closed.campusId, theirs.campusId, randomUUID()] })).toEqual([
      { id: closed.campusId, name: 'Closed' },
      { id: main.campusId, name: 'Main' },
    ]);
    expect(await ask({ churchId: c.churchId, ids: [] })).toEqual([]);
    expect(await ask({ churchId: randomUUID() })).toEqual([]);
  });

  it('answers 400 naming the field for a body outside the contract', async () => {
    const bad = await signed(path, { churchId: makeChurch().churchId, ids: ['nope'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toMatch(/^ids/);
    expect((await signed(path, {})).json().errors[0].param).toBe('churchId');
  });
});

describe('GDPR (gdprExport / gdprAnonymize of attendance)', () => {
  it('exports one person’s visits with their sessions, of their church only; anonymizing changes nothing here', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const person = randomUUID();
    const main = await makePlaces(t, c.churchId);
    const visit = await makeVisit(t, c.churchId, person, main.serviceId, '2024-03-03');
    await makeVisit(t, c.churchId, randomUUID(), main.serviceId, '2024-03-03');
    await makeVisit(t, other.churchId, person, null, '2024-03-03');
    const res = await signed('/attendance/internal/gdpr/export', { churchId: c.churchId, personId: person });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.visits.map((v: { id: string; personId: string }) => [v.id, v.personId])).toEqual([[visit, person]]);
    expect((await call(t.app, 'POST', '/attendance/internal/gdpr/export', { body: { churchId: c.churchId, personId: person } })).statusCode).toBe(401);
    const gone = await signed('/attendance/internal/gdpr/anonymize', { churchId: c.churchId, personId: person });
    expect(gone.json()).toEqual({ changed: {} });
    // the visit still counts
    expect((await signed('/attendance/internal/gdpr/export', { churchId: c.churchId, personId: person })).json().data.visits).toHaveLength(1);
  });
});
