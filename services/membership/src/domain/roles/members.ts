import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor } from '@church/common';
import type { MembershipDeps } from '../../deps';
import { deleteUserChurch, findUserChurch, upsertUserChurch } from '../../repos/churches';
import { findPerson, personOfUser } from '../../repos/people-links';
import { addRoleMember, deleteMembershipsOfUser, deleteRoleMember, findRole, findRoleMember } from '../../repos/roles';
import { findUserById } from '../../repos/users';
import type { RoleMemberSave } from '../../schemas/roles/members';
import { findOrCreateUser } from '../account';
import { announce, revokeTokens } from '../revocations';

type Deps = Pick<MembershipDeps, 'db' | 'module' | 'queue'>;

/**
 * Adds role members in one transaction. A member is named by userId or by email; an unknown email gets an account
 * (it signs in through "forgot"). By email, only a verified address matches an account that has been signed into.
 * Holding a role makes the user one of the church's users. Answers each member with its user (an existing id: the
 * member as it is).
 */
export function saveRoleMembers(deps: Deps, actor: Actor, items: Array<z.output<typeof RoleMemberSave>>) {
  return deps.db.transaction(async (tx) => {
    const churchId = actor.churchId;
    const out = [];
    for (const [i, item] of items.entries()) {
      const at = items.length > 1 ? `[${i}].` : '';
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
      const member = await addRoleMember(tx, { churchId, roleId: item.roleId, userId: user.id, addedBy: actor.id });
      // Holding a role makes the user one of the church's users (it appears at their next login).
      if (!(await findUserChurch(tx, user.id, churchId)) || item.personId) {
        const personId = item.personId ?? (await personOfUser(tx, churchId, user.id))?.id ?? null;
        await upsertUserChurch(tx, { userId: user.id, churchId, personId });
      }
      out.push({ ...member, user: { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName } });
    }
    await reportChanges(deps, out.map((m) => ({ churchId, entityType: 'roleMember', entityId: m.id, action: 'created', after: { roleId: m.roleId, userId: m.userId } })), { req: actor, tx });
    return out;
  });
}

/** Removes a role member of the church; their tokens for it lose the role's permissions at once (they log in again). */
export async function removeRoleMember(deps: Deps & Pick<MembershipDeps, 'revocations'>, actor: Actor, id: string): Promise<void> {
  const stamps = await deps.db.transaction(async (tx) => {
    const removed = await deleteRoleMember(tx, actor.churchId, id);
    if (!removed) throw notFound('Role member');
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'roleMember', entityId: id, action: 'destroyed', before: { userId: removed.userId } }], { req: actor, tx });
    return removed.userId ? revokeTokens(tx, [{ userId: removed.userId, churchId: actor.churchId }]) : [];
  });
  await announce(deps, stamps);
}

/** The caller leaves a church: their roles and link there go, and their tokens for it are refused at once. */
export async function leaveChurch(deps: Pick<MembershipDeps, 'db' | 'revocations'>, userId: string, churchId: string): Promise<void> {
  const stamps = await deps.db.transaction(async (tx) => {
    await deleteMembershipsOfUser(tx, userId, churchId);
    await deleteUserChurch(tx, churchId, userId);
    return revokeTokens(tx, [{ userId, churchId }]);
  });
  await announce(deps, stamps);
}
