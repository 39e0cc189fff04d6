import routesJson from '../../../../shared/spec/routes.json';
import { expectRoutesGuarded } from '@church/common/testing';
import { startMembership } from './setup';
import type { TestApp } from '@church/common/testing';

// The shared route-walking access suite over every membership route.
let t: TestApp;
beforeAll(async () => {
  t = await startMembership();
});
afterAll(() => t.close());

const spec = (routesJson as Array<{ module: string; method: string; path: string; auth: string }>).filter((r) => r.module === 'membership');

/**
 * "Form access" routes let any signed-in caller reach the handler, which finds the form (or question, member
 * permission) in the caller's church first (404) and then checks access (401): the form often arrives in the
 * body or must be looked up (README, Forms). A token without permissions therefore meets the 404 or 400 first.
 */
const FORM_ACCESS = [
  'GET /membership/forms/:id',
  'DELETE /membership/forms/:id',
  'GET /membership/formsubmissions/formId/:formId',
  'GET /membership/questions',
  'GET /membership/questions/:id',
  'POST /membership/questions',
  'DELETE /membership/questions/:id',
  'GET /membership/memberpermissions/:id',
  'GET /membership/memberpermissions/form/:id',
  'GET /membership/memberpermissions/form/:id/my',
  'POST /membership/memberpermissions',
  'DELETE /membership/memberpermissions/member/:id',
  'DELETE /membership/memberpermissions/:id',
];

describe('the membership route table', () => {
  it('has every spec route at its path and method with the spec’s kind of access', () => {
    expect(spec).toHaveLength(141);
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${r.url.toLowerCase()}`, r.access]));
    for (const r of spec) {
      const access = registered.get(`${r.method} ${r.path.toLowerCase()}`);
      expect([`${r.method} ${r.path}`, access !== undefined]).toEqual([`${r.method} ${r.path}`, true]);
      const kind = access === 'public' ? 'Public' : access === 'internal' ? 'Internal' : 'JWT';
      expect([`${r.method} ${r.path}`, kind]).toEqual([`${r.method} ${r.path}`, r.auth]);
    }
  });

  it('refuses callers without a valid token or the permission, and never fails with a 500 for another church', async () => {
    const report = await expectRoutesGuarded(t.app, { openToAnyUser: FORM_ACCESS });
    // The spec's 141 routes, the apps' calls added for issue 30 (users, groups, people, person fields, roles,
    // settings, forms, audit log) and for issue 34 (API keys, connected apps and relay sessions, webhooks, GDPR,
    // join requests, pickup, associated groups, sites, server health, lists, batches), what a church listens for, and for
    // issue 44 the member directory list and the domains relink, and for issue 45 `GET /people/advancedSearch`. Update
    // with the route table.
    expect(report).toEqual({ guarded: 190, internal: 13, public: 30, total: 233 });
  });
});
