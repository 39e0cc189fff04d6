import { randomUUID } from 'node:crypto';
import { call, signedCall } from '@church/common/testing';
import { makeChurch, useDoing } from '../setup';

const t = useDoing();
type Church = ReturnType<typeof makeChurch>;

/** A call signed as another module's internal client signs it. */
const signed = (url: string, body: unknown, secret?: string) => signedCall(t.app, url, body, secret);
const post = async (c: Church, url: string, body: unknown) => {
  const res = await call(t.app, 'POST', url, { token: c.token(), body });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

describe('doing internal routes (messaging reminders)', () => {
  it('plan types with their plans in a range, a plan\'s people who have not declined, one task with its due date; another church\'s is null', async () => {
    const c = makeChurch();
    const [type] = await post(c, '/doing/planTypes', [{ name: 'Sunday' }]);
    const [march, april] = await post(c, '/doing/plans', [
      { name: 'March', serviceDate: '2030-03-10', planTypeId: type.id },
      { name: 'April', serviceDate: '2030-04-14', planTypeId: type.id },
    ]);
    const path = '/doing/internal/planTypes/plans';
    const body = { churchId: c.churchId, planTypeId: type.id, from: '2030-03-01', to: '2030-03-31' };
    expect((await t.app.inject({ method: 'POST', url: path, payload: body })).statusCode).toBe(401);
    expect((await signed(path, body, 'another-secret-another-secret-another')).statusCode).toBe(401);
    expect((await call(t.app, 'POST', path, { token: c.token('all'), body })).statusCode).toBe(401);
    expect((await signed(path, body)).json()).toEqual({ planType: { id: type.id, name: 'Sunday' }, plans: [{ id: march.id, name: 'March', serviceDate: '2030-03-10', planTypeId: type.id }] });
    expect((await signed(path, { ...body, churchId: makeChurch().churchId })).json()).toEqual({ planType: null, plans: [] });
    expect((await signed(path, { ...body, from: 'soon' })).json().errors[0].param).toBe('from');

    const [position] = await post(c, '/doing/positions', [{ planId: april.id, name: 'Drums', count: 3 }]);
    const [yes, no] = [randomUUID(), randomUUID()];
    const [, declined] = await post(c, '/doing/assignments', [{ positionId: position.id, personId: yes }, { positionId: position.id, personId: no }]);
    expect((await call(t.app, 'POST', `/doing/assignments/${declined.id}/decline`, { token: c.tokenOf(no), body: {} })).statusCode).toBe(200);
    expect((await signed('/doing/internal/plans/people', { churchId: c.churchId, planId: april.id })).json()).toEqual({ plan: { id: april.id, name: 'April', serviceDate: '2030-04-14', planTypeId: type.id }, personIds: [yes] });
    expect((await signed('/doing/internal/plans/people', { churchId: makeChurch().churchId, planId: april.id })).json()).toEqual({ plan: null, personIds: [] });

    const [w] = await post(c, '/doing/workflows', [{ name: 'W' }]);
    await post(c, '/doing/workflowSteps', [{ workflowId: w.id, name: 'Call', expectedResponseDays: 2, defaultAssignToType: 'person', defaultAssignToId: yes }]);
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { id: randomUUID(), label: 'Sam' } });
    const one = (await signed('/doing/internal/tasks/one', { churchId: c.churchId, taskId: card.id })).json();
    expect(one).toEqual({ task: { id: card.id, title: 'Sam', status: 'Open', dueDate: card.dueDate, assignedToType: 'person', assignedToId: yes } });
    expect((await signed('/doing/internal/tasks/one', { churchId: makeChurch().churchId, taskId: card.id })).json()).toEqual({ task: null });
  });
});

describe('doing GDPR contracts', () => {
  it('export lists the person\'s serving, tasks and cards; anonymize clears the names and requested changes they carry, once', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const subject = randomUUID();
    await post(c, '/doing/blockoutDates', [{ personId: subject, startDate: '2030-01-01', endDate: '2030-01-02' }]);
    const [task] = await post(c, '/doing/tasks', [{ title: 'Call Pat', assignedToType: 'person', assignedToId: subject, assignedToLabel: 'Pat Doe' }]);
    const [w] = await post(c, '/doing/workflows', [{ name: 'W' }]);
    await post(c, '/doing/workflowSteps', [{ workflowId: w.id, name: 'Call' }]);
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { id: subject, label: 'Pat Doe' } });
    await post(other, '/doing/tasks', [{ title: 'Elsewhere', assignedToType: 'person', assignedToId: subject, assignedToLabel: 'Pat Doe' }]);

    const exported = (await signed('/doing/internal/gdpr/export', { churchId: c.churchId, personId: subject })).json();
    expect(exported.data.blockoutDates).toHaveLength(1);
    expect(exported.data.tasks.map((x: { id: string }) => x.id).sort()).toEqual([task.id, card.id].sort());
    expect((await t.app.inject({ method: 'POST', url: '/doing/internal/gdpr/export', payload: { churchId: c.churchId, personId: subject } })).statusCode).toBe(401);

    expect((await signed('/doing/internal/gdpr/anonymize', { churchId: c.churchId, personId: subject })).json()).toEqual({ changed: { tasks: 2, workflowExecutions: 0 } });
    expect((await signed('/doing/internal/gdpr/anonymize', { churchId: c.churchId, personId: subject })).json()).toEqual({ changed: { tasks: 0, workflowExecutions: 0 } });
    const after = (await signed('/doing/internal/gdpr/export', { churchId: c.churchId, personId: subject })).json().data.tasks as Array<Record<string, unknown>>;
    expect(after.find((x) => x.id === task.id)).toMatchObject({ assignedToLabel: null, title: 'Call Pat', taskNumber: task.taskNumber, status: 'Open' });
    expect(after.find((x) => x.id === card.id)).toMatchObject({ associatedWithLabel: null, title: null, workflowId: w.id });
    // another church's records are untouched
    expect((await signed('/doing/internal/gdpr/export', { churchId: other.churchId, personId: subject })).json().data.tasks[0].assignedToLabel).toBe('Pat Doe');
  });
});
