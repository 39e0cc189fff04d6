import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Empty, Id, IdParams, batchOf, checkReferences, notFound, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { questions } from '../db/schema';
import { formAccess, requireFormAccess } from '../domain/form-access';
import { deleteQuestion, moveQuestion, saveQuestions } from '../domain/forms';
import { findFormAnyChurch, findQuestion, listQuestions } from '../repos/forms';
import { Question, QuestionList, QuestionSave } from '../schemas/forms';
import { FormQuery } from '../schemas/questions';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/questions';

  app.get(base, { config: { access: formAccess }, schema: { querystring: FormQuery, response: { 200: QuestionList } } }, async (req) => {
    await requireFormAccess(app.db, req.auth, req.query.formId, 'view');
    return listQuestions(app.db, req.auth.churchId, req.query.formId);
  });

  // What a sign-up page asks: any signed-in caller may read an unrestricted form's questions, whatever its church.
  app.get(
    `${base}/unrestricted`,
    { config: { access: anyUser }, schema: { querystring: FormQuery, response: { 200: QuestionList } } },
    async (req) => {
      const form = await findFormAnyChurch(app.db, req.query.formId);
      if (!form || (form.churchId !== req.auth.churchId && form.contentType !== 'form')) throw notFound('Form');
      if (form.restricted && form.churchId !== req.auth.churchId) throw unauthorized('This form is restricted to people of its church');
      return listQuestions(app.db, form.churchId, form.id);
    },
  );

  for (const direction of ['up', 'down'] as const) {
    app.get(
      `${base}/sort/:id/${direction}`,
      { config: { access: anyUser }, schema: { params: IdParams, response: { 200: QuestionList } } },
      (req) => moveQuestion(app.db, req.auth, req.params.id, direction),
    );
  }

  app.get(`${base}/:id`, { config: { access: formAccess }, schema: { params: IdParams, response: { 200: Question } } }, async (req) => {
    const question = await findQuestion(app.db, req.auth.churchId, req.params.id);
    if (!question) throw notFound('Question');
    await requireFormAccess(app.db, req.auth, question.formId, 'view');
    return question;
  });

  // A sub-question's parent is a (live) question of the church.
  app.post(base, { config: { access: formAccess }, schema: { body: batchOf(QuestionSave), response: { 200: QuestionList } } }, async (req) => {
    await checkReferences(req, req.body, { parentId: questions });
    return saveQuestions(app.db, req.auth, req.body, { deps: app.deps, actor: actorOf(req) });
  });

  app.delete(
    `${base}/:id`,
    { config: { access: formAccess }, schema: { params: IdParams, querystring: z.object({ formId: Id.optional() }), response: { 200: Empty } } },
    async (req) => {
      await deleteQuestion(app.db, req.auth, req.params.id, req.query.formId, { deps: app.deps, actor: actorOf(req) });
      return {};
    },
  );
}
