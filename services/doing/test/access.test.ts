import { randomUUID } from 'node:crypto';
import { expectForeignReferencesRefused, expectRoutesGuarded } from '@church/common/testing';
import type { TenantTable } from '@church/common';
import * as s from '../src/db/schema';
import { makeChurch, useDoing } from './setup';

const t = useDoing();

describe('every doing route', () => {
  it('is registered at its spec path, refuses callers without a valid token, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app, { params: { providerId: 'lessonschurch', action: 'accept' } });
    // 86 spec routes (4 public), the shared internal query route, and 22 routes the apps call besides the spec's:
    // plans overview, autofill undo, notifyRange, the public sign-up list; assignments monthCounts, /:id/:action,
    // signup and its delete; content provider auths exchange and refresh; plan item times (5); plan templates (5);
    // scheduling preferences (2);
    // and issue 36's 50: workflow categories (2), workflows (4 + templates, fromTemplate, duplicate, report), steps,
    // step actions, step routes (3 each), the condition trees of step routes and triggers (4), triggers (8: save,
    // delete, by workflow, fields, pause/resume, runNow, executions by workflow, an execution's retry/pause/resume),
    // cards (14: board, my cards, add, bulk add, complete, moveStep, pin, reassign, snooze, skip/sendBack, 4 bulk) and
    // 5 internal (messaging's plan types, plan people and task; GDPR export and anonymize), and membership's ask of
    // the events the church's triggers start on
    expect(report.total).toBe(160);
    expect(report.public).toBe(5);
    expect(report.internal).toBe(7);
    expect(report.guarded).toBe(148);
  });

  it('has every /doing route of routes.json', () => {
    const spec = require('../../../../shared/spec/routes.json') as { routes?: unknown[] } | unknown[];
    const rows = (Array.isArray(spec) ? spec : (spec.routes ?? [])) as Array<{ module: string; method: string; path: string }>;
    const mine = new Set(t.app.routeList.map((r) => `${r.method} ${r.url.toLowerCase()}`));
    const missing = rows.filter((r) => r.module === 'doing').filter((r) => !mine.has(`${r.method} ${r.path.toLowerCase()}`));
    expect(missing).toEqual([]);
  });

  // A GET whose literal segment a `/:id` route takes answers "must be a UUID" instead of what the app wanted. The
  // apps' GETs (frontend-calls.json) each reach a route written for them; the one exception is B1Admin's
  // `/tasks/loadForGroups`, a query key only: its query POSTs `{groupIds, status}` (tasks.test.ts).
  it("reads no literal segment of an app's GET as an id", () => {
    const calls = (require('../../../../shared/clients/frontend-calls.json') as { calls: Array<{ module: string; method: string; path: string }> }).calls;
    const segments = (path: string) => path.replace(/\/ ?$/, '/:p').split('/').filter(Boolean);
    const gets = t.app.routeList.filter((r) => r.method === 'GET' && r.url.startsWith('/doing/')).map((r) => segments(r.url).slice(1));
    const fits = (route: string[], call: string[], literally: boolean) =>
      route.length === call.length && route.every((s, i) => (s.startsWith(':') ? !literally || call[i]!.startsWith(':') : s.toLowerCase() === call[i]!.toLowerCase()));
    const shadowed = calls
      .filter((c) => c.module === 'doing' && c.method === 'GET')
      .map((c) => segments(c.path))
      .filter((call) => !gets.some((route) => fits(route, call, true)) && gets.some((route) => fits(route, call, false)))
      .map((call) => `/${call.join('/')}`);
    expect(shadowed).toEqual(['/tasks/loadForGroups']);
  });
});

describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const mine = makeChurch();
    const theirs = randomUUID();
    const db = t.app.db;
    // another church's rows of the module's own tables
    const row = async (table: TenantTable, values: Record<string, unknown>, id: string = randomUUID()) => {
      await db.insert(table as never).values({ id, churchId: theirs, ...values } as never);
      return id;
    };
    const planTypeId = await row(s.planTypes, { name: 'Theirs' });
    const planId = await row(s.plans, { planTypeId, name: 'Theirs', serviceDate: '2030-03-03' });
    const positionId = await row(s.positions, { planId, name: 'Drums' });
    const timeId = await row(s.times, { planId, displayName: 'Sunday' });
    const planItemId = await row(s.planItems, { planId, label: 'Song' });
    const automationId = await row(s.automations, { title: 'Theirs' });
    const categoryId = await row(s.workflowCategories, { name: 'Theirs' });
    const workflowId = await row(s.workflows, { name: 'Theirs', categoryId });
    const stepId = await row(s.workflowSteps, { workflowId, name: 'Theirs' });
    const stepRouteId = await row(s.workflowStepRoutes, { workflowId, stepId, kind: 'personMatch', trigger: 'onEnter' });
    const triggerId = await row(s.workflowTriggers, { workflowId, name: 'Theirs', triggerKind: 'schedule' });
    const conjunctionId = await row(s.conjunctions, { automationId });
    // `parentId` names a plan item's parent and a conjunction's: one id, a row of theirs in both tables
    const parentId = await row(s.planItems, { planId, label: 'Header' });
    await row(s.conjunctions, { automationId }, parentId);
    const report = await expectForeignReferencesRefused(t.app, {
      churchId: mine.churchId,
      token: mine.token('all'),
      foreign: {
        planTypeId,
        planId,
        planIds: planId,
        positionId,
        timeId,
        planItemId,
        parentId,
        automationId,
        categoryId,
        workflowId,
        targetWorkflowId: workflowId,
        stepId,
        targetStepId: stepId,
        stepRouteId,
        routeId: stepRouteId,
        triggerId,
        conjunctionId,
        // membership's and attendance's records (the fakes answer these as another church's)
        personId: randomUUID(),
        personIds: randomUUID(),
        ministryId: randomUUID(),
        groupId: randomUUID(),
        groupIds: randomUUID(),
        campusId: randomUUID(),
        // a person or a group by the item's type (person first: the walk sends the enums' first value)
        assignedToId: randomUUID(),
        associatedWithId: randomUUID(),
        createdById: randomUUID(),
        defaultAssignToId: randomUUID(),
        // a task's messaging conversation
        conversationId: randomUUID(),
      },
      notReferences: [
        // a plan's lesson venue and the plan's path at the outside content provider
        'contentId',
        'providerPlanId',
        // a plan item's lesson section or action at the provider, or content's song arrangement key (no kind is served for those)
        'relatedId',
      ],
    });
    expect(report.fields).toEqual([
      'assignedToId', 'associatedWithId', 'automationId', 'campusId', 'categoryId', 'conjunctionId', 'conversationId', 'createdById', 'defaultAssignToId', 'groupId', 'groupIds', 'ministryId', 'parentId', 'personId', 'personIds',
      'planId', 'planIds', 'planItemId', 'planTypeId', 'positionId', 'routeId', 'stepId', 'stepRouteId', 'targetStepId', 'targetWorkflowId', 'timeId', 'triggerId', 'workflowId',
    ]);
    expect(report.refused).toBeGreaterThanOrEqual(80);
  });
});
