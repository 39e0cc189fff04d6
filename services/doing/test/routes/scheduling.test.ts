import { randomUUID } from 'node:crypto';
import { call, foreignId } from '@church/common/testing';
import { sql } from 'drizzle-orm';
import { rowsOf } from '@church/common';
import { utcDay } from '@church/common';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing();

async function planWithPosition(c: ReturnType<typeof makeChurch>, groupId: string | null = null) {
  const token = c.token();
  const plan = (await call(t.app, 'POST', '/doing/plans', { token, body: { name: 'Sunday AM', serviceDate: '2030-06-02' } })).json()[0];
  const position = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: plan.id, name: 'Keys', categoryName: 'Band', groupId } })).json()[0];
  return { plan, position };
}

describe('/doing/planTypes', () => {
  it('saves, lists by ministry and by ids, and deletes', async () => {
    const c = makeChurch();
    const [ministryId, kidsMinistry] = [randomUUID(), randomUUID()];
    t.membership.addGroups(c.churchId, ministryId, kidsMinistry);
    const saved = await call(t.app, 'POST', '/doing/planTypes', { token: c.token(), body: [{ name: 'Worship', ministryId }, { name: 'Kids', ministryId: kidsMinistry }] });
    expect(saved.statusCode).toBe(200);
    const [worship, kids] = saved.json();
    expect((await call(t.app, 'GET', `/doing/planTypes/ministryId/${ministryId}`, { token: c.token() })).json().map((p: { name: string }) => p.name)).toEqual(['Worship']);
    expect((await call(t.app, 'GET', `/doing/planTypes/ids?ids=${worship.id},${kids.id}`, { token: c.token() })).json()).toHaveLength(2);
    expect((await call(t.app, 'GET', '/doing/planTypes', { token: c.token() })).json().map((p: { name: string }) => p.name)).toEqual(['Kids', 'Worship']);
    expect((await call(t.app, 'POST', '/doing/planTypes', { token: c.token(), body: {} })).json().errors[0]).toMatchObject({ param: 'name', location: 'body' });
    expect((await call(t.app, 'DELETE', `/doing/planTypes/${kids.id}`, { token: c.token() })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/doing/planTypes/${kids.id}`, { token: c.token() })).statusCode).toBe(404);
  });
});

describe("references to membership's groups", () => {
  it("a ministry, team or group another church has (or nobody has) is refused by field, before anything is written; the church's own are taken", async () => {
    const c = makeChurch();
    const [mine, theirs] = [randomUUID(), foreignId()];
    t.membership.addGroups(c.churchId, mine);
    const token = c.token();
    const refused = async (url: string, body: unknown, param: string) => {
      const res = await call(t.app, 'POST', url, { token, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ msg: expect.stringContaining('is not a record of this church'), param, location: 'body' }]);
    };
    await refused('/doing/planTypes', [{ name: 'Ours', ministryId: mine }, { name: 'Theirs', ministryId: theirs }], '[1].ministryId');
    expect((await call(t.app, 'GET', `/doing/planTypes/ministryId/${mine}`, { token })).json()).toEqual([]);
    const { plan, position } = await planWithPosition(c, mine);
    expect(position.groupId).toBe(mine);
    await refused('/doing/positions', [{ planId: plan.id, name: 'Drums', groupId: theirs }], '[0].groupId');
    await refused('/doing/positions', { id: position.id, planId: plan.id, name: 'Keys', groupId: foreignId() }, 'groupId');
    await refused('/doing/plantemplates', { name: 'Theirs', ministryId: theirs }, 'ministryId');
    await refused(`/doing/plantemplates/fromPlan/${plan.id}`, { name: 'Theirs', ministryId: theirs }, 'ministryId');
    await refused('/doing/tasks', [{ title: 'Call', assignedToType: 'group', assignedToId: theirs }], '[0].assignedToId');
    const [automation] = (await call(t.app, 'POST', '/doing/automations', { token, body: { title: 'Welcome' } })).json();
    await refused('/doing/actions', { automationId: automation.id, actionType: 'task', actionData: { assignedToType: 'group', assignedToId: theirs, title: 'Call' } }, 'actionData.assignedToId');
    await refused('/doing/conditions', { automationId: automation.id, field: 'groupMember', value: `${mine},${theirs}` }, 'value');
    expect((await call(t.app, 'GET', `/doing/conditions/automation/${automation.id}`, { token })).json()).toEqual([]);
    // the church's own groups are taken
    expect((await call(t.app, 'POST', '/doing/tasks', { token, body: { title: 'Call', assignedToType: 'group', assignedToId: mine } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/doing/conditions', { token, body: { automationId: automation.id, field: 'groupMember', value: mine } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/doing/plantemplates', { token, body: { name: 'Ours', ministryId: mine } })).statusCode).toBe(200);
  });

  it("a plan's, a plan template's and a provider sign-in's ministry, and a template's teams, are the church's groups, also for a holder of Plans.Edit", async () => {
    const c = makeChurch();
    const token = c.token(['Plans.Edit']);
    const [mine, theirs] = [randomUUID(), foreignId()];
    const refused = async (url: string, body: unknown, param: string) => {
      const res = await call(t.app, 'POST', url, { token, body });
      expect([url, res.statusCode, res.json()]).toEqual([url, 400, { errors: [{ msg: expect.stringContaining('is not a record of this church'), param, location: 'body' }] }]);
    };
    await refused('/doing/plans', [{ name: 'Sunday', serviceDate: '2030-06-02', ministryId: theirs }], '[0].ministryId');
    await refused('/doing/plans', { name: 'Sunday', serviceDate: '2030-06-02', campusId: foreignId() }, 'campusId');
    const { plan } = await planWithPosition(c, mine);
    await refused(`/doing/plans/copy/${plan.id}`, { name: 'Next', serviceDate: '2030-06-09', ministryId: theirs }, 'ministryId');
    await refused('/doing/plantemplates', { name: 'Theirs', ministryId: theirs }, 'ministryId');
    await refused('/doing/plantemplates', { name: 'Ours', ministryId: mine, data: { items: [], positions: [{ name: 'Drums', groupId: theirs }] } }, 'data.positions[0].groupId');
    await refused('/doing/contentProviderAuths', { ministryId: theirs, providerId: 'lessonschurch' }, 'ministryId');
    const kept = await t.app.db.execute(sql`select count(*)::int as n from plans where church_id = ${c.churchId}`);
    expect(rowsOf<{ n: number }>(kept)[0]!.n).toBe(1);
    expect((await call(t.app, 'GET', `/doing/plantemplates/ministry/${mine}`, { token })).json()).toEqual([]);
    // the church's own are taken
    expect((await call(t.app, 'POST', '/doing/plans', { token, body: { name: 'Sunday', serviceDate: '2030-06-09', ministryId: mine, campusId: randomUUID() } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/doing/plantemplates', { token, body: { name: 'Ours', ministryId: mine, data: { items: [], positions: [{ name: 'Drums', groupId: mine }] } } })).statusCode).toBe(200);
  });
});

describe("references to membership's people (and campuses, households, groups a condition names)", () => {
  it("another church's person is refused by field wherever a body names one, and nothing is written", async () => {
    const c = makeChurch();
    const token = c.token(['Plans.Edit', 'People.Edit']);
    const [mine, theirs] = [randomUUID(), foreignId()];
    const refused = async (url: string, body: unknown, param: string) => {
      const res = await call(t.app, 'POST', url, { token, body });
      expect([url, res.statusCode, res.json()]).toEqual([url, 400, { errors: [{ msg: expect.stringContaining('is not a record of this church'), param, location: 'body' }] }]);
    };
    const { plan, position } = await planWithPosition(c);
    await refused('/doing/assignments', [{ positionId: position.id, personId: mine }, { positionId: position.id, personId: theirs }], '[1].personId');
    await refused(`/doing/plans/autofill/${plan.id}`, { teams: [{ positionId: position.id, personIds: [mine, theirs] }] }, 'teams[0].personIds');
    await refused('/doing/schedulingPreferences', { personId: theirs, maxPerMonth: 2 }, 'personId');
    await refused('/doing/blockoutDates', { personId: theirs, startDate: '2030-06-02' }, 'personId');
    await refused('/doing/tasks', { title: 'Call', assignedToType: 'person', assignedToId: theirs }, 'assignedToId');
    await refused('/doing/tasks', { title: 'Call', associatedWithType: 'person', associatedWithId: theirs }, 'associatedWithId');
    await refused('/doing/tasks', { title: 'Call', createdByType: 'person', createdById: theirs }, 'createdById');
    const [automation] = (await call(t.app, 'POST', '/doing/automations', { token, body: { title: 'Welcome' } })).json();
    await refused('/doing/actions', { automationId: automation.id, actionType: 'task', actionData: { assignedToType: 'person', assignedToId: theirs, title: 'Call' } }, 'actionData.assignedToId');
    for (const field of ['campusId', 'householdId', 'groupMember']) {
      await refused('/doing/conditions', { automationId: automation.id, field, operator: 'in', value: `${mine}, ${foreignId()}` }, 'value');
    }
    const assignments = (await call(t.app, 'GET', `/doing/assignments/plan/${plan.id}`, { token })).json();
    expect(assignments).toEqual([]);
    expect((await call(t.app, 'GET', `/doing/conditions/automation/${automation.id}`, { token })).json()).toEqual([]);
    // a type that names no record of the church (an automation, the system) is not checked; the church's people are taken
    expect((await call(t.app, 'POST', '/doing/tasks', { token, body: { title: 'Call', createdByType: 'system', createdById: 'nightly', assignedToType: 'person', assignedToId: mine } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: position.id, personId: mine } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/doing/conditions', { token, body: { automationId: automation.id, field: 'campusId', value: mine } })).statusCode).toBe(200);
  });
});

describe('/doing/positions and /doing/times', () => {
  it('saves against a plan of the church, lists by plan and plans, deletes a position with its assignments', async () => {
    const c = makeChurch();
    const token = c.token();
    const { plan, position } = await planWithPosition(c);
    expect(position).toMatchObject({ planId: plan.id, name: 'Keys', count: 1, categoryName: 'Band' });
    expect((await call(t.app, 'GET', `/doing/positions/plan/ids?planIds=${plan.id}`, { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/doing/positions/ids?ids=${position.id}`, { token })).json()).toHaveLength(1);
    const foreign = await call(t.app, 'POST', '/doing/positions', { token: makeChurch().token(), body: { planId: plan.id, name: 'x' } });
    expect(foreign.json().errors[0]).toMatchObject({ param: 'planId' });
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: position.id, personId: randomUUID() } });
    expect((await call(t.app, 'DELETE', `/doing/positions/${position.id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/doing/assignments/plan/${plan.id}`, { token })).json()).toEqual([]);

    const time = await call(t.app, 'POST', '/doing/times', { token, body: { planId: plan.id, displayName: 'Rehearsal', startTime: '2030-06-01T18:00:00Z', endTime: '2030-06-01T20:00:00Z', teams: 'Band' } });
    expect(time.json()[0]).toMatchObject({ displayName: 'Rehearsal', startTime: '2030-06-01T18:00:00.000Z', teams: 'Band' });
    expect((await call(t.app, 'GET', '/doing/times/all', { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/doing/times/plans?planIds=${plan.id}`, { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/doing/times/${time.json()[0].id}`, { token })).json().displayName).toBe('Rehearsal');
    const backwards = await call(t.app, 'POST', '/doing/times', { token, body: { planId: plan.id, startTime: '2030-06-01T18:00:00Z', endTime: '2030-06-01T17:00:00Z' } });
    expect(backwards.json().errors[0].param).toBe('endTime');
    expect((await call(t.app, 'GET', '/doing/times/all', { token: makeChurch().token() })).json()).toEqual([]);
  });
});

describe('/doing/assignments', () => {
  it('defaults status to Unconfirmed, takes the plan from the position, and lists the caller\'s own', async () => {
    const c = makeChurch();
    const { plan, position } = await planWithPosition(c);
    const res = await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId } });
    expect(res.json()[0]).toMatchObject({ planId: plan.id, positionId: position.id, personId: c.personId, status: 'Unconfirmed' });
    expect((await call(t.app, 'GET', '/doing/assignments/my', { token: c.token() })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/doing/assignments/plan/ids?planIds=${plan.id}`, { token: c.token() })).json()).toHaveLength(1);
    const wrongPlan = await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId, planId: randomUUID() } });
    expect(wrongPlan.json().errors[0].param).toBe('planId');
    const badStatus = await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId, status: 'Maybe' } });
    expect(badStatus.json().errors[0].param).toBe('status');
  });

  it('an assignment given to another person goes back to Unconfirmed: the new volunteer has not said yes', async () => {
    const c = makeChurch();
    const { position } = await planWithPosition(c);
    const asg = (await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId } })).json()[0];
    expect((await call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: c.token() })).json().status).toBe('Accepted');
    // the same person kept: the answer stands
    const same = await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { id: asg.id, positionId: position.id, personId: c.personId } });
    expect(same.json()[0].status).toBe('Accepted');
    const other = randomUUID();
    const swapped = await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { id: asg.id, positionId: position.id, personId: other.toUpperCase() } });
    expect(swapped.statusCode).toBe(200);
    expect(swapped.json()[0]).toMatchObject({ personId: other, status: 'Unconfirmed' });
    // the status the coordinator posts back with the change (the previous person's answer, as loaded) is not the new person's
    const coordinator = c.tokenOf(randomUUID(), ['Plans.Edit']);
    const back = await call(t.app, 'POST', '/doing/assignments', { token: coordinator, body: { id: asg.id, positionId: position.id, personId: c.personId, status: 'Accepted' } });
    expect(back.statusCode).toBe(200);
    expect(back.json()[0]).toMatchObject({ personId: c.personId, status: 'Unconfirmed' });
    expect((await call(t.app, 'POST', '/doing/assignments', { token: makeChurch().token(), body: { id: asg.id, positionId: position.id, personId: other } })).statusCode).toBe(400);
  });

  it('accept and decline: only the assigned person; the position\'s team leaders are notified through messaging', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    const leader = randomUUID();
    t.membership.addPeople(c.churchId, [person({ id: c.personId, displayName: 'Val Volunteer' })]);
    t.membership.addMember(c.churchId, groupId, leader, 'Lee Leader', true);
    t.membership.addMember(c.churchId, groupId, c.personId, 'Val Volunteer', false);
    const { position, plan } = await planWithPosition(c, groupId);
    const asg = (await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId } })).json()[0];

    const stranger = await call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: c.tokenOf(randomUUID(), 'all') });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json().errors[0]).toMatch(/assigned person/);
    expect((await call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: makeChurch().token() })).statusCode).toBe(404);

    const accepted = await call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: c.token() });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ id: asg.id, personId: c.personId, positionId: position.id, planId: plan.id, status: 'Accepted' });
    await t.drain();
    const sent = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople' && (j.data as { contentId: string }).contentId === asg.planId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.data).toMatchObject({ churchId: c.churchId, personIds: [leader], contentType: 'assignment', triggeredByPersonId: c.personId });
    expect((sent[0]!.data as { message: string }).message).toMatch(/^Val Volunteer accepted Keys/);

    const declined = await call(t.app, 'POST', `/doing/assignments/decline/${asg.id}`, { token: c.token() });
    expect(declined.json().status).toBe('Declined');
    await t.drain();
    expect(t.deps.queue.handedOff.filter((j) => (j.data as { contentId?: string }).contentId === asg.planId)).toHaveLength(2);
    expect((await call(t.app, 'GET', `/doing/assignments/${asg.id}`, { token: c.token() })).json().status).toBe('Declined');
  });

  it('the same answer sent several times at once changes the status once and notifies the leaders once', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    t.membership.addMember(c.churchId, groupId, randomUUID(), 'Lee Leader', true);
    const { position } = await planWithPosition(c, groupId);
    const asg = (await call(t.app, 'POST', '/doing/assignments', { token: c.token(), body: { positionId: position.id, personId: c.personId } })).json()[0];
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: c.token() })));
    expect(answers.map((r) => [r.statusCode, r.json().status])).toEqual(Array.from({ length: 12 }, () => [200, 'Accepted']));
    await t.drain();
    expect(t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople' && (j.data as { contentId: string }).contentId === asg.planId)).toHaveLength(1);
  });
});

describe('/doing/blockoutDates', () => {
  it('defaults personId to the caller and endDate to startDate; my, upcoming, ids', async () => {
    const c = makeChurch();
    const token = c.token();
    const mine = await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { startDate: utcDay(3) } });
    expect(mine.json()[0]).toMatchObject({ personId: c.personId, startDate: utcDay(3), endDate: utcDay(3) });
    await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { personId: randomUUID(), startDate: utcDay(-10), endDate: utcDay(-5) } });
    expect((await call(t.app, 'GET', '/doing/blockoutDates/my', { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/doing/blockoutDates/upcoming', { token })).json().map((b: { personId: string }) => b.personId)).toEqual([c.personId]);
    expect((await call(t.app, 'GET', `/doing/blockoutDates/ids?ids=${mine.json()[0].id}`, { token })).json()).toHaveLength(1);
    const backwards = await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { startDate: '2030-01-05', endDate: '2030-01-01' } });
    expect(backwards.json().errors[0].param).toBe('endDate');
    expect((await call(t.app, 'GET', '/doing/blockoutDates/my', { token: makeChurch().token() })).json()).toEqual([]);
    expect((await call(t.app, 'DELETE', `/doing/blockoutDates/${mine.json()[0].id}`, { token })).statusCode).toBe(200);
  });

  it('refuses an update that moves the start after the stored end, so autofill never meets a range that blocks no day', async () => {
    const c = makeChurch();
    const token = c.token();
    const saved = (await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { startDate: '2030-06-01', endDate: '2030-06-05' } })).json()[0];
    const late = await call(t.app, 'POST', '/doing/blockoutDates', { token, body: [{ id: saved.id, startDate: '2030-06-09' }] });
    expect(late.statusCode).toBe(400);
    expect(late.json().errors[0].param).toBe('[0].startDate');
    expect((await call(t.app, 'GET', `/doing/blockoutDates/${saved.id}`, { token })).json()).toMatchObject({ startDate: '2030-06-01', endDate: '2030-06-05' });
    // within the stored range, or with a new end, the update is fine
    expect((await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { id: saved.id, startDate: '2030-06-05' } })).json()[0]).toMatchObject({ startDate: '2030-06-05', endDate: '2030-06-05' });
    expect((await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { id: saved.id, startDate: '2030-06-09', endDate: '2030-06-10' } })).json()[0]).toMatchObject({ startDate: '2030-06-09', endDate: '2030-06-10' });
    expect((await call(t.app, 'POST', '/doing/blockoutDates', { token: makeChurch().token(), body: { id: saved.id, startDate: '2030-06-01' } })).statusCode).toBe(404);
  });
});
