import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, IdParams, actorOf, batchOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { leaveChurch, removeRoleMember, saveRoleMembers } from '../../domain/roles/members';
import { findRole, membersOfRole } from '../../repos/roles';
import { RoleMember, RoleOrEveryone, RoleMemberSave, EVERYONE } from '../../schemas/roles/members';


export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/rolemembers';

  /** Members with their person in the church, and their user with `include=users`. */
  const membersAnswer = async (churchId: string, roleId: string | undefined, include = '') => {
    const withUsers = include.split(',').includes('users');
    return (await membersOfRole(app.db, churchId, roleId)).map(({ member, personId, user }) => ({ ...member, personId, ...(withUsers && user ? { user } : {}) }));
  };

  // The Everyone role (`everyone`, or `null`/`undefined` as B1Admin's role page writes a role without id) has no
  // members: it is everyone.
  app.get(
    `${base}/roles/:id`,
    {
      config: { access: requires('Roles.View') },
      schema: { params: z.object({ id: RoleOrEveryone }), querystring: z.object({ include: z.string().max(100).optional() }), response: { 200: z.array(RoleMember) } },
    },
    async (req) => {
      if (req.params.id === EVERYONE) return [];
      if (!(await findRole(app.db, req.auth.churchId, req.params.id))) throw notFound('Role');
      return membersAnswer(req.auth.churchId, req.params.id, req.query.include);
    },
  );

  // Every role's members of the church, in the same shape.
  app.get(
    `${base}/roles`,
    { config: { access: requires('Roles.View') }, schema: { querystring: z.object({ include: z.string().max(100).optional() }), response: { 200: z.array(RoleMember) } } },
    async (req) => membersAnswer(req.auth.churchId, undefined, req.query.include),
  );

  // A member is named by userId or by email; an unknown email gets an account (it signs in through "forgot").
  // By email, only a verified address matches an account that has been signed into.
  app.post(base, { config: { access: requires('Roles.Edit') }, schema: { body: batchOf(RoleMemberSave), response: { 200: z.array(RoleMember) } } }, (req) =>
    saveRoleMembers(app.deps, actorOf(req), req.body),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Roles.View') }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    await removeRoleMember(app.deps, actorOf(req), req.params.id);
    return {};
  });

  // Leaving a church: only the caller themself, any church they are linked to.
  app.delete(
    `${base}/self/:churchId/:userId`,
    { config: { access: userSession }, schema: { params: z.object({ churchId: Id, userId: Id }), response: { 200: z.object({}) } } },
    async (req) => {
      if (req.params.userId !== req.auth.id) throw unauthorized('You can only remove yourself');
      await leaveChurch(app.deps, req.auth.id, req.params.churchId);
      return {};
    },
  );
}
