import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, batchOf, type ZodTypeProvider } from '@church/common';
import { saveAnswers } from '../domain/forms';
import { listAnswers } from '../repos/forms';
import { AnswerList, AnswerSave } from '../schemas/forms';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/answers';
  const editors = requires('Forms.Admin or Forms.Edit');

  app.get(
    base,
    { config: { access: editors }, schema: { querystring: z.object({ formSubmissionId: Id }), response: { 200: AnswerList } } },
    (req) => listAnswers(app.db, req.auth.churchId, [req.query.formSubmissionId]),
  );

  app.post(base, { config: { access: editors }, schema: { body: batchOf(AnswerSave), response: { 200: AnswerList } } }, (req) =>
    saveAnswers(app.db, req.auth.churchId, req.body),
  );
}
