import { expectRoutesGuarded } from '@church/common/testing';
import { fakePeople, useAttendance } from './setup';

// The shared route-walking access suite over every attendance route. Membership answers through a fake, so the
// walk reaches the rules behind the token checks.
const people = fakePeople();
const t = useAttendance({ overrides: { internal: people.internal } });

describe('the attendance route table', () => {
  it('guards every route: 401 without a valid token or the permission, never a 500 for another church', async () => {
    // The check-in routes read "Attendance.View/Edit or Attendance.Checkin": a token without permissions does not
    // pass them (the Everyone role's Attendance.Checkin is a permission the token carries), so none is open to any user.
    const report = await expectRoutesGuarded(t.app);
    // the spec's 42 routes (41 with a token, the public service times), 3 internal routes for membership (people,
    // groups, campus names) and the shared internal query route; for the apps: the campus set again under /membership/campuses (4) and the
    // public campus names under both paths (2), label templates (4), the groups summary (1)
    expect(report).toEqual({ guarded: 50, internal: 6, public: 3, total: 59 });
  });
});

describe('the response schemas', () => {
  it('has a response schema on every route (it filters and serializes what leaves)', async () => {
    await t.app.ready();
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) if (!op.responses?.['200']?.content?.['application/json']?.schema) missing.push(`${method.toUpperCase()} ${path}`);
    }
    expect(missing).toEqual([]);
  });
});
