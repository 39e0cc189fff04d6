import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { memberPermissions, questions } from '../../src/db/schema';
import { addForm } from './fixtures';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

async function addQuestions(token: string, formId: string, titles: string[]) {
  const res = await call(t.app, 'POST', '/membership/questions', { token, body: titles.map((title) => ({ formId, title })) });
  expect(res.statusCode).toBe(200);
  return res.json() as Array<{ id: string; title: string; sort: number }>;
}
const titles = (res: { json(): Array<{ title: string }> }) => res.json().map((q) => q.title);

describe('POST /membership/questions', () => {
  it('assigns sort automatically, continuing after the highest', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const token = c.token(['Forms.Admin']);
    const first = await addQuestions(token, f, ['Name', 'Email']);
    expect(first.map((q) => q.sort)).toEqual([1, 2]);
    const res = await call(t.app, 'POST', '/membership/questions', {
      token,
      body: { formId: f, title: 'Shirt size', fieldType: 'Multiple Choice', required: true, choices: [{ value: 'S', text: 'Small' }] },
    });
    expect(res.json()).toEqual([
      {
        id: expect.any(String),
        churchId: c.churchId,
        formId: f,
        parentId: null,
        title: 'Shirt size',
        description: null,
        fieldType: 'Multiple Choice',
        placeholder: null,
        sort: 3,
        choices: [{ value: 'S', text: 'Small' }],
        required: true,
      },
    ]);
    const updated = await call(t.app, 'POST', '/membership/questions', { token, body: { id: first[0]!.id, formId: f, title: 'Full name' } });
    expect(updated.json()[0]).toMatchObject({ title: 'Full name', sort: 1 });
  });

  it('needs Form access on the form; other churches get 404 and nothing is written', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    expect((await call(t.app, 'POST', '/membership/questions', { token: c.token(['Forms.Edit']), body: { formId: f, title: 'x' } })).statusCode).toBe(401);
    await t.app.db.insert(memberPermissions).values({ id: randomUUID(), churchId: c.churchId, memberId: c.personId, contentId: f, action: 'admin' });
    expect((await call(t.app, 'POST', '/membership/questions', { token: c.token(), body: { formId: f, title: 'x' } })).statusCode).toBe(200);
    const other = await makeChurch(t);
    expect((await call(t.app, 'POST', '/membership/questions', { token: other.token(['Forms.Admin']), body: { formId: f, title: 'y' } })).statusCode).toBe(404);
    expect(await t.app.db.select().from(questions).where(eq(questions.churchId, other.churchId))).toEqual([]);
  });

  it('validates and is guarded', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/questions', { token: c.token(['Forms.Admin']), body: { title: 'No form' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('formId');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/questions', body: { formId: await addForm(t, c.churchId), title: 'x' }, permission: 'Form access' }, c.churchId);
  });
});

describe('GET /membership/questions, /:id', () => {
  it('lists a form’s questions in order; formId is required', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const token = c.token(['Forms.Admin']);
    const [q1] = await addQuestions(token, f, ['One', 'Two']);
    expect(titles(await call(t.app, 'GET', `/membership/questions?formId=${f}`, { token }))).toEqual(['One', 'Two']);
    const missing = await call(t.app, 'GET', '/membership/questions', { token });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ param: 'formId', location: 'query' });
    expect((await call(t.app, 'GET', `/membership/questions/${q1!.id}`, { token })).json()).toMatchObject({ id: q1!.id, title: 'One' });
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/questions?formId=${f}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/questions/${q1!.id}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/questions/${q1!.id}`, { token: c.token(['Forms.Edit']) })).statusCode).toBe(401);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/questions?formId=${f}`, permission: 'Form access' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/questions/${q1!.id}`, permission: 'Form access' }, c.churchId);
  });

  it('/unrestricted serves questions of unrestricted forms to any church, restricted ones to their own', async () => {
    const c = await makeChurch(t);
    const open = await addForm(t, c.churchId);
    const closed = await addForm(t, c.churchId, { restricted: true });
    await addQuestions(c.token(['Forms.Admin']), open, ['Open Q']);
    await addQuestions(c.token(['Forms.Admin']), closed, ['Closed Q']);
    const visitor = await makeChurch(t);
    expect(titles(await call(t.app, 'GET', `/membership/questions/unrestricted?formId=${open}`, { token: visitor.token() }))).toEqual(['Open Q']);
    expect((await call(t.app, 'GET', `/membership/questions/unrestricted?formId=${closed}`, { token: visitor.token() })).statusCode).toBe(401);
    expect(titles(await call(t.app, 'GET', `/membership/questions/unrestricted?formId=${closed}`, { token: c.token() }))).toEqual(['Closed Q']);
    expect((await call(t.app, 'GET', '/membership/questions/unrestricted', { token: c.token() })).statusCode).toBe(400);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/questions/unrestricted?formId=${open}` }, c.churchId);
  });
});

describe('GET /membership/questions/sort/:id/up|down', () => {
  it('swaps a question with its neighbour', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const token = c.token(['Forms.Admin']);
    const [a, b, d] = await addQuestions(token, f, ['A', 'B', 'C']);
    const up = await call(t.app, 'GET', `/membership/questions/sort/${d!.id}/up`, { token });
    expect(up.statusCode).toBe(200);
    expect(up.json().map((q: { title: string; sort: number }) => [q.title, q.sort])).toEqual([['A', 1], ['C', 2], ['B', 3]]);
    await call(t.app, 'GET', `/membership/questions/sort/${a!.id}/down`, { token });
    await call(t.app, 'GET', `/membership/questions/sort/${a!.id}/down`, { token });
    await call(t.app, 'GET', `/membership/questions/sort/${a!.id}/down`, { token }); // already last: no change
    const rows = await t.app.db.select().from(questions).where(eq(questions.formId, f)).orderBy(asc(questions.sort));
    expect(rows.map((r) => r.title)).toEqual(['C', 'B', 'A']);
    expect(b).toBeDefined();
  });

  it('takes moves of one form in turn: twenty at once all succeed and leave each question once in the order', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const token = c.token(['Forms.Admin']);
    const added = await addQuestions(token, f, ['A', 'B', 'C', 'D', 'E', 'F']);
    const moves = Array.from({ length: 20 }, (_, i) => call(t.app, 'GET', `/membership/questions/sort/${added[i % 6]!.id}/${i % 2 ? 'up' : 'down'}`, { token }));
    expect((await Promise.all(moves)).map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const rows = await t.app.db.select().from(questions).where(eq(questions.formId, f)).orderBy(asc(questions.sort));
    expect(rows.map((r) => r.sort)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.map((r) => r.title).sort()).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
  });

  it('changing the order needs Form access; another church gets 404', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const [, q2] = await addQuestions(c.token(['Forms.Admin']), f, ['A', 'B']);
    expect((await call(t.app, 'GET', `/membership/questions/sort/${q2!.id}/up`, { token: c.token() })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/questions/sort/${q2!.id}/up`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    const rows = await t.app.db.select().from(questions).where(eq(questions.formId, f)).orderBy(asc(questions.sort));
    expect(rows.map((r) => r.title)).toEqual(['A', 'B']);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/questions/sort/${q2!.id}/down` }, c.churchId);
  });
});

describe('DELETE /membership/questions/:id', () => {
  it('removes the question from its form', async () => {
    const c = await makeChurch(t);
    const f = await addForm(t, c.churchId);
    const token = c.token(['Forms.Admin']);
    const [q1, q2] = await addQuestions(token, f, ['A', 'B']);
    expect((await call(t.app, 'DELETE', `/membership/questions/${q1!.id}?formId=${randomUUID()}`, { token })).statusCode).toBe(404);
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/questions/${q1!.id}?formId=${f}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/questions/${q1!.id}?formId=${f}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/questions?formId=${f}`, { token })).json().map((q: { id: string }) => q.id)).toEqual([q2!.id]);
    const next = await addQuestions(token, f, ['C']);
    expect(next[0]!.sort).toBe(3);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/questions/${q2!.id}?formId=${f}`, permission: 'Form access' }, c.churchId);
  });
});
