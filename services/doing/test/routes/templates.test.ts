import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { planItemTimes, planItems, planTemplates } from '../../src/db/schema';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing();
type Church = ReturnType<typeof makeChurch>;
const EDITOR = ['Plans.Edit'];

async function post<T = Record<string, unknown>>(token: string, path: string, body: unknown): Promise<T> {
  const res = await call(t.app, 'POST', path, { token, body });
  expect(res.statusCode).toBe(200);
  const json = res.json();
  return (Array.isArray(json) ? json[0] : json) as T;
}
type Row = { id: string };

/** A plan with a header and a song under it, two positions, two service times. */
async function fullPlan(c: Church, ministryId: string | null = randomUUID()) {
  const token = c.token();
  if (ministryId) t.membership.addGroups(c.churchId, ministryId);
  const plan = await post<Row>(token, '/doing/plans', { name: 'Sunday', serviceDate: '2030-03-03', ministryId, notes: 'Bring the good mics' });
  const header = await post<Row>(token, '/doing/planItems', { planId: plan.id, label: 'Worship', itemType: 'header' });
  const song = await post<Row>(token, '/doing/planItems', { planId: plan.id, parentId: header.id, label: 'Song 1', itemType: 'arrangementKey', seconds: 240, providerContentPath: '0.1' });
  await post(token, '/doing/positions', [
    { planId: plan.id, name: 'Drums', categoryName: 'Band', count: 1, allowSelfSignup: true },
    { planId: plan.id, name: 'Keys', categoryName: 'Band', count: 2 },
  ]);
  const first = await post<Row>(token, '/doing/times', { planId: plan.id, displayName: '9:00', startTime: '2030-03-03T09:00:00Z', endTime: '2030-03-03T10:00:00Z' });
  const second = await post<Row>(token, '/doing/times', { planId: plan.id, displayName: '11:00', startTime: '2030-03-03T11:00:00Z', endTime: '2030-03-03T12:00:00Z' });
  return { plan, header, song, times: [first, second] as const, ministryId };
}

describe('/doing/planItemTimes (an item left out of one of the plan\'s times)', () => {
  it('saves as PlanItemEdit posts it, one row per item and time, lists by plan and by item, deletes', async () => {
    const c = makeChurch();
    const token = c.token();
    const { plan, song, times } = await fullPlan(c);
    const res = await call(t.app, 'POST', '/doing/planItemTimes', { token, body: [{ planItemId: song.id, timeId: times[1].id, excluded: true }] });
    expect(res.statusCode).toBe(200);
    const [saved] = res.json();
    // B1Admin:src/serving/components/PlanItemEdit.tsx reads timeId and excluded
    expect(saved).toEqual({ id: expect.any(String), churchId: c.churchId, planId: plan.id, planItemId: song.id, timeId: times[1].id, excluded: true });
    // the same pair again (two editors) updates the row rather than adding one
    const again = await post<Row>(token, '/doing/planItemTimes', [{ id: '', planItemId: song.id, timeId: times[1].id, excluded: 1 }]);
    expect(again.id).toBe(saved.id);
    expect((await call(t.app, 'GET', `/doing/planItemTimes/plan/${plan.id}`, { token })).json()).toEqual([saved]);
    expect((await call(t.app, 'GET', `/doing/planItemTimes/planItem/${song.id}`, { token })).json()).toEqual([saved]);
    expect((await call(t.app, 'GET', `/doing/planItemTimes/plan/${plan.id}`, { token: makeChurch().token() })).json()).toEqual([]);
    expect((await call(t.app, 'DELETE', `/doing/planItemTimes/${saved.id}`, { token: makeChurch().token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/doing/planItemTimes/${saved.id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/doing/planItemTimes/planItem/${song.id}`, { token })).json()).toEqual([]);
  });

  it('refuses another plan\'s time and another church\'s item, naming the field', async () => {
    const c = makeChurch();
    const { song } = await fullPlan(c);
    const other = await fullPlan(c);
    const mixed = await call(t.app, 'POST', '/doing/planItemTimes', { token: c.token(), body: [{ planItemId: song.id, timeId: other.times[0].id }] });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().errors[0]).toEqual({ msg: 'is a time of another plan than the item', param: '[0].timeId', location: 'body' });
    const foreign = await call(t.app, 'POST', '/doing/planItemTimes', { token: makeChurch().token(), body: { planItemId: song.id, timeId: other.times[0].id } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0].param).toBe('planItemId');
  });

  it('go with their item, their time and their plan, and are copied with a plan\'s service order', async () => {
    const c = makeChurch();
    const token = c.token();
    const { plan, header, song, times } = await fullPlan(c);
    await post(token, '/doing/planItemTimes', [
      { planItemId: song.id, timeId: times[0].id },
      { planItemId: header.id, timeId: times[1].id },
    ]);
    const copy = await post<Row>(token, `/doing/plans/copy/${plan.id}`, { serviceDate: '2030-03-10', copyMode: 'positions', copyServiceOrder: true });
    const copied = (await call(t.app, 'GET', `/doing/planItemTimes/plan/${copy.id}`, { token })).json();
    expect(copied).toHaveLength(2);
    const copiedTimes = (await call(t.app, 'GET', `/doing/times/plan/${copy.id}`, { token })).json().map((x: Row) => x.id);
    expect(copied.every((x: { timeId: string }) => copiedTimes.includes(x.timeId))).toBe(true);

    expect((await call(t.app, 'DELETE', `/doing/times/${times[1].id}`, { token })).statusCode).toBe(200);
    expect((await t.app.db.select().from(planItemTimes).where(eq(planItemTimes.planId, plan.id))).map((x) => x.planItemId)).toEqual([song.id]);
    expect((await call(t.app, 'DELETE', `/doing/planItems/${header.id}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(planItemTimes).where(eq(planItemTimes.planId, plan.id))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/doing/plans/${copy.id}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(planItemTimes).where(eq(planItemTimes.planId, copy.id))).toEqual([]);
  });
});

describe('POST /doing/planItems/sort with a new item (B1Admin\'s duplicate)', () => {
  it('saves the copy, then places it among its siblings', async () => {
    const c = makeChurch();
    const token = c.token();
    const { plan, header, song } = await fullPlan(c);
    const second = await post<Row>(token, '/doing/planItems', { planId: plan.id, parentId: header.id, label: 'Song 2' });
    // planItemUtils.duplicatePlanItem: the item without its id, sort + 0.5
    const stored = (await call(t.app, 'GET', `/doing/planItems/${song.id}`, { token })).json();
    const { id: _id, ...copy } = stored;
    const res = await call(t.app, 'POST', '/doing/planItems/sort', { token, body: { ...copy, sort: stored.sort + 0.5 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ planId: plan.id, parentId: header.id, label: 'Song 1', seconds: 240, providerContentPath: '0.1', sort: 2 });
    const tree = (await call(t.app, 'GET', `/doing/planItems/plan/${plan.id}`, { token })).json();
    expect(tree[0].children.map((i: { id: string; label: string }) => [i.label, i.id === song.id || i.id === second.id])).toEqual([
      ['Song 1', true],
      ['Song 1', false],
      ['Song 2', true],
    ]);
    const noPlan = await call(t.app, 'POST', '/doing/planItems/sort', { token, body: { label: 'x', sort: 1 } });
    expect(noPlan.json().errors[0]).toMatchObject({ param: 'planId' });
  });
});

describe('/doing/plantemplates', () => {
  it('saves a plan as a template, lists a ministry\'s, and applies it to other plans (service order and positions)', async () => {
    const c = makeChurch();
    const token = c.token(EDITOR);
    const { plan, ministryId } = await fullPlan(c);
    // SaveTemplateDialog
    const template = await post<{ id: string; data: { items: unknown[]; positions: unknown[]; notes: string } }>(token, `/doing/plantemplates/fromPlan/${plan.id}`, { name: 'Standard Sunday', ministryId });
    expect(template).toMatchObject({ churchId: c.churchId, ministryId, name: 'Standard Sunday' });
    expect(template.data.items).toHaveLength(2);
    expect(template.data.positions).toEqual([
      { categoryName: 'Band', name: 'Drums', count: 1, groupId: null, allowSelfSignup: true, description: null },
      { categoryName: 'Band', name: 'Keys', count: 2, groupId: null, allowSelfSignup: false, description: null },
    ]);
    expect(template.data.notes).toBe('Bring the good mics');
    // PlanEdit's template select and PlanTemplateManager list them by ministry
    const listed = await call(t.app, 'GET', `/doing/plantemplates/ministry/${ministryId}`, { token });
    expect(listed.json().map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([[template.id, 'Standard Sunday']]);
    expect((await call(t.app, 'GET', `/doing/plantemplates/ministry/${ministryId}`, { token: makeChurch().token(EDITOR) })).json()).toEqual([]);

    // PlanEdit: a new plan, then the template applied to it (service order and positions)
    const target = await post<Row>(token, '/doing/plans', [{ id: '', name: 'Next week', serviceDate: '2030-03-10', ministryId }]);
    await post(token, '/doing/planItems', { planId: target.id, label: 'Old item' });
    const applied = await call(t.app, 'POST', `/doing/plantemplates/apply/${template.id}`, { token, body: { planIds: [target.id], serviceOrder: true, positions: true } });
    expect(applied.statusCode).toBe(200);
    expect(applied.json()).toEqual({ applied: 1 });
    const tree = (await call(t.app, 'GET', `/doing/planItems/plan/${target.id}`, { token })).json();
    expect(tree.map((i: { label: string; children: Array<{ label: string; seconds: number }> }) => [i.label, i.children.map((ch) => [ch.label, ch.seconds])])).toEqual([['Worship', [['Song 1', 240]]]]);
    const positions = (await call(t.app, 'GET', `/doing/positions/plan/${target.id}`, { token })).json();
    expect(positions.map((p: { name: string; count: number }) => [p.name, p.count]).sort()).toEqual([['Drums', 1], ['Keys', 2]]);
    expect((await call(t.app, 'GET', `/doing/plans/${target.id}`, { token })).json().notes).toBe('Bring the good mics');
  });

  it('renames, takes the snapshot again (PlanTemplateManager\'s overwrite), and deletes', async () => {
    const c = makeChurch();
    const token = c.token(EDITOR);
    const { plan, ministryId } = await fullPlan(c);
    const template = await post<{ id: string; name: string; data: unknown }>(token, `/doing/plantemplates/fromPlan/${plan.id}`, { name: 'First' });
    const renamed = await post<{ name: string; data: unknown }>(token, '/doing/plantemplates', [{ ...template, name: 'Renamed' }]);
    expect(renamed).toMatchObject({ name: 'Renamed', ministryId, data: template.data });
    await post(token, '/doing/planItems', { planId: plan.id, label: 'Announcements' });
    const retaken = await post<{ id: string; name: string; data: { items: unknown[] } }>(token, `/doing/plantemplates/fromPlan/${plan.id}`, { id: template.id });
    expect([retaken.id, retaken.name, retaken.data.items.length]).toEqual([template.id, 'Renamed', 3]);
    expect((await call(t.app, 'DELETE', `/doing/plantemplates/${template.id}`, { token: makeChurch().token(EDITOR) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/doing/plantemplates/${template.id}`, { token })).statusCode).toBe(200);
    expect(await t.app.db.select().from(planTemplates).where(eq(planTemplates.id, template.id))).toEqual([]);
  });

  it('is for Plans.Edit or the ministry\'s own team (asked of membership); a new template needs a name', async () => {
    const c = makeChurch();
    const { plan, ministryId } = await fullPlan(c);
    const member = c.token([]);
    // in no group at all: refused by the route's rule
    const outsider = await call(t.app, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { token: member, body: { name: 'Mine' } });
    expect(outsider.statusCode).toBe(401);
    expect(outsider.json().errors[0]).toBe('Missing permission: Plans.Edit or member of the ministry');
    // on another ministry's team: refused for this one
    t.membership.addPeople(c.churchId, [person({ id: c.personId, groupIds: [randomUUID()] })]);
    const refused = await call(t.app, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { token: member, body: { name: 'Mine' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0]).toBe('Only holders of Plans.Edit and members of the ministry can do this');
    expect((await call(t.app, 'GET', `/doing/plantemplates/ministry/${ministryId}`, { token: member })).statusCode).toBe(401);
    t.membership.addPeople(c.churchId, [person({ id: c.personId, groupIds: [ministryId!] })]);
    const ok = await call(t.app, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { token: member, body: { name: 'Mine' } });
    expect(ok.statusCode).toBe(200);
    // moving it to a ministry the member is not on is refused
    expect((await call(t.app, 'POST', '/doing/plantemplates', { token: member, body: [{ ...ok.json(), ministryId: randomUUID() }] })).statusCode).toBe(401);
    const nameless = await call(t.app, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { token: member, body: {} });
    expect(nameless.json().errors).toEqual([{ msg: 'name is required', param: 'name', location: 'body' }]);
    // another church's plan or template is not found
    expect((await call(t.app, 'POST', `/doing/plantemplates/fromPlan/${plan.id}`, { token: makeChurch().token(EDITOR), body: { name: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/doing/plantemplates/apply/${ok.json().id}`, { token: makeChurch().token(EDITOR), body: { planIds: [plan.id] } })).statusCode).toBe(404);
  });

  it('applies a snapshot sent as the open-source API wrote it (JSON text), leaving out items whose parent it lacks', async () => {
    const c = makeChurch();
    const token = c.token(EDITOR);
    const { plan, ministryId } = await fullPlan(c);
    const data = JSON.stringify({ items: [{ id: 'a', label: 'Root' }, { id: 'b', parentId: 'a', label: 'Child' }, { id: 'c', parentId: 'gone', label: 'Orphan' }], positions: [] });
    const template = await post<Row>(token, '/doing/plantemplates', { name: 'Imported', ministryId, data });
    await post(token, `/doing/plantemplates/apply/${template.id}`, { planIds: [plan.id] });
    const rows = await t.app.db.select({ label: planItems.label }).from(planItems).where(eq(planItems.planId, plan.id));
    expect(rows.map((r) => r.label).sort()).toEqual(['Child', 'Root']);
    // positions were not asked for: the plan keeps its own
    expect((await call(t.app, 'GET', `/doing/positions/plan/${plan.id}`, { token })).json()).toHaveLength(2);
    const bad = await call(t.app, 'POST', '/doing/plantemplates', { token, body: { name: 'Bad', ministryId, data: '{nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('data');
  });
});
