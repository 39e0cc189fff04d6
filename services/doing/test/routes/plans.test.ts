import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '@church/common';
import { call } from '@church/common/testing';
import { assignments, planItems, positions, times } from '../../src/db/schema';
import { utcDay } from '@church/common';
import { makeChurch, useDoing } from '../setup';

const t = useDoing();

async function makePlan(c: ReturnType<typeof makeChurch>, body: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: { name: 'Sunday', serviceDate: '2030-03-10', ...body } });
  expect(res.statusCode).toBe(200);
  return res.json()[0] as { id: string; serviceDate: string; churchId: string };
}

describe('POST /doing/plans and reads', () => {
  it('saves a plan with a local serviceDate and answers it as YYYY-MM-DD, without a day shift', async () => {
    const c = makeChurch();
    const plan = await makePlan(c, { serviceDate: '2030-03-10T23:30:00-08:00' });
    expect(plan).toMatchObject({ churchId: c.churchId, serviceDate: '2030-03-10', name: 'Sunday', serviceOrder: false });
    const got = await call(t.app, 'GET', `/doing/plans/${plan.id}`, { token: c.token() });
    expect(got.json().serviceDate).toBe('2030-03-10');
    const byIds = await call(t.app, 'GET', `/doing/plans/ids?ids=${plan.id},${randomUUID()}`, { token: c.token() });
    expect(byIds.json().map((p: { id: string }) => p.id)).toEqual([plan.id]);
    expect((await call(t.app, 'GET', '/doing/plans', { token: c.token() })).json()).toHaveLength(1);
  });

  it('refuses a bad date and a foreign plan type, naming the field', async () => {
    const c = makeChurch();
    const bad = await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: { serviceDate: '2030-02-30' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('serviceDate');
    const foreign = await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: [{ planTypeId: randomUUID() }] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0].param).toBe('[0].planTypeId');
    const ids = await call(t.app, 'GET', '/doing/plans/ids?ids=nope', { token: c.token() });
    expect(ids.statusCode).toBe(400);
  });

  it('keeps churches apart', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const plan = await makePlan(a);
    expect((await call(t.app, 'GET', `/doing/plans/${plan.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/doing/plans', { token: b.token() })).json()).toEqual([]);
    const update = await call(t.app, 'POST', '/doing/plans', { token: b.token(), body: { id: plan.id, name: 'Hijack' } });
    expect(update.statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/doing/plans/${plan.id}`, { token: a.token() })).json().name).toBe('Sunday');
    expect((await call(t.app, 'DELETE', `/doing/plans/${plan.id}`, { token: b.token() })).statusCode).toBe(404);
  });

  it('lists by plan type, the next 7 days for the presenter, and the public current plan', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    t.membership.addGroups(c.churchId, ministryId);
    const type = (await call(t.app, 'POST', '/doing/planTypes', { token: c.token(), body: { name: 'Worship', ministryId } })).json()[0];
    const past = await makePlan(c, { planTypeId: type.id, serviceDate: utcDay(-7) });
    const soon = await makePlan(c, { planTypeId: type.id, serviceDate: utcDay(3) });
    const later = await makePlan(c, { planTypeId: type.id, serviceDate: utcDay(20) });
    const ofType = await call(t.app, 'GET', `/doing/plans/types/${type.id}`, { token: c.token() });
    expect(ofType.json().map((p: { id: string }) => p.id)).toEqual([later.id, soon.id, past.id]);
    const presenter = await call(t.app, 'GET', '/doing/plans/presenter', { token: c.token() });
    expect(presenter.json().map((p: { id: string }) => p.id)).toEqual([soon.id]);
    const current = await call(t.app, 'GET', `/doing/plans/public/current/${type.id}`);
    expect(current.statusCode).toBe(200);
    expect(current.json().id).toBe(soon.id);
    expect((await call(t.app, 'GET', `/doing/plans/public/current/${randomUUID()}`)).statusCode).toBe(404);
  });
});

describe('GET /doing/plans and GET /doing/plans/types/:planTypeId (kept lists)', () => {
  const list = async (c: ReturnType<typeof makeChurch>, url = '/doing/plans') => {
    const res = await call(t.app, 'GET', url, { token: c.token([]) });
    expect(res.statusCode).toBe(200);
    return res.json() as Array<Record<string, unknown> & { id: string }>;
  };

  it('answers every plan with the Plan keys, newest first, and follows each change to a listed field', async () => {
    const c = makeChurch();
    const type = (await call(t.app, 'POST', '/doing/planTypes', { token: c.token(), body: { name: 'Worship' } })).json()[0];
    const undated = await makePlan(c, { name: 'Someday', serviceDate: null });
    const early = await makePlan(c, { serviceDate: '2030-03-03', planTypeId: type.id });
    const late = await makePlan(c, { serviceDate: '2030-03-10', planTypeId: type.id });
    const first = await list(c);
    expect(first.map((p) => p.id)).toEqual([undated.id, late.id, early.id]);
    expect(first[1]).toEqual({
      id: late.id, churchId: c.churchId, ministryId: null, planTypeId: type.id, name: 'Sunday', serviceDate: '2030-03-10', notes: null, serviceOrder: false,
      contentType: null, contentId: null, campusId: null, providerId: null, providerPlanId: null, providerPlanName: null, signupDeadlineHours: null,
      showVolunteerNames: true, prepared: false, autoReplaceOnDecline: false, lastAutofillRunId: null,
    });
    expect((await list(c, `/doing/plans/types/${type.id}`)).map((p) => p.id)).toEqual([late.id, early.id]);

    // a save, an autofill (the plan's last run), its undo and a delete each show at once, in both lists
    await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: { id: early.id, name: 'Renamed', serviceDate: '2030-03-17' } });
    expect((await list(c)).map((p) => [p.id, p.name])).toEqual([[undated.id, 'Someday'], [early.id, 'Renamed'], [late.id, 'Sunday']]);
    const position = (await call(t.app, 'POST', '/doing/positions', { token: c.token(), body: { planId: late.id, name: 'Greeter', count: 1 } })).json()[0];
    const run = (await call(t.app, 'POST', `/doing/plans/autofill/${late.id}`, { token: c.token(), body: { teams: [{ positionId: position.id, personIds: [randomUUID()] }] } })).json();
    expect(run.runId).toEqual(expect.any(String));
    expect((await list(c, `/doing/plans/types/${type.id}`)).find((p) => p.id === late.id)?.lastAutofillRunId).toBe(run.runId);
    await call(t.app, 'POST', `/doing/plans/autofill/${late.id}/undo`, { token: c.token() });
    expect((await list(c)).find((p) => p.id === late.id)?.lastAutofillRunId).toBeNull();
    await call(t.app, 'DELETE', `/doing/plans/${early.id}`, { token: c.token() });
    expect((await list(c)).map((p) => p.id)).toEqual([undated.id, late.id]);
    expect((await list(c, `/doing/plans/types/${type.id}`)).map((p) => p.id)).toEqual([late.id]);
  });

  it('answers 304 to a client holding the same list, and the new list once it changed', async () => {
    const c = makeChurch();
    await makePlan(c);
    const first = await call(t.app, 'GET', '/doing/plans', { token: c.token([]) });
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await call(t.app, 'GET', '/doing/plans', { token: c.token([]), headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    await makePlan(c, { name: 'Evening' });
    const changed = await call(t.app, 'GET', '/doing/plans', { token: c.token([]), headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toHaveLength(2);
  });

  it("never answers another church's plans, and needs a token", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const type = (await call(t.app, 'POST', '/doing/planTypes', { token: a.token(), body: { name: 'Worship' } })).json()[0];
    await makePlan(a, { planTypeId: type.id });
    expect((await list(a)).length).toBe(1);
    expect(await list(b)).toEqual([]);
    expect(await list(b, `/doing/plans/types/${type.id}`)).toEqual([]);
    expect((await call(t.app, 'GET', '/doing/plans')).statusCode).toBe(401);
  });
});

describe('POST /doing/plans/copy/:id', () => {
  async function fullPlan(c: ReturnType<typeof makeChurch>) {
    const plan = await makePlan(c, { serviceDate: '2030-03-10' });
    const token = c.token();
    const position = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: plan.id, name: 'Drums', categoryName: 'Band', count: 1 } })).json()[0];
    await call(t.app, 'POST', '/doing/times', { token, body: { planId: plan.id, displayName: 'Service', startTime: '2030-03-10T17:00:00Z', endTime: '2030-03-10T18:00:00Z' } });
    const person = randomUUID();
    const asg = (await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: position.id, personId: person } })).json()[0];
    expect((await call(t.app, 'POST', `/doing/assignments/accept/${asg.id}`, { token: c.tokenOf(person), body: {} })).json().status).toBe('Accepted');
    const header = (await call(t.app, 'POST', '/doing/planItems', { token, body: { planId: plan.id, label: 'Worship', itemType: 'header' } })).json()[0];
    await call(t.app, 'POST', '/doing/planItems', { token, body: { planId: plan.id, parentId: header.id, label: 'Song 1', itemType: 'song' } });
    return { plan, person };
  }

  it('copies positions, times (moved to the new date), assignments (unconfirmed) and the service order', async () => {
    const c = makeChurch();
    const { plan, person } = await fullPlan(c);
    const res = await call(t.app, 'POST', `/doing/plans/copy/${plan.id}`, { token: c.token(), body: { serviceDate: '2030-03-17', copyMode: 'all', copyServiceOrder: true } });
    expect(res.statusCode).toBe(200);
    const copy = res.json();
    expect(copy).toMatchObject({ churchId: c.churchId, serviceDate: '2030-03-17', name: 'Sunday' });
    expect(copy.id).not.toBe(plan.id);
    const token = c.token();
    const pos = (await call(t.app, 'GET', `/doing/positions/plan/${copy.id}`, { token })).json();
    expect(pos.map((p: { name: string }) => p.name)).toEqual(['Drums']);
    const tm = (await call(t.app, 'GET', `/doing/times/plan/${copy.id}`, { token })).json();
    expect(tm[0].startTime).toBe('2030-03-17T17:00:00.000Z');
    const asg = (await call(t.app, 'GET', `/doing/assignments/plan/${copy.id}`, { token })).json();
    expect(asg).toEqual([expect.objectContaining({ personId: person, positionId: pos[0].id, planId: copy.id, status: 'Unconfirmed' })]);
    const tree = (await call(t.app, 'GET', `/doing/planItems/plan/${copy.id}`, { token })).json();
    expect(tree).toHaveLength(1);
    expect(tree[0].label).toBe('Worship');
    expect(tree[0].children.map((i: { label: string; parentId: string }) => [i.label, i.parentId])).toEqual([['Song 1', tree[0].id]]);
  });

  it('copies only positions with copyMode positions, and nothing with none', async () => {
    const c = makeChurch();
    const { plan } = await fullPlan(c);
    const token = c.token();
    const positionsOnly = (await call(t.app, 'POST', `/doing/plans/copy/${plan.id}`, { token, body: { serviceDate: '2030-03-17', copyMode: 'positions', copyServiceOrder: false } })).json();
    expect((await call(t.app, 'GET', `/doing/positions/plan/${positionsOnly.id}`, { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/doing/assignments/plan/${positionsOnly.id}`, { token })).json()).toHaveLength(0);
    expect((await call(t.app, 'GET', `/doing/planItems/plan/${positionsOnly.id}`, { token })).json()).toHaveLength(0);
    const none = (await call(t.app, 'POST', `/doing/plans/copy/${plan.id}`, { token, body: { serviceDate: '2030-03-24', copyMode: 'none' } })).json();
    expect((await call(t.app, 'GET', `/doing/positions/plan/${none.id}`, { token })).json()).toHaveLength(0);
    const bad = await call(t.app, 'POST', `/doing/plans/copy/${plan.id}`, { token, body: { serviceDate: '2030-03-24', copyMode: 'most' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('copyMode');
    expect((await call(t.app, 'POST', `/doing/plans/copy/${randomUUID()}`, { token, body: { serviceDate: '2030-03-24' } })).statusCode).toBe(404);
  });

  it('DELETE removes the plan with its times, positions, assignments and items', async () => {
    const c = makeChurch();
    const { plan } = await fullPlan(c);
    expect((await call(t.app, 'DELETE', `/doing/plans/${plan.id}`, { token: c.token() })).statusCode).toBe(200);
    for (const table of [positions, times, assignments, planItems]) expect(await t.app.db.select().from(table).where(eq(table.planId, plan.id))).toEqual([]);
    expect((await call(t.app, 'GET', `/doing/plans/${plan.id}`, { token: c.token() })).statusCode).toBe(404);
  });
});

describe('POST /doing/plans/autofill/:id', () => {
  async function setup(count = 2) {
    const c = makeChurch();
    const token = c.token();
    const plan = await makePlan(c, { serviceDate: '2030-05-05' });
    const position = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: plan.id, name: 'Greeter', count } })).json()[0];
    const people: string[] = Array.from({ length: 5 }, () => randomUUID());
    return { c, token, plan, position, people };
  }

  it('honours blockouts, avoids double booking the same day, and spreads by recent load; same input, same answer', async () => {
    const { c, token, plan, position, people } = await setup(2);
    const [blocked, busy, heavy, light1, light2] = people as [string, string, string, string, string];
    await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { personId: blocked, startDate: '2030-05-01', endDate: '2030-05-07' } });
    // busy already serves at another plan that day; heavy served twice recently
    const other = await makePlan(c, { serviceDate: '2030-05-05', name: 'Evening' });
    const otherPos = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: other.id, name: 'Usher', count: 5 } })).json()[0];
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: otherPos.id, personId: busy } });
    for (const day of ['2030-04-21', '2030-04-28']) {
      const p = await makePlan(c, { serviceDate: day });
      const pos = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: p.id, name: 'Greeter' } })).json()[0];
      await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: pos.id, personId: heavy } });
    }
    const p = await makePlan(c, { serviceDate: '2030-04-14' });
    const pos = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: p.id, name: 'Greeter' } })).json()[0];
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: pos.id, personId: light1 } });

    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: people }] } });
    expect(res.statusCode).toBe(200);
    // light2 (0 recent) then light1 (1 recent); heavy (2) is left out, blocked and busy never picked
    expect(res.json().assignments.map((a: { personId: string; status: string }) => [a.personId, a.status])).toEqual([
      [light2, 'Unconfirmed'],
      [light1, 'Unconfirmed'],
    ]);
    // the position is full now: a second run assigns nobody
    const again = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: people }] } });
    expect(again.json()).toMatchObject({ created: 0, runId: null, assignments: [] });
  });

  it('is deterministic for the same input and never puts one person in two positions that day', async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const { token, plan, position, people } = await setup(2);
      const second = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: plan.id, name: 'Usher', count: 2 } })).json()[0];
      const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: people }, { positionId: second.id, personIds: people }] } });
      const picked = res.json().assignments.map((a: { personId: string }) => people.indexOf(a.personId));
      runs.push(picked);
      expect(new Set(picked).size).toBe(4);
    }
    expect(runs[0]).toEqual([0, 1, 2, 3]);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('two autofills of one plan at once never overfill a position', async () => {
    const { token, plan, position, people } = await setup(2);
    const body = { teams: [{ positionId: position.id, personIds: people }] };
    const [a, b] = await Promise.all([0, 1].map(() => call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body })));
    expect(a!.json().assignments.length + b!.json().assignments.length).toBe(2);
    expect(a!.json().created + b!.json().created).toBe(2);
    expect((await call(t.app, 'GET', `/doing/assignments/plan/${plan.id}`, { token })).json()).toHaveLength(2);
  });

  it('counts assignments within 90 days either side as recent, any status, and frees those who declined that day', async () => {
    const { c, token, plan, position, people } = await setup(2);
    const [inside, edge, outside, declined] = people as [string, string, string, string];
    const assign = async (day: string, personId: string, status?: string) => {
      const p = await makePlan(c, { serviceDate: day });
      const pos = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: p.id, name: 'Greeter' } })).json()[0];
      const res = await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: pos.id, personId } });
      expect(res.statusCode).toBe(200);
      // the person's own answer
      if (status) expect((await call(t.app, 'POST', `/doing/assignments/decline/${res.json()[0].id}`, { token: c.tokenOf(personId) })).statusCode).toBe(200);
    };
    // 2030-05-05 ± 90 days: 2030-02-04 … 2030-08-03
    await assign('2030-02-04', edge, 'Declined');
    await assign('2030-08-03', inside);
    await assign('2030-02-03', outside);
    await assign('2030-08-04', outside);
    await assign('2030-05-05', declined, 'Declined');
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: [declined, inside, edge, outside] }] } });
    expect(res.statusCode).toBe(200);
    // outside has nothing in the window (0); the others one each, so the first listed of them: declined, whose
    // assignment that day was declined (free to serve, yet it counts as recent)
    expect(res.json().assignments.map((a: { personId: string }) => a.personId)).toEqual([outside, declined]);
  });

  it('fills a position listed twice only up to its count, answers what it stored, and keeps the plan\'s own people', async () => {
    const { c, token, plan, position, people } = await setup(2);
    const [kept, ...rest] = people as [string, ...string[]];
    const keptRow = (await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: position.id, personId: kept } })).json()[0];
    await call(t.app, 'POST', `/doing/assignments/decline/${keptRow.id}`, { token: c.tokenOf(kept) });
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, {
      token,
      body: { teams: [{ positionId: position.id, personIds: [kept, rest[0]] }, { positionId: position.id, personIds: rest }] },
    });
    expect(res.statusCode).toBe(200);
    // count 2, one already assigned (declined still holds its slot and its person): one new assignment, not two
    const body = res.json();
    expect(body).toEqual({
      plan: { ...plan, lastAutofillRunId: body.runId },
      created: 1,
      runId: expect.any(String),
      assignments: [{ id: expect.any(String), churchId: plan.churchId, planId: plan.id, positionId: position.id, personId: rest[0], status: 'Unconfirmed', notified: null }],
    });
    const stored = await t.app.db.select().from(assignments).where(eq(assignments.planId, plan.id));
    expect(stored.map((a) => [a.personId, a.status]).sort()).toEqual([[kept, 'Declined'], [rest[0], 'Unconfirmed']].sort());
    expect(stored.find((a) => a.personId === rest[0])!.id).toBe(body.assignments[0].id);
    expect(stored.find((a) => a.personId === rest[0])!.autofillRunId).toBe(body.runId);
  });

  it('writes one line of the audit log per autofill run and per undo, naming who was put in which position', async () => {
    const { c, token, plan, position, people } = await setup(2);
    const reported = () =>
      t.deps.queue.handedOff
        .filter((j) => j.name === 'membership.changes')
        .flatMap((j) => (j.data as { records: Array<{ churchId: string; entityType: string; entityId: string; action: string; userId?: string | null; changes?: Record<string, { after: unknown }> }> }).records)
        .filter((r) => r.churchId === c.churchId && r.entityId === plan.id);
    const run = (await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: people }] } })).json();
    expect(run.created).toBe(2);
    await t.drain();
    const [filled, ...more] = reported().filter((r) => r.action === 'autofilled');
    expect(more).toEqual([]);
    expect(filled).toMatchObject({ entityType: 'plan', entityId: plan.id });
    expect(filled!.changes!.autofillRunId!.after).toBe(run.runId);
    const put = filled!.changes!.assignments!.after as Array<{ positionId: string; personId: string }>;
    expect(put).toHaveLength(2);
    for (const a of put) expect(a.positionId === position.id && people.includes(a.personId)).toBe(true);
    // no line per assignment
    const church = t.deps.queue.handedOff.flatMap((j) => (j.data as { records?: Array<{ entityType: string; churchId: string }> }).records ?? []).filter((r) => r.churchId === c.churchId);
    expect(church.filter((r) => r.entityType === 'assignment')).toEqual([]);
    await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}/undo`, { token });
    await t.drain();
    const undone = reported().filter((r) => r.action === 'autofillUndone');
    expect(undone).toHaveLength(1);
    expect(undone[0]!.changes!.assignments!.after).toHaveLength(2);
    // an undo with nothing to take back writes no line
    await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}/undo`, { token });
    await t.drain();
    expect(reported().filter((r) => r.action === 'autofillUndone')).toHaveLength(1);
  });

  it('keeps each plan\'s people in step with its assignments: saved, moved to another person or plan, accepted, deleted, copied', async () => {
    const { c, token, plan, position, people } = await setup(1);
    const [a, b] = people as [string, string];
    const other = await makePlan(c, { serviceDate: '2030-04-01' });
    const otherPosition = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: other.id, name: 'Usher' } })).json()[0];
    const assigneesOf = async (planId: string) => {
      const [row] = rowsOf<{ assignees: string[] }>(await t.app.db.execute(sql`select assignees::text[] as assignees from plans where id = ${planId}`));
      return row!.assignees;
    };
    const save = async (body: Record<string, unknown>) => {
      const res = await call(t.app, 'POST', '/doing/assignments', { token, body });
      expect(res.statusCode).toBe(200);
      return res.json()[0] as { id: string };
    };
    const saved = await save({ positionId: position.id, personId: a });
    expect(await assigneesOf(plan.id)).toEqual([a]);
    await save({ id: saved.id, positionId: position.id, personId: b });
    expect(await assigneesOf(plan.id)).toEqual([b]);
    await save({ id: saved.id, positionId: otherPosition.id, planId: other.id, personId: b });
    expect([await assigneesOf(plan.id), await assigneesOf(other.id)]).toEqual([[], [b]]);
    const tokenOfB = c.tokenOf(b);
    expect((await call(t.app, 'POST', `/doing/assignments/accept/${saved.id}`, { token: tokenOfB })).statusCode).toBe(200);
    expect(await assigneesOf(other.id)).toEqual([b]);
    // a later assignment joins the plan's people (appended: compared as a set)
    const second = await save({ positionId: otherPosition.id, personId: a });
    expect((await assigneesOf(other.id)).sort()).toEqual([a, b].sort());
    const copy = await call(t.app, 'POST', `/doing/plans/copy/${other.id}`, { token, body: { serviceDate: '2030-04-08', copyMode: 'all' } });
    expect(copy.statusCode).toBe(200);
    expect((await assigneesOf(copy.json().id)).sort()).toEqual([a, b].sort());
    expect((await call(t.app, 'DELETE', `/doing/assignments/${saved.id}`, { token })).statusCode).toBe(200);
    expect(await assigneesOf(other.id)).toEqual([a]);
    expect((await call(t.app, 'DELETE', `/doing/assignments/${second.id}`, { token })).statusCode).toBe(200);
    expect(await assigneesOf(other.id)).toEqual([]);
  });

  it('spreads by recent load counted in tens, and never picks again someone already on the plan', async () => {
    const { c, token, plan, position, people } = await setup(12);
    const [onPlan, heavy, ...others] = people as [string, string, ...string[]];
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: position.id, personId: onPlan } });
    for (let i = 1; i <= 10; i++) {
      const p = await makePlan(c, { serviceDate: `2030-04-${String(i).padStart(2, '0')}` });
      const pos = (await call(t.app, 'POST', '/doing/positions', { token, body: { planId: p.id, name: 'Greeter' } })).json()[0];
      await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: pos.id, personId: heavy } });
    }
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds: people }] } });
    expect(res.statusCode).toBe(200);
    // 11 open slots of 12; the one on the plan is not picked again, the one with 10 recent goes last
    expect(res.json().assignments.map((a: { personId: string }) => a.personId)).toEqual([...others, heavy]);
  });

  it('blocks out people on the first and the last day of a blockout; another church\'s bookings and blockouts do not count', async () => {
    const { c, token, plan, position, people } = await setup(3);
    const [first, last, elsewhere, free] = people as [string, string, string, string];
    await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { personId: first, startDate: '2030-05-05', endDate: '2030-05-09' } });
    await call(t.app, 'POST', '/doing/blockoutDates', { token, body: { personId: last, startDate: '2030-05-01', endDate: '2030-05-05' } });
    const other = makeChurch();
    await call(t.app, 'POST', '/doing/blockoutDates', { token: other.token(), body: { personId: elsewhere, startDate: '2030-05-05' } });
    const otherPlan = await makePlan(other, { serviceDate: '2030-05-05' });
    const otherPos = (await call(t.app, 'POST', '/doing/positions', { token: other.token(), body: { planId: otherPlan.id, name: 'Usher' } })).json()[0];
    await call(t.app, 'POST', '/doing/assignments', { token: other.token(), body: { positionId: otherPos.id, personId: free } });
    expect(c.churchId).not.toBe(other.churchId);
    // ids sent in capitals are the same people and the same position
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, {
      token,
      body: { teams: [{ positionId: position.id.toUpperCase(), personIds: [first.toUpperCase(), last, elsewhere, free.toUpperCase()] }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().assignments.map((a: { personId: string; positionId: string }) => [a.personId, a.positionId])).toEqual([
      [elsewhere, position.id],
      [free, position.id],
    ]);
  });

  it('answers 404 for a plan of another church or none, and 400 for a plan without a service date', async () => {
    const { token, plan, position, people } = await setup();
    const body = { teams: [{ positionId: position.id, personIds: people }] };
    expect((await call(t.app, 'POST', `/doing/plans/autofill/${randomUUID()}`, { token, body })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token: makeChurch().token(), body })).statusCode).toBe(404);
    const c = makeChurch();
    const undated = (await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: { name: 'Someday' } })).json()[0];
    const pos = (await call(t.app, 'POST', '/doing/positions', { token: c.token(), body: { planId: undated.id, name: 'Greeter' } })).json()[0];
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${undated.id}`, { token: c.token(), body: { teams: [{ positionId: pos.id, personIds: people }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('serviceDate');
    expect(await t.app.db.select().from(assignments).where(eq(assignments.planId, undated.id))).toEqual([]);
  });

  it('refuses a position of another plan and an empty body', async () => {
    const { token, plan } = await setup();
    const res = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: randomUUID(), personIds: [] }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('teams[0].positionId');
    expect((await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: {} })).statusCode).toBe(400);
  });

  it('refuses person ids that are not UUIDs, naming each, and a list that is missing or too long', async () => {
    const { token, plan, position, people } = await setup();
    const send = (personIds: unknown) => call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id, personIds }] } });
    const bad = await send([people[0], 'nope', 7, people[1]!.toUpperCase(), '00000000-0000-0000-0000-000000000000']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: [
        { msg: 'must be a UUID', param: 'teams[0].personIds[1]', location: 'body' },
        { msg: 'must be a UUID', param: 'teams[0].personIds[2]', location: 'body' },
      ],
    });
    const missing = await call(t.app, 'POST', `/doing/plans/autofill/${plan.id}`, { token, body: { teams: [{ positionId: position.id }] } });
    expect(missing.json()).toEqual({ errors: [{ msg: 'teams[0].personIds is required', param: 'teams[0].personIds', location: 'body' }] });
    expect((await send('nope')).json().errors).toEqual([{ msg: 'must be a list of UUIDs', param: 'teams[0].personIds', location: 'body' }]);
    const long = await send(Array.from({ length: 2001 }, () => people[0]));
    expect(long.statusCode).toBe(400);
    expect(long.json().errors[0].param).toBe('teams[0].personIds');
    expect(await t.app.db.select().from(assignments).where(eq(assignments.planId, plan.id))).toEqual([]);
  });
});
