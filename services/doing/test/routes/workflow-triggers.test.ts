import { randomUUID } from 'node:crypto';
import { call, signedCall } from '@church/common/testing';
import { doingInternal, workflowEvents, type ChangeRecord } from '@church/common';
import { runWorkflowEvents } from '../../src/domain/workflow-triggers';
import { checkAutomations } from '../../src/jobs/contracts';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing();
/** The job's run the domain functions act under when a test calls them as the worker does. */
const job = () => ({ id: 'test-job', log: t.app.log });
type Church = ReturnType<typeof makeChurch>;
type Row = Record<string, unknown> & { id: string };

const post = async (c: Church, url: string, body: unknown, token = c.token()) => {
  const res = await call(t.app, 'POST', url, { token, body });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const get = async (c: Church, url: string) => (await call(t.app, 'GET', url, { token: c.token() })).json();
async function workflow(c: Church, steps = ['First', 'Second']) {
  const [w] = await post(c, '/doing/workflows', [{ name: 'Welcome' }]);
  const made: Row[] = [];
  for (const name of steps) made.push((await post(c, '/doing/workflowSteps', [{ workflowId: w.id, name }]))[0]);
  return { workflow: w as Row, steps: made };
}
const filter = (...children: Array<{ field: string; operator: string; value: string }>) => JSON.stringify({ type: 'group', conjunction: 'AND', children: children.map((x) => ({ type: 'condition', ...x })) });
const record = (c: Church, event: string, entityId: string, data: Record<string, unknown>, at = '2031-05-01T10:00:00.000Z'): ChangeRecord => ({
  churchId: c.churchId,
  module: 'membership',
  entityType: event.split('.')[0]!,
  entityId,
  action: 'created',
  event,
  at,
  data,
});
const cardsOf = async (c: Church, workflowId: string) => (await get(c, `/doing/tasks/board/${workflowId}`)).cards as Row[];

describe('/doing/workflowTriggers', () => {
  it('saves event and schedule rules (a schedule rule gets its root conjunction), refuses unknown events, bad filters and foreign steps', async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c);
    const [event] = await post(c, '/doing/workflowTriggers', [{ name: 'New people', triggerKind: 'event', eventType: 'person.created', recurs: null, workflowId: w.id, stepId: steps[1]!.id, conditions: filter({ field: 'person.membershipStatus', operator: '=', value: 'Visitor' }), oncePerSubject: true, active: true }]);
    expect(event).toMatchObject({ triggerKind: 'event', eventType: 'person.created', stepId: steps[1]!.id, recurs: null, active: true });
    const [schedule] = await post(c, '/doing/workflowTriggers', [{ name: 'Yearly', triggerKind: 'schedule', eventType: null, recurs: 'yearly', workflowId: w.id, stepId: '', conditions: null }]);
    expect((await get(c, `/doing/conjunctions/trigger/${schedule.id}`))).toEqual([expect.objectContaining({ triggerId: schedule.id, parentId: null })]);
    expect((await get(c, `/doing/workflowTriggers/workflow/${w.id}`)).map((x: Row) => x.name)).toEqual(['New people', 'Yearly']);
    expect((await get(c, '/doing/workflowTriggers/fields')).map((e: Row) => e.eventType)).toContain('donation.created');

    const bad = async (body: Record<string, unknown>) => (await call(t.app, 'POST', '/doing/workflowTriggers', { token: c.token(), body: [{ name: 'X', workflowId: w.id, ...body }] })).json().errors[0].param;
    expect(await bad({ eventType: 'planet.exploded' })).toBe('[0].eventType');
    expect(await bad({ eventType: 'person.created', conditions: '{not json' })).toBe('[0].conditions');
    const other = await workflow(c, ['Elsewhere']);
    expect(await bad({ eventType: 'person.created', stepId: other.steps[0]!.id })).toBe('[0].stepId');
    const foreign = makeChurch();
    expect((await call(t.app, 'POST', '/doing/workflowTriggers', { token: foreign.token(), body: [{ name: 'X', eventType: 'person.created', workflowId: w.id }] })).json().errors[0].param).toBe('[0].workflowId');
    expect((await call(t.app, 'POST', `/doing/workflowTriggers/${event.id}/pauseAll`, { token: foreign.token(), body: [] })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/doing/workflowTriggers/${event.id}/pauseAll`, { token: c.token([]), body: [] })).statusCode).toBe(401);

    expect((await call(t.app, 'DELETE', `/doing/workflowTriggers/${schedule.id}`, { token: c.token() })).statusCode).toBe(200);
    expect(await get(c, `/doing/conjunctions/trigger/${schedule.id}`)).toEqual([]);
  });

  it('an event starts one card per matching event, however often the records are handled, with facts from membership', async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c);
    const visitor = person({ membershipStatus: 'Visitor', displayName: 'Val Visitor' });
    const member = person({ membershipStatus: 'Member' });
    t.membership.addPeople(c.churchId, [visitor, member]);
    const groupId = randomUUID();
    const [trigger] = await post(c, '/doing/workflowTriggers', [{ name: 'Joined', triggerKind: 'event', eventType: 'group.member.added', workflowId: w.id, stepId: steps[1]!.id, oncePerSubject: false, conditions: filter({ field: 'group.id', operator: '=', value: groupId }, { field: 'person.membershipStatus', operator: 'in', value: 'Visitor,Regular Attendee' }) }]);
    const records = [
      record(c, 'group.member.added', randomUUID(), { groupId, personId: visitor.id }),
      record(c, 'group.member.added', randomUUID(), { groupId, personId: member.id }), // not a visitor
      record(c, 'group.member.added', randomUUID(), { groupId: randomUUID(), personId: visitor.id }), // another group
      record(makeChurch(), 'group.member.added', randomUUID(), { groupId, personId: visitor.id }), // another church
    ];
    expect(await runWorkflowEvents(t.app.deps, records, job())).toEqual({ started: 1 });
    expect(await runWorkflowEvents(t.app.deps, records, job())).toEqual({ started: 0 });
    // and through the job itself, enqueued twice (membership's retried delivery)
    await t.app.deps.queue.enqueue(workflowEvents, { records }, { jobId: 'a' });
    await t.app.deps.queue.enqueue(workflowEvents, { records }, { jobId: 'b' });
    await t.drain();
    const cards = await cardsOf(c, w.id);
    expect(cards).toEqual([expect.objectContaining({ associatedWithId: visitor.id, associatedWithLabel: 'Val Visitor', stepId: steps[1]!.id, triggerId: trigger.id, createdByLabel: 'Trigger' })]);
    const executions = await get(c, `/doing/workflowTriggers/executions/workflow/${w.id}`);
    expect(executions).toEqual([expect.objectContaining({ triggerId: trigger.id, status: 'success', subjectId: visitor.id, attemptCount: 1, taskId: cards[0]!.id })]);

    // the same person joining again is another event: a second card (oncePerSubject off)
    await runWorkflowEvents(t.app.deps, [record(c, 'group.member.added', randomUUID(), { groupId, personId: visitor.id }, '2031-06-01T00:00:00.000Z')], job());
    expect(await cardsOf(c, w.id)).toHaveLength(2);

    // paused: nothing starts; membership away: the job fails before writing anything
    await post(c, `/doing/workflowTriggers/${trigger.id}/pauseAll`, []);
    expect(await runWorkflowEvents(t.app.deps, [record(c, 'group.member.added', randomUUID(), { groupId, personId: visitor.id }, '2031-07-01T00:00:00.000Z')], job())).toEqual({ started: 0 });
    await post(c, `/doing/workflowTriggers/${trigger.id}/resumeAll`, []);
    t.membership.setDown(true);
    try {
      await expect(runWorkflowEvents(t.app.deps, [record(c, 'group.member.added', randomUUID(), { groupId, personId: visitor.id }, '2031-08-01T00:00:00.000Z')], job())).rejects.toThrow();
    } finally {
      t.membership.setDown(false);
    }
    expect(await get(c, `/doing/workflowTriggers/executions/workflow/${w.id}`)).toHaveLength(2);
  });

  it('oncePerSubject skips a person who already has a card; a workflow without steps fails the execution, and retry starts it once steps exist', async () => {
    const c = makeChurch();
    const p = person({ membershipStatus: 'Visitor' });
    t.membership.addPeople(c.churchId, [p]);
    const [empty] = await post(c, '/doing/workflows', [{ name: 'Empty' }]);
    const [trigger] = await post(c, '/doing/workflowTriggers', [{ name: 'New', eventType: 'person.created', workflowId: empty.id }]);
    await runWorkflowEvents(t.app.deps, [record(c, 'person.created', p.id, { displayName: 'Pat', membershipStatus: 'Visitor' })], job());
    const [failed] = await get(c, `/doing/workflowTriggers/executions/workflow/${empty.id}`);
    expect(failed).toMatchObject({ status: 'failed', lastError: 'the workflow has no steps', taskId: null });
    expect((await call(t.app, 'POST', `/doing/workflowTriggers/executions/${failed.id}/pause`, { token: c.token(), body: [] })).statusCode).toBe(400);
    await post(c, '/doing/workflowSteps', [{ workflowId: empty.id, name: 'Now one' }]);
    const retried = await post(c, `/doing/workflowTriggers/executions/${failed.id}/retry`, []);
    expect(retried).toMatchObject({ status: 'success', attemptCount: 2 });
    expect((await call(t.app, 'POST', `/doing/workflowTriggers/executions/${failed.id}/retry`, { token: c.token(), body: [] })).statusCode).toBe(400);
    // once per subject: an update of the same person starts nothing more
    await post(c, '/doing/workflowTriggers', [{ id: trigger.id, name: 'New', eventType: 'person.updated', workflowId: empty.id }]);
    expect(await runWorkflowEvents(t.app.deps, [record(c, 'person.updated', p.id, { membershipStatus: 'Visitor' }, '2031-09-01T00:00:00.000Z')], job())).toEqual({ started: 0 });
    expect(await cardsOf(c, empty.id)).toHaveLength(1);
  });

  it('runNow: a schedule rule selects people by its condition tree once per period; an event rule without a current set is a 400', async () => {
    const c = makeChurch();
    const { workflow: w } = await workflow(c);
    const a = person({ gender: 'Female' });
    const b = person({ gender: 'Male' });
    t.membership.addPeople(c.churchId, [a, b]);
    const [rule] = await post(c, '/doing/workflowTriggers', [{ name: 'Women', triggerKind: 'schedule', recurs: 'monthly', workflowId: w.id }]);
    const [root] = await get(c, `/doing/conjunctions/trigger/${rule.id}`);
    const [cond] = await post(c, '/doing/conditions', [{ conjunctionId: root.id, field: 'gender', value: 'female' }]);
    expect(cond.triggerId).toBe(rule.id);
    expect((await get(c, `/doing/conditions/trigger/${rule.id}`)).map((x: Row) => x.id)).toEqual([cond.id]);
    expect(await post(c, `/doing/workflowTriggers/${rule.id}/runNow`, [])).toEqual({ created: 1, skipped: 0 });
    expect(await post(c, `/doing/workflowTriggers/${rule.id}/runNow`, [])).toEqual({ created: 0, skipped: 1 });
    expect((await cardsOf(c, w.id)).map((x) => x.associatedWithId)).toEqual([a.id]);
    // the daily check runs schedule rules too: a woman added since gets her card, the first none again this month
    const later = person({ gender: 'female' });
    t.membership.addPeople(c.churchId, [later]);
    await t.app.deps.queue.enqueue(checkAutomations, { churchId: c.churchId }, { jobId: `check-${c.churchId}` });
    await t.drain();
    expect((await cardsOf(c, w.id)).map((x) => x.associatedWithId).sort()).toEqual([a.id, later.id].sort());

    const [donations] = await post(c, '/doing/workflowTriggers', [{ name: 'Gifts', eventType: 'donation.created', workflowId: w.id }]);
    const res = await call(t.app, 'POST', `/doing/workflowTriggers/${donations.id}/runNow`, { token: c.token(), body: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('eventType');
    expect((await call(t.app, 'POST', `/doing/workflowTriggers/${rule.id}/runNow`, { token: makeChurch().token(), body: [] })).statusCode).toBe(404);
  });
});

describe('a trigger on check-ins', () => {
  it("filters on the groups of the visit's sessions, a check-in's as well as a visit logged into one session", async () => {
    const c = makeChurch();
    const { workflow: w, steps } = await workflow(c);
    const kid = person({ membershipStatus: 'Visitor' });
    const adult = person({ membershipStatus: 'Visitor' });
    t.membership.addPeople(c.churchId, [kid, adult]);
    const [nursery, choir] = [randomUUID(), randomUUID()];
    await post(c, '/doing/workflowTriggers', [{ name: 'Nursery', triggerKind: 'event', eventType: 'attendance.recorded', workflowId: w.id, stepId: steps[0]!.id, conditions: filter({ field: 'group.id', operator: '=', value: nursery }) }]);
    const session = (groupId: string) => ({ id: randomUUID(), visitId: randomUUID(), sessionId: randomUUID(), session: { id: randomUUID(), groupId, serviceTimeId: randomUUID(), sessionDate: '2031-05-04T00:00:00.000Z' } });
    const visit = (personId: string, groups: string[]) => record(c, 'attendance.recorded', randomUUID(), { personId, visitSessions: groups.map(session) });
    // the kid in the choir and the nursery (one card, the trigger's execution is one per event), the adult in the choir only
    expect(await runWorkflowEvents(t.app.deps, [visit(kid.id, [choir, nursery]), visit(adult.id, [choir])], job())).toEqual({ started: 1 });
    expect((await cardsOf(c, w.id)).map((card) => card.associatedWithId)).toEqual([kid.id]);
  });
});

describe('POST /doing/internal/triggers/events', () => {
  it("answers the events of the church's active event triggers, each once: what membership adds to what the church listens for", async () => {
    const c = makeChurch();
    const { workflow: w } = await workflow(c);
    const save = (name: string, eventType: string | null, active = true) =>
      post(c, '/doing/workflowTriggers', [{ name, triggerKind: eventType ? 'event' : 'schedule', eventType, recurs: eventType ? null : 'yearly', workflowId: w.id, conditions: null, active }]);
    await save('Kids checked in', 'attendance.recorded');
    await save('Kids checked in again', 'attendance.recorded');
    const [paused] = await save('Givers', 'donation.created');
    await save('Birthdays', null);
    await save('Off', 'person.created', false);
    const ask = (churchId: string) => signedCall(t.app, doingInternal.triggerEvents.path, { churchId });
    expect((await ask(c.churchId)).json()).toEqual({ events: expect.arrayContaining(['attendance.recorded', 'donation.created']) });
    expect((await ask(c.churchId)).json().events).toHaveLength(2);
    // a paused trigger hears nothing
    await post(c, `/doing/workflowTriggers/${paused.id}/pauseAll`, {});
    expect((await ask(c.churchId)).json()).toEqual({ events: ['attendance.recorded'] });
    expect((await ask(makeChurch().churchId)).json()).toEqual({ events: [] });
    expect((await call(t.app, 'POST', doingInternal.triggerEvents.path, { token: c.token('all'), body: { churchId: c.churchId } })).statusCode).toBe(401);
  });
});
