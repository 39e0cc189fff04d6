import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { labelTemplates } from '../../src/db/schema';
import { makeChurch, useAttendance } from '../setup';

const t = useAttendance();

const ID = '00000000-0000-4000-8000-000000000001';
const BLOCKS = JSON.stringify([{ id: 'a1', type: 'field', field: 'person.displayName', x: 2, y: 0, w: 70, h: 32, fontSize: 28, bold: true }]);
const nametag = (extra: Record<string, unknown> = {}) => ({ name: 'Name tag', labelType: 'nametag', width: 3.5, height: 1.1, content: BLOCKS, ...extra });
const save = (token: string, body: unknown) => call(t.app, 'POST', '/attendance/labeltemplates', { token, body });
const list = async (token: string) => (await call(t.app, 'GET', '/attendance/labeltemplates', { token })).json();

describe('access', () => {
  it('guards every route: kiosks read with the check-in right, only Attendance.Edit changes', async () => {
    const c = makeChurch();
    await expectGuarded(t.app, { method: 'GET', url: '/attendance/labeltemplates', permission: 'Attendance.View or Attendance.Edit or Attendance.Checkin' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/attendance/labeltemplates/${ID}`, permission: 'Attendance.View or Attendance.Edit or Attendance.Checkin' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/attendance/labeltemplates', body: nametag(), permission: 'Attendance.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/attendance/labeltemplates/${ID}`, permission: 'Attendance.Edit' }, c.churchId);
    expect((await call(t.app, 'GET', '/attendance/labeltemplates', { token: c.token(['Attendance.Checkin']) })).statusCode).toBe(200);
    const refused = await save(c.token(['Attendance.View', 'Attendance.Checkin']), nametag());
    expect(refused.statusCode).toBe(401);
    expect(typeof refused.json().errors[0]).toBe('string');
    expect(await t.app.db.select().from(labelTemplates).where(eq(labelTemplates.churchId, c.churchId))).toEqual([]);
  });
});

describe('POST /attendance/labeltemplates', () => {
  it('creates and updates in one batch, answering the saved templates in input order', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.Edit']);
    const created = await save(token, [nametag(), { name: 'Pickup', labelType: 'pickup', width: 4, height: 2 }]);
    expect(created.statusCode).toBe(200);
    const [tag, pickup] = created.json();
    expect(tag).toEqual({ id: expect.any(String), churchId: c.churchId, name: 'Name tag', labelType: 'nametag', width: 3.5, height: 1.1, isDefault: false, content: BLOCKS });
    expect(pickup).toEqual({ id: expect.any(String), churchId: c.churchId, name: 'Pickup', labelType: 'pickup', width: 4, height: 2, isDefault: false, content: '[]' });

    const updated = await save(token, { id: tag.id, name: 'Kids tag', width: 2.25 });
    expect(updated.json()).toEqual([{ ...tag, name: 'Kids tag', width: 2.25 }]);
    expect(await list(c.token(['Attendance.View']))).toEqual([{ ...tag, name: 'Kids tag', width: 2.25 }, pickup]);
    expect((await call(t.app, 'GET', `/attendance/labeltemplates/${tag.id}`, { token: c.token(['Attendance.Checkin']) })).json()).toEqual({ ...tag, name: 'Kids tag', width: 2.25 });
  });

  it('keeps one default per label type: a new default takes it from the other template of its type only', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.Edit']);
    const [a, b, p] = (await save(token, [nametag({ name: 'A', isDefault: true }), nametag({ name: 'B' }), { name: 'P', labelType: 'pickup', width: 3.5, height: 1.1, isDefault: 1 }])).json();
    expect([a.isDefault, b.isDefault, p.isDefault]).toEqual([true, false, true]);
    // the list's "set default": the record as read, isDefault true
    const res = await save(token, [{ ...b, isDefault: true }]);
    expect(res.statusCode).toBe(200);
    expect(res.json()[0].isDefault).toBe(true);
    const byName = Object.fromEntries((await list(token)).map((x: { name: string; isDefault: boolean }) => [x.name, x.isDefault]));
    expect(byName).toEqual({ A: false, B: true, P: true });
    // a default moved to another type takes that type's default
    await save(token, { id: b.id, labelType: 'pickup' });
    const after = Object.fromEntries((await list(token)).map((x: { name: string; isDefault: boolean; labelType: string }) => [x.name, [x.labelType, x.isDefault]]));
    expect(after).toEqual({ A: ['nametag', false], B: ['pickup', true], P: ['pickup', false] });
  });

  it('ends with one default when several saves make defaults of one type at once', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.Edit']);
    const saved = (await save(token, [1, 2, 3, 4].map((n) => nametag({ name: `T${n}` })))).json();
    const answers = await Promise.all(saved.map((x: object) => save(token, { ...x, isDefault: true })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect((await list(token)).filter((x: { isDefault: boolean }) => x.isDefault)).toHaveLength(1);
  });

  it('answers 400 naming the field, and writes nothing', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.Edit']);
    const missing = await save(token, [nametag(), { labelType: 'nametag' }]);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([
      { msg: 'name is required', param: '[1].name', location: 'body' },
      { msg: 'width is required', param: '[1].width', location: 'body' },
      { msg: 'height is required', param: '[1].height', location: 'body' },
    ]);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ labelType: 'badge' }, 'labelType', 'must be nametag or pickup'],
      [{ width: 0 }, 'width', 'must be more than 0'],
      [{ height: 120 }, 'height', 'must be at most 99.99 inches'],
      [{ content: '{"blocks":[]}' }, 'content', 'must be a JSON array of label blocks'],
      [{ content: 'not json' }, 'content', 'must be a JSON array of label blocks'],
      [{ name: '' }, 'name', 'name is required'],
    ];
    for (const [extra, param, msg] of cases) {
      const res = await save(token, nametag(extra));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toEqual({ msg, param, location: 'body' });
    }
    expect(await t.app.db.select().from(labelTemplates).where(eq(labelTemplates.churchId, c.churchId))).toEqual([]);
  });

  it("cannot change another church's template, nor take its default", async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [mine] = (await save(a.token(['Attendance.Edit']), nametag({ isDefault: true }))).json();
    const stolen = await save(b.token(['Attendance.Edit']), { ...mine, name: 'Stolen' });
    expect(stolen.statusCode).toBe(404);
    expect(stolen.json()).toEqual({ errors: ['Label template not found'] });
    const [theirs] = (await save(b.token(['Attendance.Edit']), nametag({ isDefault: true }))).json();
    expect(theirs.isDefault).toBe(true);
    expect(await list(a.token(['Attendance.View']))).toEqual([mine]);
    expect((await call(t.app, 'GET', `/attendance/labeltemplates/${mine.id}`, { token: b.token(['Attendance.View']) })).statusCode).toBe(404);
  });
});

describe('DELETE /attendance/labeltemplates/:id', () => {
  it('deletes the template; another church gets 404 and nothing goes', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [tag] = (await save(a.token(['Attendance.Edit']), nametag())).json();
    const foreign = await call(t.app, 'DELETE', `/attendance/labeltemplates/${tag.id}`, { token: b.token(['Attendance.Edit']) });
    expect(foreign.statusCode).toBe(404);
    expect(await t.app.db.select().from(labelTemplates).where(eq(labelTemplates.id, tag.id))).toHaveLength(1);
    const res = await call(t.app, 'DELETE', `/attendance/labeltemplates/${tag.id}`, { token: a.token(['Attendance.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(await t.app.db.select().from(labelTemplates).where(eq(labelTemplates.id, tag.id))).toEqual([]);
    expect(await list(a.token(['Attendance.View']))).toEqual([]);
  });
});
