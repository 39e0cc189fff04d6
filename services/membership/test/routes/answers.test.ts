import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { answers, formSubmissions, forms, questions } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

/** A form with two questions and one submission answering the second one. */
async function scene() {
  const c = await makeChurch(t);
  const formId = randomUUID();
  await t.app.db.insert(forms).values({ id: formId, churchId: c.churchId, name: 'Survey' });
  const [q1, q2] = [randomUUID(), randomUUID()];
  await t.app.db.insert(questions).values([
    { id: q1, churchId: c.churchId, formId, title: 'First', sort: 1 },
    { id: q2, churchId: c.churchId, formId, title: 'Second', sort: 2 },
  ]);
  const submissionId = randomUUID();
  await t.app.db.insert(formSubmissions).values({ id: submissionId, churchId: c.churchId, formId });
  const answerId = randomUUID();
  await t.app.db.insert(answers).values({ id: answerId, churchId: c.churchId, formSubmissionId: submissionId, questionId: q2, value: 'two' });
  return { c, formId, q1, q2, submissionId, answerId };
}

describe('GET /membership/answers', () => {
  it('lists the answers of a submission; formSubmissionId is required', async () => {
    const { c, q2, submissionId, answerId } = await scene();
    const token = c.token(['Forms.Edit']);
    const res = await call(t.app, 'GET', `/membership/answers?formSubmissionId=${submissionId}`, { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: answerId, churchId: c.churchId, formSubmissionId: submissionId, questionId: q2, value: 'two' }]);
    const missing = await call(t.app, 'GET', '/membership/answers', { token });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ param: 'formSubmissionId', location: 'query' });
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/answers?formSubmissionId=${submissionId}`, { token: other.token(['Forms.Admin']) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/answers?formSubmissionId=${submissionId}`, permission: 'Forms.Edit' }, c.churchId);
  });
});

describe('POST /membership/answers', () => {
  it('adds and updates answers, in question order', async () => {
    const { c, q1, submissionId, answerId } = await scene();
    const token = c.token(['Forms.Admin']);
    const res = await call(t.app, 'POST', '/membership/answers', {
      token,
      body: [{ formSubmissionId: submissionId, questionId: q1, value: 'one' }, { id: answerId, formSubmissionId: submissionId, questionId: (await scene()).q2, value: 'x' }],
    });
    // the second item names a question of another form: the whole batch fails
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('questionId');
    expect(await t.app.db.select().from(answers).where(eq(answers.formSubmissionId, submissionId))).toHaveLength(1);
    const ok = await call(t.app, 'POST', '/membership/answers', { token, body: { formSubmissionId: submissionId, questionId: q1, value: 'one' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()[0]).toMatchObject({ formSubmissionId: submissionId, questionId: q1, value: 'one' });
    const list = await call(t.app, 'GET', `/membership/answers?formSubmissionId=${submissionId}`, { token });
    expect(list.json().map((a: { value: string }) => a.value)).toEqual(['one', 'two']);
  });

  it("another church's submission or answer is a 404 and nothing is written", async () => {
    const { submissionId, answerId, q1, q2 } = await scene();
    const other = await makeChurch(t);
    const token = other.token(['Forms.Admin']);
    expect((await call(t.app, 'POST', '/membership/answers', { token, body: { formSubmissionId: submissionId, questionId: q1, value: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/answers', { token, body: { id: answerId, formSubmissionId: submissionId, questionId: q2, value: 'x' } })).statusCode).toBe(404);
    const [row] = await t.app.db.select().from(answers).where(eq(answers.id, answerId));
    expect(row!.value).toBe('two');
    expect(await t.app.db.select().from(answers).where(eq(answers.churchId, other.churchId))).toEqual([]);
  });

  it('validates and is guarded', async () => {
    const { c, submissionId } = await scene();
    const res = await call(t.app, 'POST', '/membership/answers', { token: c.token(['Forms.Admin']), body: [{ formSubmissionId: submissionId, value: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].questionId');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/answers', body: { formSubmissionId: submissionId, questionId: randomUUID() }, permission: 'Forms.Edit' }, c.churchId);
  });
});
