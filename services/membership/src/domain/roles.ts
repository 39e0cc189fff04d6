import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type DbOrTx, type RevocationEntry } from '@church/common';
import type { MembershipDeps } from '../deps';
import type { rolePermissions } from '../db/schema';
import { deleteUserChurch, findUserChurch, upsertUserChurch } from '../repos/churches';
import { findPerson, personOfUser } from '../repos/people-links';
import {
  addRoleMember,
  deleteMembershipsOfUser,
  deleteRoleMember,
  deleteRolePermission,
  findRole,
  findRoleMember,
  findRolePermission,
  findSamePermission,
  insertRolePermissions,
  updateRolePermission,
  usersHoldingRole,
} from '../repos/roles';
import { findUserById } from '../repos/users';
import type { RoleMemberSave } from '../schemas/roles/members';
import type { RolePermissionSave } from '../schemas/roles/permissions';
import { findOrCreateUser } from './account';
import { findPermissionDef } from './permissions';
import { announce, revokeTokens } from './revocations';

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

/**
 * A grant taken away (deleted, or changed into another): the tokens of the users who held it through its role
 * lose it at once (they log in again); a grant added shows at their next login, as the spec has it.
 */
const revokeHolders = async (tx: DbOrTx, churchId: string, roleId: string | null) =>
  revokeTokens(tx, (await usersHoldingRole(tx, churchId, roleId)).map((userId) => ({ userId, churchId })));

/**
 * Saves role permissions in one transaction: only permissions of the reference can be granted, spelled as the
 * reference spells them (`View Summary`); granting one a role already holds answers the existing grant. `param`
 * names item `i`'s field in errors.
 */
export async function saveRolePermissions(
  deps: Deps & Pick<MembershipDeps, 'revocations'>,
  actor: Actor,
  items: Array<z.output<typeof RolePermissionSave>>,
  param: (i: number, field: string) => string,
): Promise<Array<typeof rolePermissions.$inferSelect>> {
  const { out, stamps } = await deps.db.transaction(async (tx) => {
    const churchId = actor.churchId;
    const missing = items.findIndex((item) => !item.id && item.roleId === undefined);
    if (missing >= 0) throw badRequest(param(missing, 'roleId'), 'roleId is required (null for the Everyone role)');
    const out: Array<typeof rolePermissions.$inferSelect> = [];
    const stamps: RevocationEntry[] = [];
    for (const [i, item] of items.entries()) {
      if (item.roleId && !(await findRole(tx, churchId, item.roleId))) throw notFound('Role');
      const defs = findPermissionDef(item.contentType, item.action, item.apiName);
      if (!defs.length) throw badRequest(param(i, 'action'), `Unknown permission ${item.contentType}.${item.action}${item.apiName ? ` in ${item.apiName}` : ''}`);
      if (defs.length > 1) throw badRequest(param(i, 'apiName'), `apiName is required: ${item.contentType}.${item.action} exists in several APIs`);
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
    await reportChanges(deps, out.map((g) => ({ churchId, entityType: 'rolePermission', entityId: g.id, action: 'saved', after: grants(g) })), { req: actor, tx });
    return { out, stamps };
  });
  await announce(deps, stamps);
  return out;
}

/** Deletes a grant of the church; the users who held it through its role lose it at once. */
export async function removeRolePermission(deps: Deps & Pick<MembershipDeps, 'revocations'>, actor: Actor, id: string): Promise<void> {
  const stamps = await deps.db.transaction(async (tx) => {
    const grant = await findRolePermission(tx, actor.churchId, id);
    if (!grant || !(await deleteRolePermission(tx, actor.churchId, id))) throw notFound('Role permission');
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'rolePermission', entityId: grant.id, action: 'destroyed', before: { roleId: grant.roleId, contentType: grant.contentType, action: grant.action } }], { req: actor, tx });
    return revokeHolders(tx, actor.churchId, grant.roleId);
  });
  await announce(deps, stamps);
}
