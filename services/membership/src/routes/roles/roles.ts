import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isServerAdmin, requires } from '@church/auth';
import { Id, IdParams, batchOf, notFound, reportChanges, saveRows, type ZodTypeProvider } from '@church/common';
import { roles } from '../../db/schema';
import { announce, revokeTokens } from '../../domain/revocations';
import { deleteRoleCascade, findRole, rolesOfChurch, usersHoldingRole } from '../../repos/roles';
import { Role, RoleSave } from '../../schemas/roles/roles';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/roles';

  // The token's church's roles (as `church/:churchId` answers for it).
  app.get(base, { config: { access: requires('Roles.View') }, schema: { response: { 200: z.array(Role) } } }, async (req) => rolesOfChurch(app.db, req.auth.churchId));

  app.get(`${base}/:id`, { config: { access: requires('Roles.View') }, schema: { params: IdParams, response: { 200: Role } } }, async (req) => {
    const role = await findRole(app.db, req.auth.churchId, req.params.id);
    if (!role) throw notFound('Role');
    return role;
  });

  // The church id is in the path for old clients; only the token's church answers (server admins: any).
  app.get(
    `${base}/church/:churchId`,
    { config: { access: requires('Roles.View') }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(Role) } } },
    async (req) => (req.params.churchId === req.auth.churchId || isServerAdmin(req.auth) ? rolesOfChurch(app.db, req.params.churchId) : []),
  );

  app.post(base, { config: { access: requires('Roles.Edit') }, schema: { body: batchOf(RoleSave), response: { 200: z.array(Role) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const saved = (await saveRows(tx, roles, req.auth.churchId, req.body)) as Array<typeof roles.$inferSelect>;
      await reportChanges(app.deps, saved.map((r, i) => ({ churchId: r.churchId, entityType: 'role', entityId: r.id, action: req.body[i]!.id ? 'saved' : 'created', after: { name: r.name } })), { req, tx });
      return saved;
    }),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Roles.Edit') }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    // Its members' tokens lose the role's grants at once.
    const stamps = await app.db.transaction(async (tx) => {
      const holders = await usersHoldingRole(tx, req.auth.churchId, req.params.id);
      if (!(await deleteRoleCascade(tx, req.auth.churchId, req.params.id))) throw notFound('Role');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'role', entityId: req.params.id, action: 'destroyed' }], { req, tx });
      return revokeTokens(tx, holders.map((userId) => ({ userId, churchId: req.auth.churchId })));
    });
    await announce(app.deps, stamps);
    return {};
  });
}
