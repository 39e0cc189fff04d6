import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded, readMailbox } from '@church/common/testing';
import { answers, formSubmissions, forms, households, memberPermissions, people, questions } from '../../src/db/schema';
import { addForm } from './fixtures';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

type Church = Awaited<ReturnType<typeof makeChurch>>;

/** A form named "Connect Card" (its name shows in the emails and answers checked below). */
const form = (churchId: string, values: Partial<typeof forms.$inferInsert> = {}) => addForm(t, churchId, { name: 'Connect Card', ...values });
async function question(churchId: string, formId: string, title: string, sort: number, extra: Partial<typeof questions.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(questions).values({ id, churchId, formId, title, sort, ...extra });
  return id;
}
async function person(churchId: string, firstName: string, email: string) {
  const id = randomUUID();
  await t.app.db.insert(people).values({ id, churchId, firstName, lastName: 'Watcher', displayName: `${firstName} Watcher`, email });
  return id;
}
/** A connect card: first name, last name, email, a comment (required). */
async function connectCard(c: Church, values: Partial<typeof forms.$inferInsert> = {}) {
  const formId = await form(c.churchId, values);
  const q = {
    first: await question(c.churchId, formId, 'First Name', 1),
    last: await question(c.churchId, formId, 'Last Name', 2),
    email: await question(c.churchId, formId, 'Email', 3, { fieldType: 'Email' }),
    comment: await question(c.churchId, formId, 'Prayer request', 4, { fieldType: 'TextArea', required: true }),
  };
  return { formId, q };
}
function mailTo(address: string) {
  return readMailbox(t.config).filter((m) => m.to === address);
}

describe('POST /membership/formsubmissions', () => {
  it('stores the submission and its answers', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c);
    const res = await call(t.app, 'POST', '/membership/formsubmissions', {
      token: c.token(),
      body: { formId, answers: [{ questionId: q.first, value: 'Ann' }, { questionId: q.comment, value: 'Healing' }] },
    });
    expect(res.statusCode).toBe(200);
    const [s] = res.json();
    expect(s).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      formId,
      contentType: 'form',
      contentId: formId,
      submittedBy: c.personId,
      submissionDate: expect.any(String),
      revisionDate: null,
      answers: [
        { id: expect.any(String), churchId: c.churchId, formSubmissionId: s.id, questionId: q.first, value: 'Ann' },
        { id: expect.any(String), churchId: c.churchId, formSubmissionId: s.id, questionId: q.comment, value: 'Healing' },
      ],
    });
    const rows = await t.app.db.select().from(answers).where(eq(answers.formSubmissionId, s.id));
    expect(rows.map((r) => r.value).sort()).toEqual(['Ann', 'Healing']);
  });

  it('autoCreatePerson creates a Guest by the Email answer, then finds the same person again', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c, { autoCreatePerson: true });
    const body = {
      formId,
      answers: [
        { questionId: q.first, value: 'Gina' },
        { questionId: q.last, value: 'Guest' },
        { questionId: q.email, value: 'Gina@Example.test' },
        { questionId: q.comment, value: 'Hi' },
      ],
    };
    const first = (await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body })).json()[0];
    const created = await t.app.db.select().from(people).where(eq(people.email, 'gina@example.test'));
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ churchId: c.churchId, firstName: 'Gina', lastName: 'Guest', displayName: 'Gina Guest', membershipStatus: 'Guest' });
    expect(first).toMatchObject({ contentType: 'person', contentId: created[0]!.id });
    const second = (await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body })).json()[0];
    expect(second.contentId).toBe(created[0]!.id);
    expect(await t.app.db.select().from(people).where(eq(people.email, 'gina@example.test'))).toHaveLength(1);
  });

  it('autoCreatePerson creates the guest as other guests are made: a household named after them, missing names null', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c, { autoCreatePerson: true });
    const submit = (email: string, names: { first?: string; last?: string } = {}) =>
      call(t.app, 'POST', '/membership/formsubmissions', {
        token: c.token(),
        body: {
          formId,
          answers: [
            ...(names.first ? [{ questionId: q.first, value: names.first }] : []),
            ...(names.last ? [{ questionId: q.last, value: names.last }] : []),
            { questionId: q.email, value: email },
            { questionId: q.comment, value: 'Hi' },
          ],
        },
      });
    const created = async (email: string) => {
      const [row] = await t.app.db.select().from(people).where(eq(people.email, email));
      const [household] = await t.app.db.select().from(households).where(eq(households.id, row!.householdId!));
      return { ...row!, household };
    };
    expect((await submit('lee@example.test', { first: 'Lee', last: 'Park' })).statusCode).toBe(200);
    expect((await submit('nora@example.test', { first: 'Nora' })).statusCode).toBe(200);
    expect((await submit('anon@example.test')).statusCode).toBe(200);
    const lee = await created('lee@example.test');
    expect(lee).toMatchObject({ firstName: 'Lee', lastName: 'Park', displayName: 'Lee Park', membershipStatus: 'Guest', householdRole: 'Head' });
    expect(lee.household).toMatchObject({ churchId: c.churchId, name: 'Park' });
    const nora = await created('nora@example.test');
    expect(nora).toMatchObject({ firstName: 'Nora', lastName: null, displayName: 'Nora', householdRole: 'Head' });
    expect(nora.household).toMatchObject({ churchId: c.churchId, name: 'Nora' });
    const anon = await created('anon@example.test');
    expect(anon).toMatchObject({ firstName: null, lastName: null, displayName: 'anon@example.test', householdRole: 'Head' });
    expect(anon.household).toMatchObject({ churchId: c.churchId, name: 'anon@example.test' });
  });

  it('autoCreatePerson writes the guest and their household in the batch transaction', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c, { autoCreatePerson: true });
    const ok = { formId, answers: [{ questionId: q.email, value: 'rolled@example.test' }, { questionId: q.comment, value: 'Hi' }] };
    const res = await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body: [ok, { formId, answers: [] }] });
    expect(res.statusCode).toBe(400);
    expect(await t.app.db.select().from(people).where(eq(people.email, 'rolled@example.test'))).toEqual([]);
    expect(await t.app.db.select().from(households).where(eq(households.churchId, c.churchId))).toEqual([]);
  });

  it('autoCreatePerson uses the body email when no question asks for it, and links an existing person', async () => {
    const c = await makeChurch(t);
    const formId = await form(c.churchId, { autoCreatePerson: true });
    const existing = await person(c.churchId, 'Ed', 'ed@example.test');
    const res = await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body: { formId, email: 'ED@example.test', answers: [] } });
    expect(res.json()[0]).toMatchObject({ contentType: 'person', contentId: existing });
  });

  it('emails every watcher with emailNotification, and sends the merged follow-up to the submitter', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c, {
      autoCreatePerson: true,
      followUpSubject: 'Thanks {{firstName}} for the {{formName}}',
      followUpBody: '<p>Dear {{ firstName }} {{lastName}},</p><p>You asked: {{answer:prayer request}}</p>{{unknown}}',
    });
    const watcher = await person(c.churchId, 'Wendy', 'wendy@example.test');
    const quiet = await person(c.churchId, 'Quinn', 'quinn@example.test');
    await t.app.db.insert(memberPermissions).values([
      { id: randomUUID(), churchId: c.churchId, memberId: watcher, contentId: formId, action: 'admin', emailNotification: true },
      { id: randomUUID(), churchId: c.churchId, memberId: quiet, contentId: formId, action: 'admin', emailNotification: false },
    ]);
    const res = await call(t.app, 'POST', '/membership/formsubmissions', {
      token: c.token(),
      body: {
        formId,
        answers: [
          { questionId: q.first, value: 'Sam' },
          { questionId: q.last, value: 'Smith' },
          { questionId: q.email, value: 'sam@example.test' },
          { questionId: q.comment, value: 'Pray for <my> exam' },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    await t.drain();
    const [notice, ...moreNotices] = mailTo('wendy@example.test');
    expect(moreNotices).toEqual([]);
    expect(notice!.subject).toBe('New submission: Connect Card');
    expect(notice!.html).toContain('<b>Prayer request</b></td><td>Pray for &lt;my&gt; exam</td>');
    expect(mailTo('quinn@example.test')).toEqual([]);
    const [followUp, ...more] = mailTo('sam@example.test');
    expect(more).toEqual([]);
    expect(followUp!.subject).toBe('Thanks Sam for the Connect Card');
    expect(followUp!.html).toBe('<p>Dear Sam Smith,</p><p>You asked: Pray for &lt;my&gt; exam</p>');
  });

  it('attaches a submission to someone else only for Forms.Admin, Forms.Edit or People.Edit; otherwise nothing is written or mailed', async () => {
    const c = await makeChurch(t);
    const formId = await form(c.churchId, { followUpSubject: 'Thanks', followUpBody: '<p>Thanks</p>' });
    const other = await person(c.churchId, 'Olive', 'olive@example.test');
    const about = (contentId: string) => ({ formId, contentType: 'person', contentId, answers: [] });
    const post = (token: string, body: unknown) => call(t.app, 'POST', '/membership/formsubmissions', { token, body });
    const plain = c.token(['People.Edit Self', 'People.View'], { email: 'plain@example.test' });
    for (const body of [about(other), about(randomUUID()), [{ formId, answers: [] }, about(other)]]) {
      const denied = await post(plain, body);
      expect(denied.statusCode).toBe(401);
      expect(denied.json()).toEqual({ errors: ['Missing permission: Forms.Admin or Forms.Edit or People.Edit'] });
    }
    // Permissions count only in the caller's own church: an editor elsewhere filling in this church's public form.
    const visitor = await makeChurch(t);
    expect((await post(visitor.token(['Forms.Admin', 'People.Edit'], { email: 'visitor@example.test' }), about(other))).statusCode).toBe(401);
    expect(await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.formId, formId))).toEqual([]);

    const editors = [
      ['Forms.Admin', 'admin@example.test'],
      ['Forms.Edit', 'editor@example.test'],
      ['People.Edit', 'people-editor@example.test'],
    ] as const;
    for (const [permission, email] of editors) {
      const res = await post(c.token([permission], { email }), about(other));
      expect(res.statusCode).toBe(200);
      expect(res.json()[0]).toMatchObject({ contentType: 'person', contentId: other, submittedBy: c.personId });
    }
    expect((await post(c.token(['People.Edit']), about(randomUUID()))).statusCode).toBe(404);
    await t.drain();
    // The follow-up goes to the submitter, never to the person the submission is about.
    expect(mailTo('olive@example.test')).toEqual([]);
    expect(mailTo('plain@example.test')).toEqual([]);
    expect(mailTo('visitor@example.test')).toEqual([]);
    for (const [, email] of editors) expect(mailTo(email).map((m) => m.subject)).toEqual(['Thanks']);
  });

  it('attaches a submission to the caller’s own person without a permission; the follow-up goes to their account email', async () => {
    const c = await makeChurch(t);
    await t.app.db.update(people).set({ email: 'own-record@example.test' }).where(eq(people.id, c.personId));
    const formId = await form(c.churchId, { followUpSubject: 'Thanks', followUpBody: '<p>Thanks</p>' });
    const res = await call(t.app, 'POST', '/membership/formsubmissions', {
      token: c.token([], { email: 'own-account@example.test' }),
      body: { formId, contentType: 'person', contentId: c.personId, answers: [] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0]).toMatchObject({ contentType: 'person', contentId: c.personId });
    await t.drain();
    expect(mailTo('own-account@example.test').map((m) => m.subject)).toEqual(['Thanks']);
    expect(mailTo('own-record@example.test')).toEqual([]);
  });

  it('sends no follow-up without both subject and body', async () => {
    const c = await makeChurch(t);
    const formId = await form(c.churchId, { followUpSubject: 'Only a subject' });
    await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token([], { email: 'solo@example.test' }), body: { formId, answers: [] } });
    await t.drain();
    expect(mailTo('solo@example.test')).toEqual([]);
  });

  it('restricted forms take submissions only from their church; unrestricted ones from anyone', async () => {
    const c = await makeChurch(t);
    const visitor = await makeChurch(t);
    const restricted = await form(c.churchId, { restricted: true });
    const open = await form(c.churchId);
    const denied = await call(t.app, 'POST', '/membership/formsubmissions', { token: visitor.token(), body: { formId: restricted, answers: [] } });
    expect(denied.statusCode).toBe(401);
    const ok = await call(t.app, 'POST', '/membership/formsubmissions', { token: visitor.token(), body: { formId: open, answers: [] } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()[0]).toMatchObject({ churchId: c.churchId, submittedBy: null });
    expect(await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.churchId, visitor.churchId))).toEqual([]);
    const rows = await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.formId, restricted));
    expect(rows).toEqual([]);
    const personForm = await form(c.churchId, { contentType: 'person' });
    expect((await call(t.app, 'POST', '/membership/formsubmissions', { token: visitor.token(), body: { formId: personForm, answers: [] } })).statusCode).toBe(404);
  });

  it('validates answers, required questions and the access window; nothing is written', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c);
    const token = c.token();
    const foreignQuestion = await call(t.app, 'POST', '/membership/formsubmissions', {
      token,
      body: { formId, answers: [{ questionId: q.comment, value: 'x' }, { questionId: randomUUID(), value: 'x' }] },
    });
    expect(foreignQuestion.statusCode).toBe(400);
    expect(foreignQuestion.json().errors[0].param).toBe('answers[1].questionId');
    const missingRequired = await call(t.app, 'POST', '/membership/formsubmissions', { token, body: { formId, answers: [{ questionId: q.comment, value: '  ' }] } });
    expect(missingRequired.statusCode).toBe(400);
    expect(missingRequired.json().errors[0]).toMatchObject({ param: 'answers', msg: 'Prayer request is required' });
    const badBody = await call(t.app, 'POST', '/membership/formsubmissions', { token, body: { answers: [] } });
    expect(badBody.json().errors[0].param).toBe('formId');
    const closed = await form(c.churchId, { accessEndTime: new Date(Date.now() - 1000) });
    const late = await call(t.app, 'POST', '/membership/formsubmissions', { token, body: { formId: closed, answers: [] } });
    expect(late.statusCode).toBe(400);
    expect(late.json().errors[0].param).toBe('formId');
    expect(await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.churchId, c.churchId))).toEqual([]);
    expect((await call(t.app, 'POST', '/membership/formsubmissions', { token, body: { formId: randomUUID(), answers: [] } })).statusCode).toBe(404);
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/formsubmissions', body: { formId: randomUUID(), answers: [] } }, c.churchId);
  });
});

describe('GET /membership/formsubmissions', () => {
  async function submitted(c: Church) {
    const { formId, q } = await connectCard(c, { autoCreatePerson: true });
    const body = { formId, answers: [{ questionId: q.email, value: 'pat@example.test' }, { questionId: q.comment, value: 'Note' }] };
    const [s] = (await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body })).json();
    return { formId, q, s };
  }

  it('lists by formId or personId', async () => {
    const c = await makeChurch(t);
    const { formId, s } = await submitted(c);
    const token = c.token(['Forms.Edit']);
    const byForm = await call(t.app, 'GET', `/membership/formsubmissions?formId=${formId}`, { token });
    expect(byForm.json().map((x: { id: string }) => x.id)).toEqual([s.id]);
    const byPerson = await call(t.app, 'GET', `/membership/formsubmissions?personId=${s.contentId}`, { token });
    expect(byPerson.json().map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect((await call(t.app, 'GET', `/membership/formsubmissions?personId=${randomUUID()}`, { token })).json()).toEqual([]);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/formsubmissions?formId=${formId}`, { token: other.token(['Forms.Admin']) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/formsubmissions', permission: 'Forms.Edit' }, c.churchId);
  });

  it('/:id includes form, questions and answers on request', async () => {
    const c = await makeChurch(t);
    const { formId, s } = await submitted(c);
    const token = c.token(['Forms.Admin']);
    const plain = (await call(t.app, 'GET', `/membership/formsubmissions/${s.id}`, { token })).json();
    expect(plain.form).toBeUndefined();
    expect(plain.answers).toBeUndefined();
    const full = (await call(t.app, 'GET', `/membership/formsubmissions/${s.id}?include=form,questions,answers`, { token })).json();
    expect(full.form).toMatchObject({ id: formId, name: 'Connect Card' });
    expect(full.questions.map((q: { title: string }) => q.title)).toEqual(['First Name', 'Last Name', 'Email', 'Prayer request']);
    expect(full.answers.map((a: { value: string }) => a.value)).toEqual(['pat@example.test', 'Note']);
    expect((await call(t.app, 'GET', `/membership/formsubmissions/${s.id}?include=bogus`, { token })).statusCode).toBe(400);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/formsubmissions/${s.id}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/formsubmissions/${s.id}`, permission: 'Forms.Edit' }, c.churchId);
  });

  it('/formId/:formId answers every submission with form, questions and answers (Form access)', async () => {
    const c = await makeChurch(t);
    const { formId, s } = await submitted(c);
    const res = await call(t.app, 'GET', `/membership/formsubmissions/formId/${formId}`, { token: c.token(['Forms.Admin']) });
    expect(res.statusCode).toBe(200);
    const [only, ...rest] = res.json();
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ id: s.id, form: { id: formId }, questions: expect.any(Array), answers: expect.any(Array) });
    expect(only.answers).toHaveLength(2);
    expect((await call(t.app, 'GET', `/membership/formsubmissions/formId/${formId}`, { token: c.token(['Forms.Edit']) })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/formsubmissions/formId/${formId}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/formsubmissions/formId/${formId}`, permission: 'Form access' }, c.churchId);
  });
});

describe('GET /membership/formsubmissions/formId/:formId, sent again from a kept body', () => {
  it('answers the whole shape, 304 for a repeat, and anew after any submission, answer, question or form change', async () => {
    const c = await makeChurch(t);
    const { formId, q } = await connectCard(c, { autoCreatePerson: true });
    const submit = async (email: string) =>
      (await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body: { formId, answers: [{ questionId: q.email, value: email }, { questionId: q.comment, value: 'Note' }] } })).json()[0];
    const s1 = await submit('pat@example.test');
    const token = c.token(['Forms.Admin']);
    const get = (headers: Record<string, string> = {}) => call(t.app, 'GET', `/membership/formsubmissions/formId/${formId}`, { token, headers });
    const first = await get();
    expect(first.statusCode).toBe(200);
    const [only] = first.json();
    expect(Object.keys(only)).toEqual(['id', 'churchId', 'formId', 'contentType', 'contentId', 'submittedBy', 'submissionDate', 'revisionDate', 'form', 'questions', 'answers']);
    expect(only).toMatchObject({ id: s1.id, churchId: c.churchId, formId, contentType: 'person', submissionDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(only.form).toMatchObject({ id: formId, name: 'Connect Card', contentType: 'form', restricted: false });
    expect(only.questions.map((x: { title: string }) => x.title)).toEqual(['First Name', 'Last Name', 'Email', 'Prayer request']);
    expect(only.answers).toEqual([
      { id: expect.any(String), churchId: c.churchId, formSubmissionId: s1.id, questionId: q.email, value: 'pat@example.test' },
      { id: expect.any(String), churchId: c.churchId, formSubmissionId: s1.id, questionId: q.comment, value: 'Note' },
    ]);
    const etag = first.headers.etag as string;
    expect((await get({ 'if-none-match': etag })).statusCode).toBe(304);

    await t.app.db.update(answers).set({ value: 'Changed' }).where(eq(answers.questionId, q.comment));
    const changed = await get({ 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()[0].answers[1].value).toBe('Changed');
    await t.app.db.update(questions).set({ title: 'Prayer' }).where(eq(questions.id, q.comment));
    expect((await get()).json()[0].questions[3].title).toBe('Prayer');
    await t.app.db.update(forms).set({ name: 'Welcome Card' }).where(eq(forms.id, formId));
    expect((await get()).json()[0].form.name).toBe('Welcome Card');
    const s2 = await submit('sam@example.test');
    const both = (await get()).json();
    expect(both.map((x: { id: string }) => x.id).sort()).toEqual([s1.id, s2.id].sort());
    expect(both.every((x: { form: { name: string } }) => x.form.name === 'Welcome Card')).toBe(true);
    // another church's token never reads the kept body
    expect((await call(t.app, 'GET', `/membership/formsubmissions/formId/${formId}`, { token: (await makeChurch(t)).token(['Forms.Admin']) })).statusCode).toBe(404);
  });
});

describe('DELETE /membership/formsubmissions/:id', () => {
  it('deletes the submission and its answers; another church gets 404', async () => {
    const c = await makeChurch(t);
    const formId = await form(c.churchId);
    const qid = await question(c.churchId, formId, 'Q', 1);
    const [s] = (await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token(), body: { formId, answers: [{ questionId: qid, value: 'A' }] } })).json();
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/formsubmissions/${s.id}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(answers).where(eq(answers.formSubmissionId, s.id))).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/membership/formsubmissions/${s.id}`, { token: c.token(['Forms.Edit']) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(answers).where(eq(answers.formSubmissionId, s.id))).toEqual([]);
    expect(await t.app.db.select().from(formSubmissions).where(eq(formSubmissions.id, s.id))).toEqual([]);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/formsubmissions/${s.id}`, permission: 'Forms.Edit' }, c.churchId);
  });
});
