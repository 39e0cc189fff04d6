import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PERMISSIONS, anyUser, requires } from '@church/auth';
import { IdParams, badRequest, batchOf, itemParam, notFound, reportChanges, type DbOrTx, type RevocationEntry, type ZodTypeProvider } from '@church/common';
import { findPermissionDef } from '../../domain/permissions';
import { announce, revokeTokens } from '../../domain/revocations';
import { deleteRolePermission, findRole, findRolePermission, findSamePermission, insertRolePermissions, permissionsOfRole, updateRolePermission, usersHoldingRole } from '../../repos/roles';
import type { rolePermissions } from '../../db/schema';
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

  /**
   * A grant taken away (deleted, or changed into another): the tokens of the users who held it through its role
   * lose it at once (they log in again); a grant added shows at their next login, as the spec has it.
   */
  const revokeHolders = async (tx: DbOrTx, churchId: string, roleId: string | null) =>
    revokeTokens(tx, (await usersHoldingRole(tx, churchId, roleId)).map((userId) => ({ userId, churchId })));

  // Only permissions of the reference can be granted, spelled as the reference spells them (`View Summary`).
  app.post(base, { config: { access: requires('Roles.Edit') }, schema: { body: batchOf(RolePermissionSave), response: { 200: z.array(RolePermission) } } }, async (req) => {
    const { out, stamps } = await app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      const missing = req.body.findIndex((item) => !item.id && item.roleId === undefined);
      if (missing >= 0) throw badRequest(itemParam(req, missing, 'roleId'), 'roleId is required (null for the Everyone role)');
      const out: Array<typeof rolePermissions.$inferSelect> = [];
      const stamps: RevocationEntry[] = [];
      for (const [i, item] of req.body.entries()) {
        if (item.roleId && !(await findRole(tx, churchId, item.roleId))) throw notFound('Role');
        const defs = findPermissionDef(item.contentType, item.action, item.apiName);
        if (!defs.length) throw badRequest(itemParam(req, i, 'action'), `Unknown permission ${item.contentType}.${item.action}${item.apiName ? ` in ${item.apiName}` : ''}`);
        if (defs.length > 1) throw badRequest(itemParam(req, i, 'apiName'), `apiName is required: ${item.contentType}.${item.action} exists in several APIs`);
        const { apiName, contentType, action } = defs[0]!;
        const grant = { churchId, apiName, contentType, action, contentId: item.contentId ?? null };
        if (item.id) {
          const before = await findRolePermission(tx, churchId, item.id);
          const row = before && (await updateRolePermission(tx, churchId, item.id, item.roleId === undefined ? grant : { ...grant, roleId: item.roleId }));
          if (!row) throw notFound('Role permission');
          const changed = (['roleId', 'apiName', 'contentType', 'action', 'contentId'] as const).some((k) => before[k] !== row[k]);
          if (changed) stamps.push(...(await revokeHolders(tx, churchId, before.roleId)));
          out.push(row);
          continue;
        }
        const values = { ...grant, roleId: item.roleId ?? null };
        out.push((await findSamePermission(tx, values)) ?? (await insertRolePermissions(tx, [values]))[0]!);
      }
      const grants = (g: (typeof out)[number]) => ({ roleId: g.roleId, apiName: g.apiName, contentType: g.contentType, action: g.action, contentId: g.contentId });
      await reportChanges(app.deps, out.map((g) => ({ churchId, entityType: 'rolePermission', entityId: g.id, action: 'saved', after: grants(g) })), { req, tx });
      return { out, stamps };
    });
    await announce(app.deps, stamps);
    return out;
  });

  app.delete(`${base}/:id`, { config: { access: requires('Roles.Edit') }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    const stamps = await app.db.transaction(async (tx) => {
      const grant = await findRolePermission(tx, req.auth.churchId, req.params.id);
      if (!grant || !(await deleteRolePermission(tx, req.auth.churchId, req.params.id))) throw notFound('Role permission');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'rolePermission', entityId: grant.id, action: 'destroyed', before: { roleId: grant.roleId, contentType: grant.contentType, action: grant.action } }], { req, tx });
      return revokeHolders(tx, req.auth.churchId, grant.roleId);
    });
    await announce(app.deps, stamps);
    return {};
  });

  app.get('/membership/permissions', { config: { access: anyUser }, schema: { response: { 200: z.array(Permission) } } }, async () => [...PERMISSIONS]);
}
