import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { assignments, plans } from '../../src/db/schema';
import { utcDay } from '@church/common';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing();
type Church = ReturnType<typeof makeChurch>;

async function post<T = Record<string, unknown>>(c: Church, path: string, body: unknown, token = c.token()): Promise<T> {
  const res = await call(t.app, 'POST', path, { token, body });
  expect(res.statusCode).toBe(200);
  const json = res.json();
  return (Array.isArray(json) ? json[0] : json) as T;
}
type Row = { id: string; planId: string };
const plan = (c: Church, body: Record<string, unknown>) => post<Row & { serviceDate: string }>(c, '/doing/plans', { name: 'Sunday', ...body });
const position = (c: Church, planId: string, body: Record<string, unknown> = {}) => post<Row>(c, '/doing/positions', { planId, name: 'Drums', categoryName: 'Band', count: 2, ...body });
/** An assignment made by the coordinator; a status other than Unconfirmed is the person's answer, given as they would. */
async function assign(c: Church, positionId: string, personId: string, status?: 'Accepted' | 'Declined') {
  const row = await post<Row>(c, '/doing/assignments', { positionId, personId });
  if (status) await post(c, `/doing/assignments/${status === 'Accepted' ? 'accept' : 'decline'}/${row.id}`, {}, c.tokenOf(personId));
  return row;
}

describe('GET /doing/plans/overview (the serving matrix)', () => {
  it('is a literal route, never read as a plan id: every position of every plan in the range, once per person serving or once open', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const groupId = randomUUID();
    t.membership.addGroups(c.churchId, groupId);
    const [a, b] = [randomUUID(), randomUUID()];
    const early = await plan(c, { serviceDate: '2030-03-03', ministryId });
    const late = await plan(c, { serviceDate: '2030-03-10', ministryId, name: 'Evening' });
    const elsewhere = await plan(c, { serviceDate: '2030-03-10', ministryId: randomUUID() });
    await plan(c, { serviceDate: '2030-04-10', ministryId });
    const drums = await position(c, early.id, { groupId });
    const keys = await position(c, late.id, { name: 'Keys', categoryName: null, count: 1 });
    await position(c, elsewhere.id);
    const first = await assign(c, drums.id, a);
    await assign(c, drums.id, b, 'Declined');

    const res = await call(t.app, 'GET', `/doing/plans/overview?startDate=2030-03-01&endDate=2030-03-31&ministryId=${ministryId}`, { token: c.token() });
    expect(res.statusCode).toBe(200);
    // ordered as the matrix lists it: team (none first), position, day; the declined volunteer frees the slot
    expect(res.json()).toEqual([
      { serviceDate: '2030-03-10', ministryId, planId: late.id, planName: 'Evening', positionId: keys.id, categoryName: null, positionName: 'Keys', groupId: null, needed: 1, assignmentId: null, personId: null, status: null },
      { serviceDate: '2030-03-03', ministryId, planId: early.id, planName: 'Sunday', positionId: drums.id, categoryName: 'Band', positionName: 'Drums', groupId, needed: 2, assignmentId: first.id, personId: a, status: 'Unconfirmed' },
    ]);
    const all = await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-03-01&endDate=2030-03-31', { token: c.token() });
    expect(all.json()).toHaveLength(3);
    expect((await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-03-01&endDate=2030-03-31', { token: makeChurch().token() })).json()).toEqual([]);
  });

  it('needs both dates, in order, at most a year apart, naming the field', async () => {
    const token = makeChurch().token();
    const missing = await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-03-01', { token });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ param: 'endDate', location: 'query' });
    const reversed = await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-03-01&endDate=2030-02-01', { token });
    expect(reversed.json().errors[0]).toEqual({ msg: 'must not be before startDate', param: 'endDate', location: 'query' });
    expect((await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-01-01&endDate=2031-06-01', { token })).statusCode).toBe(400);
    expect((await call(t.app, 'GET', '/doing/plans/overview?startDate=2030-01-01&endDate=2030-12-31', { token })).statusCode).toBe(200);
  });
});

describe('POST /doing/plans/autofill/:id/undo', () => {
  it('takes back the last run\'s unanswered assignments, keeps answered ones and others\' work, and clears the run', async () => {
    const c = makeChurch();
    const p = await plan(c, { serviceDate: '2030-05-05' });
    const pos = await position(c, p.id, { count: 3 });
    const manual = await assign(c, pos.id, randomUUID());
    const people = [randomUUID(), randomUUID(), randomUUID()];
    const run = await post<{ created: number; runId: string; plan: { lastAutofillRunId: string }; assignments: Array<Row & { personId: string }> }>(c, `/doing/plans/autofill/${p.id}`, { teams: [{ positionId: pos.id, personIds: people }] });
    expect(run.created).toBe(2);
    expect(run.plan.lastAutofillRunId).toBe(run.runId);
    expect((await call(t.app, 'GET', `/doing/plans/${p.id}`, { token: c.token() })).json().lastAutofillRunId).toBe(run.runId);
    // the volunteer answered one: it stays
    const answered = run.assignments[0]!;
    expect((await call(t.app, 'POST', `/doing/assignments/accept/${answered.id}`, { token: c.tokenOf(answered.personId), body: {} })).json().status).toBe('Accepted');

    expect((await call(t.app, 'POST', `/doing/plans/autofill/${p.id}/undo`, { token: makeChurch().token(), body: {} })).statusCode).toBe(404);
    const undo = await call(t.app, 'POST', `/doing/plans/autofill/${p.id}/undo`, { token: c.token(), body: {} });
    expect(undo.statusCode).toBe(200);
    expect(undo.json()).toEqual({ removed: 1 });
    const left = await t.app.db.select({ id: assignments.id }).from(assignments).where(eq(assignments.planId, p.id));
    expect(left.map((r) => r.id).sort()).toEqual([manual.id, run.assignments[0]!.id].sort());
    const [stored] = await t.app.db.select().from(plans).where(eq(plans.id, p.id));
    expect(stored!.lastAutofillRunId).toBeNull();
    // nothing left to undo
    expect((await call(t.app, 'POST', `/doing/plans/autofill/${p.id}/undo`, { token: c.token(), body: {} })).json()).toEqual({ removed: 0 });
  });
});

describe('POST /doing/plans/notifyRange ("Email all" of the matrix)', () => {
  it('tells each person serving in the range their own plans through messaging, leaving penciled-in plans out', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    const first = await plan(c, { serviceDate: '2030-03-03', ministryId, name: 'Morning' });
    const second = await plan(c, { serviceDate: '2030-03-10', ministryId, name: 'Morning' });
    const penciled = await plan(c, { serviceDate: '2030-03-17', ministryId, prepared: true });
    for (const p of [first, second, penciled]) {
      const drums = await position(c, p.id);
      await assign(c, drums.id, a);
    }
    const keys = await position(c, first.id, { name: 'Keys' });
    await assign(c, keys.id, a);
    await assign(c, keys.id, b);
    await position(c, second.id, { name: 'Bass' });

    const res = await call(t.app, 'POST', '/doing/plans/notifyRange', { token: c.token(['Plans.Edit']), body: { startDate: '2030-03-01', endDate: '2030-03-31', ministryId, planTypeId: '' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ sent: 2, failed: 0, capped: false });
    await t.drain();
    const sent = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople' && (j.data as { churchId: string }).churchId === c.churchId).map((j) => j.data as Record<string, unknown>);
    expect(sent.find((d) => (d.personIds as string[])[0] === a)).toEqual({
      churchId: c.churchId,
      personIds: [a],
      message: 'Your serving schedule: 2030-03-03 Morning: Drums, Keys; 2030-03-10 Morning: Drums',
      contentType: 'schedule',
      contentId: first.id,
      link: '/mobile/plans',
    });
    expect(sent.find((d) => (d.personIds as string[])[0] === b)!.message).toBe('Your serving schedule: 2030-03-03 Morning: Keys');
    expect(sent).toHaveLength(2);
  });

  it('is for Plans.Edit or the ministry\'s own team; ministryId and the dates are required', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const body = { startDate: '2030-03-01', endDate: '2030-03-31', ministryId };
    const outsider = await call(t.app, 'POST', '/doing/plans/notifyRange', { token: c.token([]), body });
    expect(outsider.statusCode).toBe(401);
    expect(outsider.json().errors[0]).toBe('Missing permission: Plans.Edit or member of the ministry');
    t.membership.addPeople(c.churchId, [person({ id: c.personId, groupIds: [randomUUID()] })]);
    const otherTeam = await call(t.app, 'POST', '/doing/plans/notifyRange', { token: c.token([]), body });
    expect(otherTeam.statusCode).toBe(401);
    expect(otherTeam.json().errors[0]).toBe('Only holders of Plans.Edit and members of the ministry can do this');
    t.membership.addPeople(c.churchId, [person({ id: c.personId, groupIds: [ministryId] })]);
    expect((await call(t.app, 'POST', '/doing/plans/notifyRange', { token: c.token([]), body })).json()).toEqual({ sent: 0, failed: 0, capped: false });
    const bad = await call(t.app, 'POST', '/doing/plans/notifyRange', { token: c.token(['Plans.Edit']), body: { startDate: '2030-03-01', endDate: '2030-03-31' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ msg: 'ministryId is required', param: 'ministryId', location: 'body' }]);
  });
});

describe('plans as B1Admin saves them', () => {
  it('keeps the fields PlanEdit and the lesson screens send (campus, provider lesson, deadline, penciled in) and copies with the new plan\'s own', async () => {
    const c = makeChurch();
    const campusId = randomUUID();
    const saved = await post<Record<string, unknown> & { id: string }>(c, '/doing/plans', [
      {
        id: '',
        name: 'Week 1',
        serviceDate: '2030-03-03T12:00:00.000Z',
        campusId,
        providerId: 'lessonschurch',
        providerPlanId: '/lessons/p/s/l/v1',
        providerPlanName: 'Creation',
        contentType: 'provider',
        contentId: 'v1',
        signupDeadlineHours: '48',
        showVolunteerNames: 0,
        prepared: 1,
        autoReplaceOnDecline: null,
        lastAutofillRunId: randomUUID(),
      },
    ]);
    expect(saved).toMatchObject({
      serviceDate: '2030-03-03',
      campusId,
      providerId: 'lessonschurch',
      providerPlanId: '/lessons/p/s/l/v1',
      providerPlanName: 'Creation',
      signupDeadlineHours: 48,
      showVolunteerNames: false,
      prepared: true,
      autoReplaceOnDecline: false,
      // the server's own: a client cannot set it
      lastAutofillRunId: null,
    });
    // BulkLessonSchedule copies last week's plan with this week's lesson: the body is the new plan's
    const copy = await post<Record<string, unknown>>(c, `/doing/plans/copy/${saved.id}`, {
      name: 'Week 2',
      serviceDate: '2030-03-10T12:00:00.000Z',
      providerPlanId: '/lessons/p/s/l/v2',
      providerPlanName: 'The Flood',
      contentId: 'v2',
      campusId: null,
      copyMode: 'positions',
    });
    expect(copy).toMatchObject({ name: 'Week 2', serviceDate: '2030-03-10', providerId: 'lessonschurch', providerPlanId: '/lessons/p/s/l/v2', providerPlanName: 'The Flood', contentId: 'v2', campusId: null, prepared: true, signupDeadlineHours: 48 });
    const foreignType = await call(t.app, 'POST', `/doing/plans/copy/${saved.id}`, { token: c.token(), body: { serviceDate: '2030-03-17', planTypeId: randomUUID() } });
    expect(foreignType.statusCode).toBe(400);
    expect(foreignType.json().errors[0].param).toBe('planTypeId');
  });

  it('hides a penciled-in plan\'s assignments from the volunteer until it is published', async () => {
    const c = makeChurch();
    const p = await plan(c, { serviceDate: '2030-03-03', prepared: true });
    const pos = await position(c, p.id);
    await assign(c, pos.id, c.personId);
    expect((await call(t.app, 'GET', '/doing/assignments/my', { token: c.token() })).json()).toEqual([]);
    // PlanValidation's publish: the whole plan posted back with prepared false
    const stored = (await call(t.app, 'GET', `/doing/plans/${p.id}`, { token: c.token() })).json();
    await post(c, '/doing/plans', [{ ...stored, prepared: false }]);
    expect((await call(t.app, 'GET', '/doing/assignments/my', { token: c.token() })).json()).toHaveLength(1);
  });
});

describe('assignments as the apps answer and count them', () => {
  it('accepts POST /assignments/:id/:action as well as /:action/:id, only from the assignee, and refuses other actions', async () => {
    const c = makeChurch();
    const p = await plan(c, { serviceDate: '2030-03-03' });
    const pos = await position(c, p.id);
    const mine = await assign(c, pos.id, c.personId);
    const stranger = await call(t.app, 'POST', `/doing/assignments/${mine.id}/accept`, { token: c.tokenOf(randomUUID(), 'all'), body: [] });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json().errors[0]).toBe('Only the assigned person can accept this assignment');
    const declined = await call(t.app, 'POST', `/doing/assignments/${mine.id}/decline`, { token: c.token(), body: [] });
    expect(declined.statusCode).toBe(200);
    expect(declined.json()).toEqual({ id: mine.id, personId: c.personId, positionId: pos.id, planId: p.id, status: 'Declined' });
    const other = await call(t.app, 'POST', `/doing/assignments/${mine.id}/maybe`, { token: c.token(), body: [] });
    expect(other.statusCode).toBe(400);
    expect(other.json().errors[0]).toMatchObject({ param: 'action', location: 'params' });
    expect((await call(t.app, 'POST', `/doing/assignments/${mine.id}/accept`, { token: makeChurch().token(), body: [] })).statusCode).toBe(404);
  });

  it('counts each person\'s non-declined assignments in the month (PlanValidation\'s monthCounts)', async () => {
    const c = makeChurch();
    const [a, b] = [randomUUID(), randomUUID()];
    for (const [day, who, status] of [
      ['2030-03-01', a, undefined],
      ['2030-03-31', a, 'Accepted'],
      ['2030-03-15', b, 'Declined'],
      ['2030-04-01', a, undefined],
      ['2030-02-28', b, undefined],
    ] as const) {
      const p = await plan(c, { serviceDate: day });
      await assign(c, (await position(c, p.id)).id, who, status);
    }
    const res = await call(t.app, 'GET', '/doing/assignments/monthCounts?date=2030-03-14', { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ personId: a, count: 2 }]);
    expect((await call(t.app, 'GET', '/doing/assignments/monthCounts?date=2030-03-14', { token: makeChurch().token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/doing/assignments/monthCounts?date=soon', { token: c.token() })).statusCode).toBe(400);
  });

  it('stores notified when PlanValidation posts the pending assignments back after notifying', async () => {
    const c = makeChurch();
    const p = await plan(c, { serviceDate: '2030-03-03' });
    const pos = await position(c, p.id);
    const a = await assign(c, pos.id, randomUUID());
    const stored = (await call(t.app, 'GET', `/doing/assignments/plan/${p.id}`, { token: c.token() })).json()[0];
    const saved = await post<{ notified: string }>(c, '/doing/assignments', [{ ...stored, notified: '2030-02-20T10:00:00.000Z' }]);
    expect(saved.notified).toBe('2030-02-20T10:00:00.000Z');
    expect((await call(t.app, 'GET', `/doing/assignments/${a.id}`, { token: c.token() })).json().notified).toBe('2030-02-20T10:00:00.000Z');
  });
});

describe('POST /doing/assignments/signup and DELETE /doing/assignments/signup/:id', () => {
  async function open(c: Church, body: Record<string, unknown> = {}, planBody: Record<string, unknown> = {}) {
    const p = await plan(c, { serviceDate: utcDay(10), ...planBody });
    return position(c, p.id, { allowSelfSignup: true, ...body });
  }

  it('of 20 members signing up at once for a place capped at 5, exactly 5 get in; the rest hear it is full', async () => {
    const c = makeChurch();
    const pos = await open(c, { count: 5 });
    const members = Array.from({ length: 20 }, () => randomUUID());
    const answers = await Promise.all(members.map((m) => call(t.app, 'POST', '/doing/assignments/signup', { token: c.tokenOf(m), body: { positionId: pos.id } })));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.statusCode !== 200);
    expect(new Set(refused.map((r) => `${r.statusCode} ${r.json().errors[0]}`))).toEqual(new Set(['409 This position is full']));
    const held = await t.app.db.select().from(assignments).where(and(eq(assignments.churchId, c.churchId), eq(assignments.positionId, pos.id)));
    expect(held).toHaveLength(5);
    expect(new Set(held.map((a) => a.status))).toEqual(new Set(['Accepted']));
  });

  it('signs the caller up as Accepted, tells the team leaders, refuses twice, and lets them leave', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    const leader = randomUUID();
    t.membership.addMember(c.churchId, groupId, leader, 'Lee Leader', true);
    t.membership.addMember(c.churchId, groupId, c.personId, 'Sam Signup');
    const pos = await open(c, { groupId });
    const res = await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: pos.id } });
    expect(res.statusCode).toBe(200);
    const mine = res.json();
    expect(mine).toMatchObject({ churchId: c.churchId, planId: pos.planId, positionId: pos.id, personId: c.personId, status: 'Accepted' });
    await t.drain();
    const told = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople' && (j.data as { churchId: string }).churchId === c.churchId);
    expect(told).toHaveLength(1);
    expect(told[0]!.data).toMatchObject({ personIds: [leader], contentType: 'assignment', contentId: pos.planId });
    expect((told[0]!.data as { message: string }).message).toMatch(/^Sam Signup signed up for Drums/);

    const twice = await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: pos.id } });
    expect([twice.statusCode, twice.json().errors[0]]).toEqual([409, 'Already signed up for this position']);
    // declined, then taken again: the same assignment, Accepted
    await call(t.app, 'POST', `/doing/assignments/decline/${mine.id}`, { token: c.token(), body: [] });
    const back = await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: pos.id } });
    expect(back.json()).toMatchObject({ id: mine.id, status: 'Accepted' });
    const someoneElse = await call(t.app, 'DELETE', `/doing/assignments/signup/${mine.id}`, { token: c.tokenOf(randomUUID()) });
    expect(someoneElse.statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/doing/assignments/signup/${mine.id}`, { token: makeChurch().token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/doing/assignments/signup/${mine.id}`, { token: c.token() })).statusCode).toBe(200);
    expect(await t.app.db.select().from(assignments).where(eq(assignments.id, mine.id))).toEqual([]);
  });

  it('refuses a position without self sign-up, another church\'s, and after the deadline (joining and leaving)', async () => {
    const c = makeChurch();
    const closed = await open(c, { allowSelfSignup: false });
    const no = await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: closed.id } });
    expect(no.statusCode).toBe(400);
    expect(no.json().errors[0]).toMatchObject({ param: 'positionId' });
    expect((await call(t.app, 'POST', '/doing/assignments/signup', { token: makeChurch().token(), body: { positionId: closed.id } })).statusCode).toBe(404);
    // ten days away with a deadline of 11 days before: closed
    const late = await open(c, {}, { signupDeadlineHours: 11 * 24 });
    const tooLate = await call(t.app, 'POST', '/doing/assignments/signup', { token: c.token(), body: { positionId: late.id } });
    expect([tooLate.statusCode, tooLate.json().errors[0]]).toEqual([409, 'The sign-up deadline has passed']);
    const seated = await assign(c, late.id, c.personId, 'Accepted');
    const leave = await call(t.app, 'DELETE', `/doing/assignments/signup/${seated.id}`, { token: c.token() });
    expect([leave.statusCode, leave.json().errors[0]]).toEqual([409, 'The removal deadline has passed']);
  });
});

describe('positions and times as B1Admin saves them', () => {
  it('reads an emptied count (null) as the stored one and keeps serviceTimeType', async () => {
    const c = makeChurch();
    const p = await plan(c, { serviceDate: '2030-03-03' });
    const pos = await position(c, p.id, { id: '', count: null, groupId: '' });
    expect(pos).toMatchObject({ count: 1, groupId: null });
    const time = await post<Record<string, unknown>>(c, '/doing/times', [{ planId: p.id, displayName: 'Rehearsal', startTime: '2030-03-01T18:00:00.000Z', endTime: '2030-03-01T20:00:00.000Z', serviceTimeType: 'rehearsal' }]);
    expect(time).toMatchObject({ displayName: 'Rehearsal', serviceTimeType: 'rehearsal' });
    expect((await post<Record<string, unknown>>(c, '/doing/times', [{ planId: p.id, displayName: 'Service' }])).serviceTimeType).toBe('service');
  });
});
