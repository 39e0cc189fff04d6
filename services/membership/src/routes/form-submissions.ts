import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, Id, IdParams, actorOf, batchOf, itemParam, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { formAccess, requireFormAccess } from '../domain/form-access';
import { submitForms } from '../domain/form-submit';
import { sameSubmissions, submissionsWithAnswers } from '../domain/forms';
import { deleteSubmission, findForm, findSubmission, listAnswers, listQuestions, listSubmissions } from '../repos/forms';
import { Submission, SubmissionList, SubmissionSave } from '../schemas/forms';
import { Include } from '../schemas/form-submissions';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/formsubmissions';
  const editors = requires('Forms.Admin or Forms.Edit');

  app.get(
    base,
    { config: { access: editors }, schema: { querystring: z.object({ personId: Id.optional(), formId: Id.optional() }), response: { 200: SubmissionList } } },
    (req) => listSubmissions(app.db, req.auth.churchId, req.query),
  );

  app.get(
    `${base}/formId/:formId`,
    { config: { access: formAccess }, schema: { params: z.object({ formId: Id }), response: { 200: SubmissionList } } },
    // Every submission repeats the form and its questions (the apps read them there), so the answer is large (80
    // submissions of 6 questions: 300 KB) and alike from one read to the next: it is sent from a kept compressed
    // body while what was read is the same (submissions are not under the church's data version).
    async (req, reply) => {
      const churchId = req.auth.churchId;
      const form = await requireFormAccess(app.db, req.auth, req.params.formId, 'view');
      const [submissions, questions] = await Promise.all([listSubmissions(app.db, churchId, { formId: form.id }), listQuestions(app.db, churchId, form.id)]);
      const answers = await listAnswers(app.db, churchId, submissions.map((s) => s.id));
      return app.deps.snapshots.sendKept(req, reply, `${churchId}\n${form.id}`, submissionsWithAnswers(form, questions, submissions, answers), sameSubmissions);
    },
  );

  app.get(
    `${base}/:id`,
    { config: { access: editors }, schema: { params: IdParams, querystring: z.object({ include: Include }), response: { 200: Submission } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const submission = await findSubmission(app.db, churchId, req.params.id);
      if (!submission) throw notFound('Form submission');
      const include = req.query.include;
      return {
        ...submission,
        ...(include.has('form') ? { form: await findForm(app.db, churchId, submission.formId) } : {}),
        ...(include.has('questions') ? { questions: await listQuestions(app.db, churchId, submission.formId) } : {}),
        ...(include.has('answers') ? { answers: await listAnswers(app.db, churchId, [submission.id]) } : {}),
      };
    },
  );

  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SubmissionSave), response: { 200: SubmissionList } } }, (req) =>
    submitForms(app.deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  app.delete(`${base}/:id`, { config: { access: editors }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      if (!(await deleteSubmission(tx, req.auth.churchId, req.params.id))) throw notFound('Form submission');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'formSubmission', entityId: req.params.id, action: 'destroyed' }], { req, tx });
    });
    return {};
  });
}
