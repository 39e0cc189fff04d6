import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { tasks } from '../../src/db/schema';
import { runAutomations } from '../../src/domain/automation-runner';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing();

type Church = ReturnType<typeof makeChurch>;
const post = async (c: Church, url: string, body: unknown) => {
  const res = await call(t.app, 'POST', url, { token: c.token(), body });
  expect(res.statusCode).toBe(200);
  return res.json()[0];
};

/** An automation with one `task` action assigned to a staff person. */
async function automation(c: Church, recurs = 'none') {
  const a = await post(c, '/doing/automations', { title: 'Birthday calls', recurs });
  await post(c, '/doing/actions', { automationId: a.id, actionType: 'task', actionData: { assignedToType: 'person', assignedToId: c.personId, title: 'Call for birthday' } });
  return a;
}
const tasksOf = (churchId: string, automationId: string) => t.app.db.select().from(tasks).where(and(eq(tasks.churchId, churchId), eq(tasks.automationId, automationId)));

describe('automations, actions, conditions, conjunctions', () => {
  it('save, read by automation, validate references and fields, and delete with their parts', async () => {
    const c = makeChurch();
    const a = await automation(c);
    const root = await post(c, '/doing/conjunctions', { automationId: a.id, groupType: 'OR' });
    expect(root.groupType).toBe('or');
    const cond = await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: root.id, field: 'birthMonth', operator: '=', value: '3' });
    const token = c.token();
    expect((await call(t.app, 'GET', `/doing/conditions/automation/${a.id}`, { token })).json().map((x: { id: string }) => x.id)).toEqual([cond.id]);
    expect((await call(t.app, 'GET', `/doing/conjunctions/automation/${a.id}`, { token })).json()).toHaveLength(1);
    // B1Admin's automation page JSON.parses an action's actionData: it is answered as JSON text, as the app sends it
    const [read] = (await call(t.app, 'GET', `/doing/actions/automation/${a.id}`, { token })).json();
    expect(JSON.parse(read.actionData)).toEqual({ assignedToType: 'person', assignedToId: c.personId, title: 'Call for birthday' });
    expect(JSON.parse((await call(t.app, 'GET', `/doing/actions/${read.id}`, { token })).json().actionData)).toMatchObject({ title: 'Call for birthday' });
    const sent = JSON.stringify({ assignedToType: 'person', assignedToId: c.personId, title: 'Call again' });
    const saved = await post(c, '/doing/actions', { id: read.id, automationId: a.id, actionType: 'task', actionData: sent });
    expect(JSON.parse(saved.actionData)).toEqual(JSON.parse(sent));
    expect((await call(t.app, 'GET', `/doing/conditions/${cond.id}`, { token })).json().field).toBe('birthMonth');
    expect((await call(t.app, 'GET', `/doing/automations/${a.id}`, { token })).json()).toMatchObject({ title: 'Birthday calls', recurs: 'none', active: true });
    expect((await call(t.app, 'GET', '/doing/automations', { token })).json()).toHaveLength(1);

    const field = await call(t.app, 'POST', '/doing/conditions', { token, body: { automationId: a.id, field: 'shoeSize', value: '9' } });
    expect(field.json().errors[0].param).toBe('field');
    const foreign = await call(t.app, 'POST', '/doing/conditions', { token: makeChurch().token(), body: { automationId: a.id, field: 'age' } });
    expect(foreign.json().errors[0].param).toBe('automationId');
    // B1Admin's editor sends `never` (its default); any word but weekly/monthly/yearly is no repeat
    expect(await post(c, '/doing/automations', { title: 'Once', recurs: 'never' })).toMatchObject({ title: 'Once', recurs: 'never' });
    expect(await post(c, '/doing/automations', { title: 'Daily?', recurs: 'daily' })).toMatchObject({ recurs: 'never' });
    expect(await post(c, '/doing/automations', { title: 'Weekly', recurs: 'Weekly' })).toMatchObject({ recurs: 'weekly' });
    expect((await call(t.app, 'POST', '/doing/automations', { token, body: { title: 'x', recurs: 7 } })).json().errors[0].param).toBe('recurs');
    const action = await call(t.app, 'POST', '/doing/actions', { token, body: { automationId: a.id, actionType: 'task', actionData: { assignedToType: 'person' } } });
    expect(action.statusCode).toBe(400);

    expect((await call(t.app, 'DELETE', `/doing/automations/${a.id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/doing/conditions/${cond.id}`, { token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/doing/automations/${a.id}`, { token })).statusCode).toBe(404);
  });
});

describe('running automations', () => {
  it('opens one task per selected person for birth-month AND status, and nothing twice on a second run', async () => {
    const c = makeChurch();
    const march = person({ displayName: 'March Member', birthDate: '1990-03-14', membershipStatus: 'Member' });
    const marchVisitor = person({ birthDate: '1985-03-02', membershipStatus: 'Visitor' });
    const may = person({ birthDate: '1990-05-14', membershipStatus: 'Member' });
    t.membership.addPeople(c.churchId, [march, marchVisitor, may]);
    const a = await automation(c, 'yearly');
    const and_ = await post(c, '/doing/conjunctions', { automationId: a.id, groupType: 'and' });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: and_.id, field: 'birthMonth', operator: '=', value: '3' });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: and_.id, field: 'membershipStatus', operator: '=', value: 'member' });

    const first = await runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId });
    expect(first.tasksCreated).toBe(1);
    const made = await tasksOf(c.churchId, a.id);
    expect(made).toEqual([expect.objectContaining({ associatedWithId: march.id, associatedWithLabel: 'March Member', assignedToId: c.personId, title: 'Call for birthday', status: 'Open', createdByType: 'automation' })]);
    expect((await runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId })).tasksCreated).toBe(0);
    // yearly: later in the same year nothing again; next year once more
    expect((await runAutomations(t.app.deps, { date: '2031-03-20', churchId: c.churchId })).tasksCreated).toBe(0);
    expect((await runAutomations(t.app.deps, { date: '2032-03-01', churchId: c.churchId })).tasksCreated).toBe(1);
    // the people see it in their task list
    expect((await call(t.app, 'GET', '/doing/tasks', { token: c.token() })).json()).toHaveLength(2);
  });

  it('evaluates OR groups nested in AND, group membership and today conditions', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    const inGroup = person({ groupIds: [groupId], gender: 'Female', maritalStatus: 'Single' });
    const married = person({ gender: 'Female', maritalStatus: 'Married', anniversary: '2010-06-01' });
    const male = person({ gender: 'Male', maritalStatus: 'Married' });
    t.membership.addPeople(c.churchId, [inGroup, married, male]);
    const a = await automation(c, 'weekly');
    // gender = Female AND (groupMember = groupId OR maritalStatus = Married) AND today is a Monday
    const root = await post(c, '/doing/conjunctions', { automationId: a.id, groupType: 'and' });
    const or = await post(c, '/doing/conjunctions', { automationId: a.id, parentId: root.id, groupType: 'or' });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: root.id, field: 'gender', value: 'female' });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: or.id, field: 'groupMember', value: groupId });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: or.id, field: 'maritalStatus', value: 'Married' });
    await post(c, '/doing/conditions', { automationId: a.id, conjunctionId: root.id, field: 'today', fieldData: 'dayOfWeek', value: '1' });

    // 2031-03-02 is a Sunday: the today condition holds for nobody
    expect((await runAutomations(t.app.deps, { date: '2031-03-02', churchId: c.churchId })).tasksCreated).toBe(0);
    expect((await runAutomations(t.app.deps, { date: '2031-03-03', churchId: c.churchId })).tasksCreated).toBe(2);
    const who = (await tasksOf(c.churchId, a.id)).map((x) => x.associatedWithId).sort();
    expect(who).toEqual([inGroup.id, married.id].sort());
    // weekly: the next Monday runs again, the same week does not
    expect((await runAutomations(t.app.deps, { date: '2031-03-03', churchId: c.churchId })).tasksCreated).toBe(0);
    expect((await runAutomations(t.app.deps, { date: '2031-03-10', churchId: c.churchId })).tasksCreated).toBe(2);
  });

  it('an automation without conditions selects nobody; an inactive one does not run; days-until conditions', async () => {
    const c = makeChurch();
    const soon = person({ birthDate: '2000-03-05' });
    t.membership.addPeople(c.churchId, [soon, person({ birthDate: '2000-04-05' })]);
    const empty = await automation(c);
    expect((await runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId })).tasksCreated).toBe(0);
    expect(await tasksOf(c.churchId, empty.id)).toEqual([]);
    const upcoming = await automation(c, 'yearly');
    await post(c, '/doing/conditions', { automationId: upcoming.id, field: 'daysUntilBirthday', operator: '<=', value: '7' });
    const off = await post(c, '/doing/automations', { title: 'Off', active: false });
    const team = randomUUID();
    t.membership.addGroups(c.churchId, team);
    await post(c, '/doing/actions', { automationId: off.id, actionType: 'task', actionData: { assignedToType: 'group', assignedToId: team, title: 'x' } });
    await post(c, '/doing/conditions', { automationId: off.id, field: 'age', operator: '>', value: '0' });
    expect((await runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId })).tasksCreated).toBe(1);
    expect((await tasksOf(c.churchId, upcoming.id)).map((x) => x.associatedWithId)).toEqual([soon.id]);
    expect(await tasksOf(c.churchId, off.id)).toEqual([]);
  });

  it('fails (so the job retries) when membership is away, having created nothing', async () => {
    const c = makeChurch();
    t.membership.addPeople(c.churchId, [person({ birthDate: '1990-03-14' })]);
    const a = await automation(c, 'yearly');
    await post(c, '/doing/conditions', { automationId: a.id, field: 'birthMonth', value: '3' });
    t.membership.setDown(true);
    try {
      await expect(runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId })).rejects.toThrow(/automations failed for 1 church/);
    } finally {
      t.membership.setDown(false);
    }
    expect(await tasksOf(c.churchId, a.id)).toEqual([]);
    expect((await runAutomations(t.app.deps, { date: '2031-03-01', churchId: c.churchId })).tasksCreated).toBe(1);
  });

  it('GET /doing/automations/check is public and runs the check job', async () => {
    const c = makeChurch();
    const today = new Date();
    const everyone = person({ birthDate: `1990-${String(today.getUTCMonth() + 1).padStart(2, '0')}-01` });
    t.membership.addPeople(c.churchId, [everyone]);
    const a = await automation(c, 'monthly');
    await post(c, '/doing/conditions', { automationId: a.id, field: 'birthMonth', value: String(today.getUTCMonth() + 1) });
    const res = await call(t.app, 'GET', '/doing/automations/check');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ queued: true });
    await t.drain();
    expect((await tasksOf(c.churchId, a.id)).map((x) => x.associatedWithId)).toEqual([everyone.id]);
  });
});
