import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hasPermission } from '@church/auth';
import { Empty, Id, IdParams, batchOf, notFound, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { formAccess, requireFormAccess } from '../domain/form-access';
import { saveMemberPermissions } from '../domain/forms';
import { deleteMemberPermissions, deletePermission, formIdsOfMember, listPermissions, permissionsOf, type PermissionWithNames } from '../repos/forms';
import { MemberPermission, MemberPermissionList, MemberPermissionSave } from '../schemas/forms';

const toItem = (r: PermissionWithNames) => ({ ...r.permission, personName: r.personName, formName: r.formName });

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/memberpermissions';

  app.get(`${base}/:id`, { config: { access: formAccess }, schema: { params: IdParams, response: { 200: MemberPermission } } }, async (req) => {
    const [row] = await listPermissions(app.db, req.auth.churchId, { id: req.params.id });
    if (!row) throw notFound('Member permission');
    await requireFormAccess(app.db, req.auth, row.permission.contentId, 'view');
    return toItem(row);
  });

  // A member's permissions, limited to the forms the caller has access to (all of them for Forms.Admin).
  app.get(
    `${base}/member/:id`,
    { config: { access: formAccess }, schema: { params: IdParams, response: { 200: MemberPermissionList } } },
    async (req) => {
      const { churchId, personId } = req.auth;
      if (hasPermission(req.auth, 'Forms.Admin')) return (await listPermissions(app.db, churchId, { memberId: req.params.id })).map(toItem);
      const visible = personId ? await formIdsOfMember(app.db, churchId, personId) : [];
      if (!visible.length) throw unauthorized('Missing permission: Form access');
      return (await listPermissions(app.db, churchId, { memberId: req.params.id, formIds: visible })).map(toItem);
    },
  );

  app.get(
    `${base}/form/:id`,
    { config: { access: formAccess }, schema: { params: IdParams, response: { 200: MemberPermissionList } } },
    async (req) => {
      await requireFormAccess(app.db, req.auth, req.params.id, 'view');
      return (await listPermissions(app.db, req.auth.churchId, { formId: req.params.id })).map(toItem);
    },
  );

  // The caller's own row on the form; `{}` when their access comes from Forms.Admin alone.
  app.get(
    `${base}/form/:id/my`,
    { config: { access: formAccess }, schema: { params: IdParams, response: { 200: MemberPermission.partial() } } },
    async (req) => {
      await requireFormAccess(app.db, req.auth, req.params.id, 'view');
      const [row] = req.auth.personId ? await permissionsOf(app.db, req.auth.churchId, req.auth.personId, req.params.id) : [];
      return row ?? {};
    },
  );

  app.post(
    base,
    { config: { access: formAccess }, schema: { body: batchOf(MemberPermissionSave), response: { 200: MemberPermissionList } } },
    async (req) => (await saveMemberPermissions(app.db, req.auth, req.body, { deps: app.deps, actor: actorOf(req) })).map(toItem),
  );

  app.delete(
    `${base}/member/:id`,
    { config: { access: formAccess }, schema: { params: IdParams, querystring: z.object({ formId: Id }), response: { 200: Empty } } },
    async (req) => {
      await requireFormAccess(app.db, req.auth, req.query.formId, 'edit');
      await deleteMemberPermissions(app.db, req.auth.churchId, req.params.id, req.query.formId);
      return {};
    },
  );

  app.delete(
    `${base}/:id`,
    { config: { access: formAccess }, schema: { params: IdParams, querystring: z.object({ formId: Id.optional() }), response: { 200: Empty } } },
    async (req) => {
      const [row] = await listPermissions(app.db, req.auth.churchId, { id: req.params.id });
      if (!row || (req.query.formId && row.permission.contentId !== req.query.formId)) throw notFound('Member permission');
      await requireFormAccess(app.db, req.auth, row.permission.contentId, 'edit');
      await deletePermission(app.db, req.auth.churchId, req.params.id);
      return {};
    },
  );
}
