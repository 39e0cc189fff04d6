import { randomUUID } from 'node:crypto';
import { DAY_MS, cardNote } from '@church/common';
import { call, foreignId } from '@church/common/testing';
import { wakeCards } from '../../src/domain/cards';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing({ watchTransactions: true });
/** The job's run the domain functions act under when a test calls them as the worker does. */
const job = () => ({ id: 'test-job', log: t.app.log });
// doing never calls membership with a transaction open: such a call fails here
afterEach(() => expect(t.membership.calledInTransaction.splice(0)).toEqual([]));
type Church = ReturnType<typeof makeChurch>;
type Row = Record<string, unknown> & { id: string };

const post = async (c: Church, url: string, body: unknown, token = c.token()) => {
  const res = await call(t.app, 'POST', url, { token, body });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const get = async (c: Church, url: string, token = c.token()) => (await call(t.app, 'GET', url, { token })).json();
/** A workflow with named steps, answered with its steps in order. */
async function workflow(c: Church, steps: Array<Record<string, unknown>>) {
  const [w] = await post(c, '/doing/workflows', [{ id: '', name: 'Follow-up', categoryId: '' }]);
  const made: Row[] = [];
  for (const s of steps) made.push((await post(c, '/doing/workflowSteps', [{ workflowId: w.id, ...s }]))[0]);
  return { workflow: w as Row, steps: made };
}
const notices = (churchId: string) => t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople' && (j.data as { churchId: string }).churchId === churchId).map((j) => j.data as { personIds: string[]; contentId: string });

describe('/doing/workflows, steps, actions and routes', () => {
  it('are staff work: Plans.Edit saves and reads them, a member is refused, another church sees nothing', async () => {
    const c = makeChurch();
    const [category] = await post(c, '/doing/workflowCategories', [{ name: 'Care' }]);
    const { workflow: w, steps } = await workflow(c, [{ name: 'Call' }, { name: 'Visit' }]);
    expect(steps.map((s) => s.sort)).toEqual([1, 2]);
    expect((await post(c, '/doing/workflows', { id: w.id, name: 'Renamed', categoryId: category.id }))[0]).toMatchObject({ name: 'Renamed', categoryId: category.id, active: true });
    expect((await get(c, '/doing/workflowCategories')).map((x: Row) => x.name)).toEqual(['Care']);
    expect((await get(c, '/doing/workflows')).map((x: Row) => x.name)).toEqual(['Renamed']);
    expect((await get(c, `/doing/workflowSteps/workflow/${w.id}`)).map((x: Row) => x.name)).toEqual(['Call', 'Visit']);

    const member = c.token([]);
    expect((await call(t.app, 'GET', '/doing/workflows', { token: member })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/doing/workflows', { token: member, body: { name: 'X' } })).statusCode).toBe(401);

    const other = makeChurch();
    expect(await get(other, `/doing/workflowSteps/workflow/${w.id}`)).toEqual([]);
    expect((await call(t.app, 'DELETE', `/doing/workflows/${w.id}`, { token: other.token() })).statusCode).toBe(404);
    const foreignStep = await call(t.app, 'POST', '/doing/workflowSteps', { token: other.token(), body: [{ workflowId: w.id, name: 'Sneak' }] });
    expect(foreignStep.statusCode).toBe(400);
    expect(foreignStep.json().errors[0].param).toBe('[0].workflowId');
    expect((await get(c, `/doing/workflowSteps/workflow/${w.id}`)).length).toBe(2);

    const noName = await call(t.app, 'POST', '/doing/workflows', { token: c.token(), body: { name: '' } });
    expect(noName.json().errors[0]).toMatchObject({ param: 'name', location: 'body' });
    const badAction = await call(t.app, 'POST', '/doing/workflowStepActions', { token: c.token(), body: [{ stepId: steps[0]!.id, actionType: 'explode' }] });
    expect(badAction.json().errors[0].param).toBe('[0].actionType');
  });

  it('templates, fromTemplate, duplicate (steps, actions, routes within) and delete (parts gone, open cards closed)', async () => {
    const c = makeChurch();
    const templates = await get(c, '/doing/workflows/templates');
    expect(templates.map((x: Row) => x.key)).toEqual(['newVisitor', 'membership', 'firstGift']);
    const made = await post(c, '/doing/workflows/fromTemplate', { templateKey: 'firstGift', name: 'Givers' });
    expect(made.name).toBe('Givers');
    const steps = await get(c, `/doing/workflowSteps/workflow/${made.id}`);
    expect(steps.map((s: Row) => [s.name, s.expectedResponseDays])).toEqual([['Send thank-you note', 2], ['Share giving impact', 14], ['Stewarded', null]]);
    expect((await call(t.app, 'POST', '/doing/workflows/fromTemplate', { token: c.token(), body: { templateKey: 'nope' } })).json().errors[0].param).toBe('templateKey');

    await post(c, '/doing/workflowStepActions', [{ stepId: steps[0].id, actionType: 'addNote', config: '{"note":"hi"}' }]);
    await post(c, '/doing/workflowStepRoutes', [{ stepId: steps[0].id, trigger: 'onComplete', kind: 'outcome', label: 'Done', targetStepId: steps[2].id }]);
    const copy = await post(c, `/doing/workflows/${made.id}/duplicate`, {});
    expect(copy.name).toBe('Givers (copy)');
    const board = await get(c, `/doing/tasks/board/${copy.id}`);
    expect(board.steps.map((s: Row) => s.name)).toEqual(steps.map((s: Row) => s.name));
    expect(board.actions).toHaveLength(1);
    expect(board.routes[0].targetStepId).toBe(board.steps[2].id);
    expect(board.actions[0].stepId).toBe(board.steps[0].id);

    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: made.id, associatedWith: { type: 'person', id: randomUUID(), label: 'Ann' } });
    const blocked = await call(t.app, 'DELETE', `/doing/workflowSteps/${steps[0].id}`, { token: c.token() });
    expect(blocked.statusCode).toBe(409);
    expect((await call(t.app, 'DELETE', `/doing/workflows/${made.id}`, { token: c.token() })).statusCode).toBe(200);
    expect(await get(c, `/doing/workflowSteps/workflow/${made.id}`)).toEqual([]);
    expect(await get(c, `/doing/workflowStepActions/step/${steps[0].id}`)).toEqual([]);
    expect((await get(c, `/doing/tasks/${card.id}`)).status).toBe('Closed');
  });

  it('routes into another workflow\'s step are refused; a personMatch route gets its root conjunction, whose conditions take the route as owner', async () => {
    const c = makeChurch();
    const a = await workflow(c, [{ name: 'One' }, { name: 'Two' }]);
    const b = await workflow(c, [{ name: 'Elsewhere' }]);
    const wrong = await call(t.app, 'POST', '/doing/workflowStepRoutes', { token: c.token(), body: [{ stepId: a.steps[0]!.id, trigger: 'onEnter', kind: 'always', targetStepId: b.steps[0]!.id }] });
    expect(wrong.json().errors[0].param).toBe('[0].targetStepId');
    const [route] = await post(c, '/doing/workflowStepRoutes', [{ stepId: a.steps[0]!.id, trigger: 'onEnter', kind: 'personMatch', targetStepId: a.steps[1]!.id }]);
    expect(route.workflowId).toBe(a.workflow.id);
    const [root] = await get(c, `/doing/conjunctions/stepRoute/${route.id}`);
    expect(root).toMatchObject({ stepRouteId: route.id, automationId: null, parentId: null, groupType: 'and' });
    const [cond] = await post(c, '/doing/conditions', [{ conjunctionId: root.id, field: 'membershipStatus', operator: '=', value: 'Visitor' }]);
    expect(cond).toMatchObject({ stepRouteId: route.id, triggerId: null, automationId: null });
    expect((await get(c, `/doing/conditions/stepRoute/${route.id}`)).map((x: Row) => x.id)).toEqual([cond.id]);
    const orphan = await call(t.app, 'POST', '/doing/conditions', { token: c.token(), body: [{ field: 'gender', value: 'x' }] });
    expect(orphan.json().errors[0].param).toBe('[0].automationId');
    // another church cannot hang a condition on this church's conjunction, nor read the tree
    const other = makeChurch();
    expect((await call(t.app, 'POST', '/doing/conditions', { token: other.token(), body: [{ conjunctionId: root.id, field: 'gender', value: 'x' }] })).json().errors[0].param).toBe('[0].conjunctionId');
    expect(await get(other, `/doing/conditions/stepRoute/${route.id}`)).toEqual([]);
    // the route's tree goes with it
    await call(t.app, 'DELETE', `/doing/workflowStepRoutes/${route.id}`, { token: c.token() });
    expect(await get(c, `/doing/conjunctions/stepRoute/${route.id}`)).toEqual([]);
    expect(await get(c, `/doing/conditions/stepRoute/${route.id}`)).toEqual([]);
  });
});

describe('workflow cards', () => {
  it('a card enters its step (default assignee notified, due date), moves on by a matching personMatch route, and is answered on the board', async () => {
    const c = makeChurch();
    const helper = randomUUID();
    const visitor = person({ membershipStatus: 'Visitor', displayName: 'Vic Visitor' });
    const member = person({ membershipStatus: 'Member', displayName: 'Mo Member' });
    t.membership.addPeople(c.churchId, [visitor, member]);
    const { workflow: w, steps } = await workflow(c, [
      { name: 'Sort' },
      { name: 'Welcome visitor', defaultAssignToType: 'person', defaultAssignToId: helper, defaultAssignToLabel: 'Helper', expectedResponseDays: 3 },
      { name: 'Done' },
    ]);
    const [route] = await post(c, '/doing/workflowStepRoutes', [{ stepId: steps[0]!.id, trigger: 'onEnter', kind: 'personMatch', targetStepId: steps[1]!.id }]);
    const [root] = await get(c, `/doing/conjunctions/stepRoute/${route.id}`);
    await post(c, '/doing/conditions', [{ conjunctionId: root.id, field: 'membershipStatus', value: 'Visitor' }]);
    await post(c, '/doing/workflowStepActions', [
      { stepId: steps[1]!.id, actionType: 'addNote', config: { note: 'Say hi' } },
      { stepId: steps[1]!.id, actionType: 'createTask', config: JSON.stringify({ title: 'Bake cookies', assignedToType: 'person', assignedToId: helper, assignedToLabel: 'Helper' }) },
    ]);

    const cards = await post(c, '/doing/tasks/bulkAddToWorkflow', { workflowId: w.id, people: [{ id: visitor.id, label: 'Vic Visitor' }, { id: member.id, label: 'Mo Member' }] });
    const [v, m] = cards;
    expect(v).toMatchObject({ stepId: steps[1]!.id, assignedToId: helper, taskType: 'card', status: 'Open', title: 'Vic Visitor', createdById: c.personId });
    expect(new Date(v.dueDate).getTime()).toBeGreaterThan(Date.now() + 2.9 * 86_400_000);
    expect(v.data.history.map((h: { message: string }) => h.message)).toEqual(['Note: Say hi', 'Task created: Bake cookies']);
    expect(m).toMatchObject({ stepId: steps[0]!.id, assignedToId: null });
    await t.drain();
    expect(notices(c.churchId).map((n) => n.personIds)).toEqual([[helper], [helper]]);
    expect(notices(c.churchId).map((n) => n.contentId)).toContain(v.id);

    const board = await get(c, `/doing/tasks/board/${w.id}`);
    expect(board.workflow.id).toBe(w.id);
    expect(board.steps.map((s: Row) => s.name)).toEqual(['Sort', 'Welcome visitor', 'Done']);
    expect(board.cards.map((x: Row) => x.id).sort()).toEqual([v.id, m.id].sort());
    expect(board.routes.map((r: Row) => r.id)).toEqual([route.id]);
    expect((await call(t.app, 'GET', `/doing/tasks/board/${w.id}`, { token: makeChurch().token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/doing/tasks/board/${w.id}`, { token: c.token([]) })).statusCode).toBe(401);
    // the assignee sees it among their cards; the coordinator has none
    expect((await get(c, '/doing/tasks/cards/my', c.tokenOf(helper))).map((x: Row) => x.id)).toEqual([v.id]);
    expect(await get(c, '/doing/tasks/cards/my')).toEqual([]);
    // cards are not among the assignee's tasks (the page lists them apart); the step action's task is
    expect((await get(c, '/doing/tasks', c.tokenOf(helper))).map((x: Row) => [x.title, x.associatedWithId])).toEqual([['Bake cookies', visitor.id]]);
  });

  it("a step's email and group actions hand the person to messaging and membership in the card's transaction, and say so in its history", async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c, [{ name: 'Welcome' }]);
    const [template, newcomers, visitors] = [randomUUID(), randomUUID(), randomUUID()];
    t.membership.addGroups(c.churchId, newcomers, visitors);
    await post(c, '/doing/workflowStepActions', [
      { stepId: steps[0]!.id, actionType: 'sendEmail', config: { templateId: template, subject: 'Welcome, {{firstName}}' } },
      { stepId: steps[0]!.id, actionType: 'addToGroup', config: { groupId: newcomers, groupLabel: 'Newcomers' } },
      { stepId: steps[0]!.id, actionType: 'removeFromGroup', config: { groupId: visitors, groupLabel: 'Visitors' } },
      { stepId: steps[0]!.id, actionType: 'sendEmail', config: { subject: 'no template chosen' } },
    ]);
    const subject = randomUUID();
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { type: 'person', id: subject, label: 'Sam' } });
    expect(card.data.history.map((h: { message: string }) => h.message)).toEqual([
      'Email queued',
      'Added to group: Newcomers',
      'Removed from group: Visitors',
      'Email skipped: no template, or the card is not about a person',
    ]);
    await t.drain();
    const handed = (name: string) => t.deps.queue.handedOff.filter((j) => j.name === name && (j.data as { churchId: string }).churchId === c.churchId).map((j) => j.data);
    expect(handed('messaging.templateEmail')).toEqual([{ churchId: c.churchId, templateId: template, personId: subject, subject: 'Welcome, {{firstName}}', contentType: 'task', contentId: card.id }]);
    // the outbox hands jobs on in any order
    const changes = handed('membership.groupMembership');
    expect(changes).toHaveLength(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        { churchId: c.churchId, groupId: newcomers, personId: subject, action: 'add' },
        { churchId: c.churchId, groupId: visitors, personId: subject, action: 'remove' },
      ]),
    );
  });

  it("a step's references must be the church's: another church's group or workflow, or a template that is no id, is refused by field", async () => {
    const c = makeChurch();
    const other = makeChurch();
    const { steps } = await workflow(c, [{ name: 'Welcome' }]);
    const theirs = await workflow(other, [{ name: 'Theirs' }]);
    const [mine, foreign] = [randomUUID(), foreignId()];
    t.membership.addGroups(c.churchId, mine);
    const save = (config: Record<string, unknown>, actionType: string) => call(t.app, 'POST', '/doing/workflowStepActions', { token: c.token(), body: [{ stepId: steps[0]!.id, actionType, config }] });
    const refused = [
      [await save({ groupId: foreign, groupLabel: 'Theirs' }, 'addToGroup'), '[0].config.groupId'],
      [await save({ groupId: foreign }, 'removeFromGroup'), '[0].config.groupId'],
      [await save({ workflowId: theirs.workflow.id }, 'addToWorkflow'), '[0].config.workflowId'],
      [await save({ templateId: 'welcome' }, 'sendEmail'), '[0].config.templateId'],
    ] as const;
    for (const [res, param] of refused) {
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param, location: 'body' });
    }
    expect(await get(c, `/doing/workflowStepActions/step/${steps[0]!.id}`)).toEqual([]);
    expect((await save({ groupId: mine, groupLabel: 'Mine' }, 'addToGroup')).statusCode).toBe(200);
  });

  it("the people and groups a workflow names are the church's: a step's default assignee, a card's subject (one or many) and a reassignment's assignee", async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c, [{ name: 'Welcome' }]);
    const theirs = foreignId();
    const refused = async (url: string, body: unknown, param: string) => {
      const res = await call(t.app, 'POST', url, { token: c.token(), body });
      expect([url, res.statusCode, res.json()]).toEqual([url, 400, { errors: [{ msg: expect.stringContaining('is not a record of this church'), param, location: 'body' }] }]);
    };
    await refused('/doing/workflowSteps', [{ workflowId: w.id, name: 'Call', defaultAssignToType: 'person', defaultAssignToId: theirs }], '[0].defaultAssignToId');
    await refused('/doing/workflowSteps', [{ workflowId: w.id, name: 'Call', defaultAssignToType: 'group', defaultAssignToId: theirs }], '[0].defaultAssignToId');
    await refused('/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { type: 'person', id: theirs, label: 'Theirs' } }, 'associatedWith.id');
    await refused('/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { id: theirs, label: 'Theirs' } }, 'associatedWith.id');
    await refused('/doing/tasks/bulkAddToWorkflow', { workflowId: w.id, people: [{ id: randomUUID(), label: 'Ours' }, { id: theirs, label: 'Theirs' }] }, 'people[1].id');
    expect(await get(c, `/doing/tasks/board/${w.id}`)).toMatchObject({ steps: [{ id: steps[0]!.id }], cards: [] });
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { type: 'person', id: randomUUID(), label: 'Sam' } });
    await refused(`/doing/tasks/${card.id}/reassign`, { assignedToType: 'person', assignedToId: theirs, assignedToLabel: 'Theirs' }, 'assignedToId');
    await refused('/doing/tasks/bulk/reassign', { ids: [card.id], assignedToId: theirs }, 'assignedToId');
    expect((await get(c, `/doing/tasks/${card.id}`)).assignedToId).toBeNull();
  });

  it("a setField action is saved only by a holder of People.Edit, and hands membership the change with who configured it (in the card's transaction, never a call); membership's report joins the history", async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c, [{ name: 'Rename' }]);
    const body = [{ stepId: steps[0]!.id, actionType: 'setField', config: { field: 'lastName', value: 'Smith' } }];
    // a coordinator (Plans.Edit) who may not edit people cannot configure it
    const refused = await call(t.app, 'POST', '/doing/workflowStepActions', { token: c.token(), body });
    expect(refused.statusCode).toBe(401);
    expect(await get(c, `/doing/workflowStepActions/step/${steps[0]!.id}`)).toEqual([]);
    const [adminUser, adminPerson] = [randomUUID(), randomUUID()];
    await post(c, '/doing/workflowStepActions', body, c.tokenOf(adminPerson, ['Plans.Edit', 'People.Edit']));
    const bad = await call(t.app, 'POST', '/doing/workflowStepActions', { token: c.token(['Plans.Edit', 'People.Edit']), body: [{ ...body[0], config: { field: 'lastName', value: { x: 1 } } }] });
    expect(bad.json().errors[0].param).toBe('[0].config.value');
    // saved again by another admin, it acts for them
    const [action] = await get(c, `/doing/workflowStepActions/step/${steps[0]!.id}`);
    await post(c, '/doing/workflowStepActions', [{ ...body[0], id: action.id }], c.token(['Plans.Edit', 'People.Edit'], { userId: adminUser, personId: adminPerson }));

    const subject = randomUUID();
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { type: 'person', id: subject, label: 'Sam' } });
    expect(card.data.history.map((h: { message: string }) => h.message)).toEqual(['Field change requested: lastName']);
    expect(t.membership.updates.filter((u) => u.personId === subject)).toEqual([]);
    await t.drain();
    const handed = t.deps.queue.handedOff.filter((j) => j.name === 'membership.personFieldChange' && (j.data as { churchId: string }).churchId === c.churchId).map((j) => j.data);
    expect(handed).toEqual([{ churchId: c.churchId, personId: subject, field: 'lastName', value: 'Smith', configuredBy: { userId: adminUser, personId: adminPerson }, cardId: card.id }]);

    // membership reports back: the note joins this church's card, never another church's
    await t.deps.queue.enqueue(cardNote, { churchId: c.churchId, cardId: card.id, note: 'Field set: lastName' });
    await t.deps.queue.enqueue(cardNote, { churchId: makeChurch().churchId, cardId: card.id, note: 'Not yours' });
    await t.drain();
    expect((await get(c, `/doing/tasks/${card.id}`)).data.history.map((h: { message: string }) => h.message)).toEqual(['Field change requested: lastName', 'Field set: lastName']);
  });

  it('complete follows the chosen outcome (a step, another workflow) or closes; the assignee may act on their card, no one else', async () => {
    const c = makeChurch();
    const helper = randomUUID();
    const { workflow: w, steps } = await workflow(c, [{ name: 'A', defaultAssignToType: 'person', defaultAssignToId: helper }, { name: 'B' }]);
    const next = await workflow(c, [{ name: 'Next A' }]);
    const [toB] = await post(c, '/doing/workflowStepRoutes', [{ stepId: steps[0]!.id, trigger: 'onComplete', kind: 'outcome', label: 'Go', targetStepId: steps[1]!.id }]);
    const [handOff] = await post(c, '/doing/workflowStepRoutes', [{ stepId: steps[1]!.id, trigger: 'onComplete', kind: 'outcome', label: 'Hand off', targetWorkflowId: next.workflow.id }]);
    const subject = randomUUID();
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { type: 'person', id: subject, label: 'Sam' } });

    const stranger = c.tokenOf(randomUUID());
    expect((await call(t.app, 'POST', `/doing/tasks/${card.id}/snooze`, { token: stranger, body: { days: 2 } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/doing/tasks/${card.id}/snooze`, { token: makeChurch().token(), body: { days: 2 } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/doing/tasks/${card.id}/snooze`, { token: c.tokenOf(helper), body: { days: 'x' } })).json().errors[0].param).toBe('days');
    const snoozed = await post(c, `/doing/tasks/${card.id}/snooze`, { days: 2 }, c.tokenOf(helper));
    expect(new Date(snoozed.snoozedUntil).getTime()).toBeGreaterThan(Date.now() + 86_400_000);
    expect((await post(c, `/doing/tasks/${card.id}/pin`, { pinned: true }, c.tokenOf(helper))).pinnedAssignment).toBe(true);

    expect((await call(t.app, 'POST', `/doing/tasks/${card.id}/complete`, { token: c.token(), body: { routeId: handOff.id } })).json().errors[0].param).toBe('routeId');
    const moved = await post(c, `/doing/tasks/${card.id}/complete`, { routeId: toB.id }, c.tokenOf(helper));
    expect(moved).toMatchObject({ stepId: steps[1]!.id, status: 'Open', snoozedUntil: null, assignedToId: helper });
    const back = await post(c, `/doing/tasks/${card.id}/sendBack`, {});
    expect(back.stepId).toBe(steps[0]!.id);
    await post(c, `/doing/tasks/${card.id}/moveStep`, { stepId: steps[1]!.id });
    expect((await call(t.app, 'POST', `/doing/tasks/${card.id}/moveStep`, { token: c.token(), body: { stepId: next.steps[0]!.id } })).json().errors[0].param).toBe('stepId');
    const closed = await post(c, `/doing/tasks/${card.id}/complete`, { routeId: handOff.id });
    expect(closed.status).toBe('Closed');
    const [started] = (await get(c, `/doing/tasks/board/${next.workflow.id}`)).cards;
    expect(started).toMatchObject({ associatedWithId: subject, stepId: next.steps[0]!.id, associatedWithLabel: 'Sam' });
    expect((await post(c, `/doing/tasks/${started.id}/complete`, {})).status).toBe('Closed');
  });

  it('bulk operations change the cards the caller may edit and name the ones skipped; reassign notifies the new assignee', async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c, [{ name: 'A' }, { name: 'B' }]);
    const cards = await post(c, '/doing/tasks/bulkAddToWorkflow', { workflowId: w.id, people: [{ id: randomUUID() }, { id: randomUUID() }] });
    const ids = cards.map((x: Row) => x.id);
    const foreign = (await post(makeChurch(), '/doing/workflows/fromTemplate', { templateKey: 'newVisitor' })).id as string;
    const moved = await post(c, '/doing/tasks/bulk/moveStep', { ids: [...ids, foreign], stepId: steps[1]!.id });
    expect(moved).toEqual({ updated: ids, skipped: [foreign] });
    const helper = randomUUID();
    expect(await post(c, '/doing/tasks/bulk/reassign', { ids, assignedToType: 'person', assignedToId: helper, assignedToLabel: 'Helper' })).toEqual({ updated: ids, skipped: [] });
    await t.drain();
    expect(notices(c.churchId).map((n) => n.contentId).sort()).toEqual([...ids].sort());
    // each card write is reported to the audit log, in its transaction
    const logged = t.deps.queue.handedOff
      .filter((j) => j.name === 'membership.changes')
      .flatMap((j) => (j.data as { records: Array<{ churchId: string; entityType: string; entityId: string; action: string; changes?: Record<string, unknown> }> }).records)
      .filter((r) => r.churchId === c.churchId && r.entityType === 'task' && r.entityId === ids[0]);
    expect(logged.map((r) => r.action)).toEqual(['created', 'updated', 'updated']);
    expect(Object.keys(logged[2]!.changes ?? {})).toEqual(expect.arrayContaining(['assignedToId', 'assignedToLabel']));
    // the assignee may snooze and complete their own; a member with no card of theirs changes nothing
    expect(await post(c, '/doing/tasks/bulk/snooze', { ids, days: 1 }, c.tokenOf(randomUUID()))).toEqual({ updated: [], skipped: ids });
    expect(await post(c, '/doing/tasks/bulk/complete', { ids }, c.tokenOf(helper))).toEqual({ updated: ids, skipped: [] });
    const report = await get(c, `/doing/workflows/${w.id}/report`);
    expect(report.stepCounts).toEqual([]);
    expect(report.throughput).toEqual([{ day: new Date().toISOString().slice(0, 10), count: 2 }]);
    expect((await call(t.app, 'POST', '/doing/tasks/bulk/complete', { token: c.token(), body: { ids: ['x'] } })).json().errors[0].param).toBe('ids[0]');
  });

  it('a step\'s delay parks the card; once the delay ends the wake job runs the rest of the step, once', async () => {
    const c = makeChurch();
    const helper = randomUUID();
    const { workflow: w, steps } = await workflow(c, [{ name: 'Drip', defaultAssignToType: 'person', defaultAssignToId: helper }, { name: 'After' }]);
    await post(c, '/doing/workflowStepActions', [
      { stepId: steps[0]!.id, actionType: 'delay', config: { days: 3 } },
      { stepId: steps[0]!.id, actionType: 'addNote', config: { note: 'three days on' } },
    ]);
    await post(c, '/doing/workflowStepRoutes', [{ stepId: steps[0]!.id, trigger: 'onEnter', kind: 'always', targetStepId: steps[1]!.id }]);
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { id: randomUUID(), label: 'Dee' } });
    expect(card).toMatchObject({ stepId: steps[0]!.id, data: { history: [expect.objectContaining({ message: 'Waiting 3 day(s)' })], actionCursor: { index: 1 } } });
    expect(await wakeCards(t.app.deps, job())).toBe(0);
    const later = new Date(Date.now() + 3.5 * 86_400_000);
    expect(await wakeCards(t.app.deps, job(), later)).toBe(1);
    expect(await wakeCards(t.app.deps, job(), later)).toBe(0);
    const woken = await get(c, `/doing/tasks/${card.id}`);
    expect(woken).toMatchObject({ stepId: steps[1]!.id, snoozedUntil: null });
    expect(woken.data.history.map((h: { message: string }) => h.message)).toEqual(['Waiting 3 day(s)', 'Note: three days on']);
    expect(woken.data.actionCursor).toBeUndefined();
    // a card snoozed by hand comes back to its assignee with a notice
    await post(c, `/doing/tasks/${card.id}/reassign`, { assignedToType: 'person', assignedToId: helper });
    await post(c, `/doing/tasks/${card.id}/snooze`, { days: 1 });
    expect(await wakeCards(t.app.deps, job(), new Date(Date.now() + 2 * DAY_MS))).toBe(1);
    await t.drain();
    expect(t.deps.queue.handedOff.some((j) => j.name === 'messaging.notifyPeople' && (j.data as { message: string; personIds: string[] }).message === 'Snooze ended: Dee')).toBe(true);
  });
});
