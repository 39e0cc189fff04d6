import { expectRoutesGuarded } from '@church/common/testing';
import { fakeMembership, useDoing } from './setup';

const membership = fakeMembership();
const t = useDoing({ overrides: { internal: membership.internal } });

/**
 * Routes declared "Plans.Edit or member of the ministry": the ministry comes from the body, the plan or the stored
 * template, so the handler narrows the rule once it has read them (a guest meets a 400 for a bad body first, and
 * a 401 for a good one: test/templates.test.ts).
 */
const MINISTRY_RULE = [
  'POST /doing/plans/notifyRange',
  'POST /doing/plantemplates',
  'POST /doing/plantemplates/fromPlan/:planId',
  'POST /doing/plantemplates/apply/:id',
  'DELETE /doing/plantemplates/:id',
  'GET /doing/plantemplates/ministry/:ministryId',
];

describe('every doing route', () => {
  it('is registered at its spec path, refuses callers without a valid token, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app, { params: { providerId: 'lessonschurch', action: 'accept' }, openToAnyUser: MINISTRY_RULE });
    // 86 spec routes (4 public), the shared internal query route, and 21 routes the apps call besides the spec's:
    // plans overview, autofill undo, notifyRange; assignments monthCounts, /:id/:action, signup and its delete;
    // content provider auths exchange and refresh; plan item times (5); plan templates (5); scheduling preferences (2)
    expect(report.total).toBe(108);
    expect(report.public).toBe(4);
    expect(report.internal).toBe(1);
    expect(report.guarded).toBe(103);
  });

  it('has every /doing route of routes.json', () => {
    const spec = require('../../../../shared/spec/routes.json') as { routes?: unknown[] } | unknown[];
    const rows = (Array.isArray(spec) ? spec : (spec.routes ?? [])) as Array<{ module: string; method: string; path: string }>;
    const mine = new Set(t.app.routeList.map((r) => `${r.method} ${r.url.toLowerCase()}`));
    const missing = rows.filter((r) => r.module === 'doing').filter((r) => !mine.has(`${r.method} ${r.path.toLowerCase()}`));
    expect(missing).toEqual([]);
  });
});
