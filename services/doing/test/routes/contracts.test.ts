import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { utcDay } from '@church/common';
import { makeChurch, useDoing } from '../setup';

// Contract tests: the shapes ChurchApps' apps read from doing, each named for the client file that reads it, so a
// later change cannot break a screen silently. Behaviour is tested in the area files; here, the keys and forms.

const t = useDoing();
type Church = ReturnType<typeof makeChurch>;
const keys = (o: object) => Object.keys(o).sort();

async function ok(c: Church, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token = c.token(['Plans.Edit'])) {
  const res = await call(t.app, method, url, { token, body });
  expect([url, res.statusCode]).toEqual([url, 200]);
  return res.json();
}

/** A plan as B1Admin's PlanEdit creates it: a new row sent as `id: ""` inside an array. */
async function newPlan(c: Church, body: Record<string, unknown> = {}) {
  const [plan] = await ok(c, 'POST', '/doing/plans', [{ id: '', name: 'Sunday', serviceDate: utcDay(7), ministryId: randomUUID(), campusId: '', ...body }]);
  return plan as { id: string; ministryId: string; serviceDate: string };
}

describe('contracts with the apps', () => {
  it('B1Admin:src/serving/components/PlanEdit.tsx sends a new plan as id "" (and campusId ""), reads the plan\'s own fields back', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    expect(plan.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys(plan)).toEqual(
      keys({
        id: 0, churchId: 0, ministryId: 0, planTypeId: 0, name: 0, serviceDate: 0, notes: 0, serviceOrder: 0, contentType: 0, contentId: 0, campusId: 0, providerId: 0,
        providerPlanId: 0, providerPlanName: 0, signupDeadlineHours: 0, showVolunteerNames: 0, prepared: 0, autoReplaceOnDecline: 0, lastAutofillRunId: 0,
      }),
    );
    expect(plan).toMatchObject({ campusId: null, showVolunteerNames: true, prepared: false, autoReplaceOnDecline: false });
  });

  it('B1Admin:src/serving/ServingOverviewPage.tsx reads the overview rows, autofill\'s `created` and notifyRange\'s `sent`/`failed`', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    const [position] = await ok(c, 'POST', '/doing/positions', [{ id: '', planId: plan.id, name: 'Drums', categoryName: 'Band', count: 2, groupId: '' }]);
    const rows = await ok(c, 'GET', `/doing/plans/overview/?startDate=${utcDay()}&endDate=${utcDay(30)}&ministryId=${plan.ministryId}&planTypeId=`);
    expect(rows).toEqual([
      { serviceDate: plan.serviceDate, ministryId: plan.ministryId, planId: plan.id, planName: 'Sunday', positionId: position.id, categoryName: 'Band', positionName: 'Drums', groupId: null, needed: 2, assignmentId: null, personId: null, status: null },
    ]);
    const filled = await ok(c, 'POST', `/doing/plans/autofill/${plan.id}`, { teams: [{ positionId: position.id, personIds: [randomUUID()] }] });
    expect(keys(filled)).toEqual(['assignments', 'created', 'plan', 'runId']);
    expect(filled.created).toBe(1);
    const told = await ok(c, 'POST', '/doing/plans/notifyRange', { startDate: utcDay(), endDate: utcDay(30), ministryId: plan.ministryId, planTypeId: '' });
    expect(told).toEqual({ sent: 1, failed: 0, capped: false });
  });

  it('B1Admin:src/serving/components/Assignment.tsx reads plan.lastAutofillRunId to offer the undo, which answers {removed}', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    const [position] = await ok(c, 'POST', '/doing/positions', { planId: plan.id, name: 'Greeter' });
    const filled = await ok(c, 'POST', `/doing/plans/autofill/${plan.id}`, { teams: [{ positionId: position.id, personIds: [randomUUID()] }] });
    expect((await ok(c, 'GET', `/doing/plans/${plan.id}`)).lastAutofillRunId).toBe(filled.runId);
    expect(await ok(c, 'POST', `/doing/plans/autofill/${plan.id}/undo`, {})).toEqual({ removed: 1 });
    expect((await ok(c, 'GET', `/doing/plans/${plan.id}`)).lastAutofillRunId).toBeNull();
  });

  it('B1Admin:src/serving/components/PlanItemEdit.tsx reads a plan item time\'s id, timeId and excluded (also ServiceOrder.tsx, PrintPlan.tsx by plan)', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    const [item] = await ok(c, 'POST', '/doing/planItems', [{ id: '', planId: plan.id, label: 'Welcome', itemType: 'item', parentId: '' }]);
    const [time] = await ok(c, 'POST', '/doing/times', [{ planId: plan.id, displayName: '9:00', serviceTimeType: 'service' }]);
    const [saved] = await ok(c, 'POST', '/doing/planItemTimes', [{ planItemId: item.id, timeId: time.id, excluded: true }]);
    expect(keys(saved)).toEqual(['churchId', 'excluded', 'id', 'planId', 'planItemId', 'timeId']);
    expect(saved).toMatchObject({ planItemId: item.id, timeId: time.id, excluded: true });
    expect(await ok(c, 'GET', `/doing/planItemTimes/planItem/${item.id}`)).toEqual([saved]);
    expect(await ok(c, 'GET', `/doing/planItemTimes/plan/${plan.id}`)).toEqual([saved]);
    expect(await ok(c, 'GET', `/doing/planItemTimes/${saved.id}`)).toEqual(saved);
    // TimeEdit.tsx and PlanItemEdit.tsx keep only `service` times for the service order
    expect((await ok(c, 'GET', `/doing/times/plan/${plan.id}`))[0].serviceTimeType).toBe('service');
    expect(await ok(c, 'DELETE', `/doing/planItemTimes/${saved.id}`)).toEqual({});
  });

  it('B1Admin:src/serving/components/SchedulingPreferenceEdit.tsx and PlanValidation.tsx read a scheduling preference and the month counts', async () => {
    const c = makeChurch();
    const [pref] = await ok(c, 'POST', '/doing/schedulingPreferences', [{ personId: c.personId, maxPerMonth: null, preferredTimes: '9:00 am', householdScheduling: 'none' }]);
    expect(keys(pref)).toEqual(['churchId', 'householdScheduling', 'id', 'maxPerMonth', 'personId', 'preferredTimes']);
    const [read] = await ok(c, 'GET', `/doing/schedulingPreferences/people?ids=${c.personId}`);
    expect(read).toEqual({ ...pref, maxPerMonth: null, householdScheduling: 'none' });
    // the editor posts back what it read, a number typed into the box as text
    const [again] = await ok(c, 'POST', '/doing/schedulingPreferences', [{ ...read, maxPerMonth: '3' }]);
    expect(again).toEqual({ ...read, maxPerMonth: 3 });
    const plan = await newPlan(c);
    const [position] = await ok(c, 'POST', '/doing/positions', { planId: plan.id, name: 'Greeter' });
    await ok(c, 'POST', '/doing/assignments', [{ id: '', positionId: position.id, personId: c.personId }]);
    expect(await ok(c, 'GET', `/doing/assignments/monthCounts?date=${plan.serviceDate}`)).toEqual([{ personId: c.personId, count: 1 }]);
  });

  it('B1Admin:src/serving/components/PlanTemplateManager.tsx and PlanEdit.tsx read a template\'s id and name, apply answers {applied}', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    const template = await ok(c, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { name: 'Standard', ministryId: plan.ministryId });
    expect(keys(template)).toEqual(['churchId', 'data', 'id', 'ministryId', 'name']);
    expect((await ok(c, 'GET', `/doing/plantemplates/ministry/${plan.ministryId}`)).map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([[template.id, 'Standard']]);
    expect(await ok(c, 'POST', `/doing/plantemplates/apply/${template.id}`, { planIds: [plan.id], serviceOrder: true, positions: true })).toEqual({ applied: 1 });
    expect(await ok(c, 'DELETE', `/doing/plantemplates/${template.id}`)).toEqual({});
  });

  it('B1App:src/app/[sdSlug]/mobile/components/details/PlanDetail.tsx answers with POST /assignments/accept/:id and an empty array body', async () => {
    const c = makeChurch();
    const plan = await newPlan(c);
    const [position] = await ok(c, 'POST', '/doing/positions', { planId: plan.id, name: 'Greeter' });
    const [mine] = await ok(c, 'POST', '/doing/assignments', { positionId: position.id, personId: c.personId });
    const accepted = await call(t.app, 'POST', `/doing/assignments/accept/${mine.id}`, { token: c.token(), body: [] });
    expect(accepted.json()).toMatchObject({ id: mine.id, status: 'Accepted' });
    expect((await call(t.app, 'POST', `/doing/assignments/${mine.id}/decline`, { token: c.token(), body: [] })).json().status).toBe('Declined');
  });

  it('B1App:src/components/serving/VolunteerSignup.tsx and mobile VolunteerDetail.tsx show their own words by what errors[0] holds ("full", "deadline", "Already")', async () => {
    const c = makeChurch();
    const plan = await newPlan(c, { signupDeadlineHours: null });
    const [position] = await ok(c, 'POST', '/doing/positions', { planId: plan.id, name: 'Greeter', count: 1, allowSelfSignup: 1 });
    const signup = (who: string) => call(t.app, 'POST', '/doing/assignments/signup', { token: c.tokenOf(who), body: { positionId: position.id } });
    const me = randomUUID();
    expect((await signup(me)).statusCode).toBe(200);
    const twice = (await signup(me)).json().errors[0];
    expect(typeof twice).toBe('string');
    expect(twice).toContain('Already');
    expect((await signup(randomUUID())).json().errors[0]).toContain('full');
    const [late] = await ok(c, 'POST', '/doing/plans', [{ ...plan, signupDeadlineHours: 24 * 30 }]);
    expect(late.signupDeadlineHours).toBe(720);
    const [other] = await ok(c, 'POST', '/doing/positions', { planId: plan.id, name: 'Usher', allowSelfSignup: true });
    expect((await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: other.id } })).json().errors[0]).toContain('deadline');
  });

  it('B1Admin:src/helpers/ContentProviderAuthHelper.ts sends `scope` and reads providerId of the linked records', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const [saved] = await ok(c, 'POST', '/doing/contentProviderAuths', [{ ministryId, providerId: 'lessonschurch', accessToken: 'public_api', refreshToken: '', tokenType: 'none', expiresAt: '2036-01-01T00:00:00.000Z', scope: 'read' }]);
    expect(saved).toMatchObject({ providerId: 'lessonschurch', scope: 'read', scopes: 'read' });
    expect((await ok(c, 'GET', `/doing/contentProviderAuths/ministry/${ministryId}`)).map((a: { providerId: string }) => a.providerId)).toEqual(['lessonschurch']);
  });
});
