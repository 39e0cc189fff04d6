import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { streaksOf } from '../../src/domain/streaks';
import { makeChurch, makePlaces, makeVisit, useAttendance } from '../setup';

const t = useAttendance();

const DAY = 86_400_000;
/** The Sunday starting the week `weeksAgo` weeks back (UTC), plus `plusDays`, as `YYYY-MM-DD`. */
function dayOf(weeksAgo: number, plusDays = 0): string {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const sunday = today - now.getUTCDay() * DAY;
  return new Date(sunday - weeksAgo * 7 * DAY + plusDays * DAY).toISOString().slice(0, 10);
}

describe('GET /attendance/streaks/person/:personId', () => {
  it('guards the route', async () => {
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/streaks/person/${randomUUID()}`, permission: 'Attendance.View or own person' }, makeChurch().churchId);
  });

  it("answers a person's own streaks, and anyone's to Attendance.View; another person of the church is refused", async () => {
    const c = makeChurch();
    const person = randomUUID();
    await makeVisit(t, c.churchId, person, null, dayOf(0));
    const url = `/attendance/streaks/person/${person}`;
    const own = await call(t.app, 'GET', url, { token: c.tokenOf(person) });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual({ personId: person, currentStreak: 1, longestStreak: 1, lastAttended: `${dayOf(0)}T00:00:00.000Z` });
    expect((await call(t.app, 'GET', url.toUpperCase().replace('/ATTENDANCE/STREAKS/PERSON', '/attendance/streaks/person'), { token: c.tokenOf(person) })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', url, { token: c.token(['Attendance.View']) })).json()).toEqual(own.json());
    // a guest or member of the church (the Everyone role's rights), and a check-in kiosk right, read no one else's
    for (const token of [c.token(), c.token(['Attendance.Checkin', 'People.Edit Self']), c.token(['Attendance.Edit'])]) {
      const res = await call(t.app, 'GET', url, { token });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ errors: ['Missing permission: Attendance.View or own person'] });
    }
  });

  it('counts consecutive attended weeks ending with this week, and the longest run', async () => {
    const c = makeChurch();
    const { serviceId } = await makePlaces(t, c.churchId);
    const person = randomUUID();
    // this week, last week (its Saturday) and the week before that: current 3; then a gap; then 5 weeks in a row
    for (const d of [dayOf(0), dayOf(1, 6), dayOf(2), dayOf(2, 3), dayOf(4), dayOf(5), dayOf(6), dayOf(7, 6), dayOf(8)]) {
      await makeVisit(t, c.churchId, person, serviceId, d);
    }
    await makeVisit(t, makeChurch().churchId, person, null, dayOf(3)); // another church's week must not bridge the gap
    const res = await call(t.app, 'GET', `/attendance/streaks/person/${person}`, { token: c.tokenOf(person) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ personId: person, currentStreak: 3, longestStreak: 5, lastAttended: `${dayOf(0)}T00:00:00.000Z` });
  });

  it('answers 0 for the current streak when this week has no visit yet', async () => {
    const c = makeChurch();
    const person = randomUUID();
    await makeVisit(t, c.churchId, person, null, dayOf(1));
    await makeVisit(t, c.churchId, person, null, dayOf(2));
    const staff = c.token(['Attendance.View']);
    const res = await call(t.app, 'GET', `/attendance/streaks/person/${person}`, { token: staff });
    expect(res.json()).toEqual({ personId: person, currentStreak: 0, longestStreak: 2, lastAttended: `${dayOf(1)}T00:00:00.000Z` });
    const nobody = randomUUID();
    expect((await call(t.app, 'GET', `/attendance/streaks/person/${nobody}`, { token: staff })).json()).toEqual({ personId: nobody, currentStreak: 0, longestStreak: 0, lastAttended: null });
    expect((await call(t.app, 'GET', `/attendance/streaks/person/${person}`, { token: makeChurch().token(['Attendance.View']) })).json()).toEqual({ personId: person, currentStreak: 0, longestStreak: 0, lastAttended: null });
    expect((await call(t.app, 'GET', '/attendance/streaks/person/me', { token: staff })).statusCode).toBe(400);
  });
});

describe('streaksOf', () => {
  const weeks = (...days: string[]) => days.map((d) => new Date(`${d}T00:00:00Z`));
  it('treats Saturday as the end of the week that began the Sunday before', () => {
    // Wednesday 2024-01-17: this week began Sunday the 14th
    const now = new Date('2024-01-17T12:00:00Z');
    expect(streaksOf(weeks('2024-01-14', '2024-01-07', '2023-12-31'), now)).toEqual({ currentStreak: 3, longestStreak: 3, lastAttended: new Date('2024-01-14T00:00:00Z') });
    expect(streaksOf(weeks('2024-01-07', '2023-12-31'), now)).toEqual({ currentStreak: 0, longestStreak: 2, lastAttended: new Date('2024-01-07T00:00:00Z') });
  });

  it('counts a visit dated in a week still to come towards neither streak', () => {
    const now = new Date('2024-01-17T12:00:00Z');
    expect(streaksOf(weeks('2024-01-21', '2024-01-14'), now)).toEqual({ currentStreak: 1, longestStreak: 1, lastAttended: new Date('2024-01-14T00:00:00Z') });
    expect(streaksOf(weeks('2024-02-04', '2024-01-28', '2024-01-21'), now)).toEqual({ currentStreak: 0, longestStreak: 0, lastAttended: null });
  });
});
