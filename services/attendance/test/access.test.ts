import { randomUUID } from 'node:crypto';
import { expectForeignReferencesRefused, expectRoutesGuarded, tokenFor } from '@church/common/testing';
import { fakeMembership, makePlaces, makeSession, makeVisit, useAttendance } from './setup';

// The shared route-walking access suite over every attendance route. Membership answers through a fake, so the
// walk reaches the rules behind the token checks.
const people = fakeMembership();
const t = useAttendance({ overrides: { internal: people.internal } });

describe('the attendance route table', () => {
  it('guards every route: 401 without a valid token or the permission, never a 500 for another church', async () => {
    // The check-in routes read "Attendance.View/Edit or Attendance.Checkin": a token without permissions does not
    // pass them (the Everyone role's Attendance.Checkin is a permission the token carries), so none is open to any user.
    const report = await expectRoutesGuarded(t.app);
    // the spec's 42 routes (41 with a token, the public service times), 3 internal routes for membership (people,
    // groups, campus names), the shared internal query route and the reference check (owned ids); for the apps: the campus set again under /membership/campuses (4) and the
    // public campus names under both paths (2), label templates (4), the groups summary (1)
    expect(report).toEqual({ guarded: 50, internal: 7, public: 3, total: 60 });
  });
});

describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const churchId = randomUUID();
    const other = randomUUID();
    const theirs = await makePlaces(t, other, { campus: 'Theirs' });
    const theirSession = await makeSession(t, other, randomUUID(), theirs.serviceTimeId, '2026-01-04');
    const theirVisit = await makeVisit(t, other, randomUUID(), theirs.serviceId, '2026-01-04', [theirSession]);
    const report = await expectForeignReferencesRefused(t.app, {
      churchId,
      token: tokenFor({ churchId, permissions: 'all', personId: randomUUID() }),
      // the module's own records of another church, and another module's kinds (people, groups) under fresh ids
      foreign: { ...theirs, sessionId: theirSession, visitId: theirVisit, personId: randomUUID(), groupId: randomUUID() },
    });
    expect(report.fields).toEqual(['campusId', 'groupId', 'personId', 'serviceId', 'serviceTimeId', 'sessionId', 'visitId']);
    // every route that carries a reference refuses it by name at least once (the rest answer on other grounds)
    expect(report.refused).toBeGreaterThanOrEqual(20);
  });
});
