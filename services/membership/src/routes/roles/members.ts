import type { FastifyInstance } from 'fastify';
import { announce, revokeTokens } from '../../domain/revocations';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, notFound, reportChanges, unauthorized, type ZodTypeProvider } from '@church/common';
import { findOrCreateUser } from '../../domain/account';
import { userSession } from '../../domain/access';
import { findPerson, personOfUser } from '../../repos/people-links';
import { deleteUserChurch, findUserChurch, upsertUserChurch } from '../../repos/churches';
import { addRoleMember, deleteMembershipsOfUser, deleteRoleMember, findRole, findRoleMember, membersOfRole } from '../../repos/roles';
import { findUserById } from '../../repos/users';
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
  app.post(base, { config: { access: requires('Roles.Edit') }, schema: { body: batchOf(RoleMemberSave), response: { 200: z.array(RoleMember) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const at = req.body.length > 1 ? `[${i}].` : '';
        if (item.id) {
          const existing = await findRoleMember(tx, churchId, item.id);
          if (!existing) throw notFound('Role member');
          out.push(existing);
          continue;
        }
        if (!(await findRole(tx, churchId, item.roleId))) throw notFound('Role');
        let user;
        if (item.userId) {
          user = await findUserById(tx, item.userId);
          if (!user) throw badRequest(`${at}userId`, 'Unknown user');
        } else if (item.email) {
          user = await findOrCreateUser(tx, { email: item.email, firstName: item.firstName, lastName: item.lastName });
          // An account that has been used without its address ever being proved may belong to someone else
          // than the address's owner; a role by email goes only to a verified address (or to an account no one
          // has signed into yet, which only a link mailed to the address can open).
          if (!user.emailVerified && user.lastLogin) throw badRequest(`${at}email`, 'This address is not verified: its owner must confirm it (or name the user by userId)');
        } else {
          throw badRequest(`${at}email`, 'userId or email is required');
        }
        if (item.personId && !(await findPerson(tx, churchId, item.personId))) throw notFound('Person');
        const member = await addRoleMember(tx, { churchId, roleId: item.roleId, userId: user.id, addedBy: req.auth.id });
        // Holding a role makes the user one of the church's users (it appears at their next login).
        if (!(await findUserChurch(tx, user.id, churchId)) || item.personId) {
          const personId = item.personId ?? (await personOfUser(tx, churchId, user.id))?.id ?? null;
          await upsertUserChurch(tx, { userId: user.id, churchId, personId });
        }
        out.push({ ...member, user: { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName } });
      }
      await reportChanges(app.deps, out.map((m) => ({ churchId, entityType: 'roleMember', entityId: m.id, action: 'created', after: { roleId: m.roleId, userId: m.userId } })), { req, tx });
      return out;
    }),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Roles.View') }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    // The removed member's tokens for this church lose the role's permissions at once (they log in again).
    const stamps = await app.db.transaction(async (tx) => {
      const removed = await deleteRoleMember(tx, req.auth.churchId, req.params.id);
      if (!removed) throw notFound('Role member');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'roleMember', entityId: req.params.id, action: 'destroyed', before: { userId: removed.userId } }], { req, tx });
      return removed.userId ? revokeTokens(tx, [{ userId: removed.userId, churchId: req.auth.churchId }]) : [];
    });
    await announce(app.deps, stamps);
    return {};
  });

  // Leaving a church: only the caller themself, any church they are linked to.
  app.delete(
    `${base}/self/:churchId/:userId`,
    { config: { access: userSession }, schema: { params: z.object({ churchId: Id, userId: Id }), response: { 200: z.object({}) } } },
    async (req) => {
      if (req.params.userId !== req.auth.id) throw unauthorized('You can only remove yourself');
      const stamps = await app.db.transaction(async (tx) => {
        await deleteMembershipsOfUser(tx, req.auth.id, req.params.churchId);
        await deleteUserChurch(tx, req.params.churchId, req.auth.id);
        return revokeTokens(tx, [{ userId: req.auth.id, churchId: req.params.churchId }]);
      });
      await announce(app.deps, stamps);
      return {};
    },
  );
}
