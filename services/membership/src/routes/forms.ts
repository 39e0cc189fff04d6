import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, Id, IdParams, batchOf, deleteRow, notFound, reportChanges, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { forms } from '../db/schema';
import { formAccess, requireFormAccess } from '../domain/form-access';
import { duplicateForm, formsFor, saveForms } from '../domain/forms';
import { findForm } from '../repos/forms';
import { Form, FormList, FormSave } from '../schemas/forms';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/forms';
  const editors = requires('Forms.Admin or Forms.Edit');

  // `?contentType=person` (B1Admin's person page: the forms that hold a person's extra fields) narrows the list.
  app.get(base, { config: { access: editors }, schema: { querystring: z.object({ contentType: z.string().trim().max(50).optional() }), response: { 200: FormList } } }, async (req) => {
    const list = await formsFor(app.db, req.auth, false);
    return req.query.contentType ? list.filter((f) => f.contentType === req.query.contentType) : list;
  });

  app.get(`${base}/archived`, { config: { access: editors }, schema: { response: { 200: FormList } } }, (req) => formsFor(app.db, req.auth, true));

  // A standalone form is what a sign-up page shows; it may belong to another church than the caller's.
  app.get(
    `${base}/standalone/:id`,
    { config: { access: anyUser }, schema: { params: IdParams, querystring: z.object({ churchId: Id.optional() }), response: { 200: Form } } },
    async (req) => {
      const churchId = req.query.churchId ?? req.auth.churchId;
      const form = await findForm(app.db, churchId, req.params.id);
      if (!form || form.contentType !== 'form') throw notFound('Form');
      if (form.restricted && churchId !== req.auth.churchId) throw unauthorized('This form is restricted to people of its church');
      return form;
    },
  );

  app.get(`${base}/:id`, { config: { access: formAccess }, schema: { params: IdParams, response: { 200: Form } } }, (req) =>
    requireFormAccess(app.db, req.auth, req.params.id, 'view'),
  );

  app.post(base, { config: { access: editors }, schema: { body: batchOf(FormSave), response: { 200: FormList } } }, (req) =>
    saveForms(app.db, req.auth, req.body, { deps: app.deps, actor: actorOf(req) }),
  );

  // A copy of a form the caller can read, for those who may make forms.
  app.post(`${base}/duplicate/:id`, { config: { access: editors }, schema: { params: IdParams, response: { 200: Form } } }, (req) =>
    duplicateForm(app.db, req.auth, req.params.id),
  );

  app.delete(`${base}/:id`, { config: { access: formAccess }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await requireFormAccess(app.db, req.auth, req.params.id, 'edit');
    await app.db.transaction(async (tx) => {
      const gone = await deleteRow(tx, forms, req.auth.churchId, req.params.id);
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'form', entityId: gone.id, action: 'destroyed', before: { name: gone.name } }], { req, tx });
    });
    return {};
  });
}
