import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PERMISSIONS, anyUser, requires } from '@church/auth';
import { IdParams, actorOf, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { removeRolePermission, saveRolePermissions } from '../../domain/roles/permissions';
import { findRole, permissionsOfRole } from '../../repos/roles';
import { RolePermission, RoleRef, RolePermissionSave, Permission } from '../../schemas/roles/permissions';

/** `roleId` null (or the text `null` in paths) is the church's Everyone role. */

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/rolepermissions';

  app.get(
    `${base}/roles/:id`,
    { config: { access: requires('Roles.View') }, schema: { params: z.object({ id: RoleRef }), response: { 200: z.array(RolePermission) } } },
    async (req) => {
      const roleId = req.params.id;
      if (roleId && !(await findRole(app.db, req.auth.churchId, roleId))) throw notFound('Role');
      return permissionsOfRole(app.db, req.auth.churchId, roleId);
    },
  );

  // Only permissions of the reference can be granted, spelled as the reference spells them (`View Summary`).
  app.post(base, { config: { access: requires('Roles.Edit') }, schema: { body: batchOf(RolePermissionSave), response: { 200: z.array(RolePermission) } } }, (req) =>
    saveRolePermissions(app.deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Roles.Edit') }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    await removeRolePermission(app.deps, actorOf(req), req.params.id);
    return {};
  });

  app.get('/membership/permissions', { config: { access: anyUser }, schema: { response: { 200: z.array(Permission) } } }, async () => [...PERMISSIONS]);
}
