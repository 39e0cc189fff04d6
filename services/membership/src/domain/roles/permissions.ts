import type { z } from 'zod';
import { API_NAMES, PERMISSIONS, SERVER_ADMIN, permissionKey, type ApiName } from '@church/auth';
import { badRequest, notFound, reportChanges, type Actor, type DbOrTx, type RevocationEntry } from '@church/common';
import type { MembershipDeps } from '../../deps';
import type { rolePermissions } from '../../db/schema';
import type { ChurchRow, UserChurchRow } from '../../repos/churches';
import { groupsOfPeople } from '../../repos/groups';
import { peopleOfUserIn } from '../../repos/people-links';
import {
  deleteRolePermission,
  findRole,
  findRolePermission,
  findSamePermission,
  insertRolePermissions,
  permissionsFor,
  roleMembershipsOf,
  updateRolePermission,
  usersHoldingRole,
  type HeldPermission,
} from '../../repos/roles';
import type { RolePermissionSave } from '../../schemas/roles/permissions';
import { announce, revokeTokens } from '../revocations';

/** Everything the login response and the token say about one church of a user. */
export interface ChurchContext {
  church: ChurchRow;
  userChurch: UserChurchRow | null;
  person: { id: string | null; membershipStatus: string | null };
  groups: Array<{ id: string; name: string; leader: boolean; tags: string[] }>;
  permissions: HeldPermission[];
}

const isServerAdminPermission = (p: HeldPermission) => permissionKey(p.contentType, p.action) === permissionKey(SERVER_ADMIN.contentType, SERVER_ADMIN.action);

export function holdsServerAdmin(permissions: HeldPermission[]): boolean {
  return permissions.some(isServerAdminPermission);
}

/** Every church permission plus Server.Admin: what an impersonating server admin holds. */
export const ALL_PERMISSIONS: HeldPermission[] = [...PERMISSIONS, SERVER_ADMIN].map(({ apiName, contentType, action }) => ({ apiName, contentType, action }));

/**
 * The user's context in each linked church, in the order given: person, groups, and permissions — the union
 * of the church's Everyone role, the user's roles there and the server-wide roles. A fixed number of queries
 * whatever the number of churches.
 */
export async function churchContexts(
  db: DbOrTx,
  userId: string,
  links: Array<{ church: ChurchRow; uc: UserChurchRow | null }>,
  server: HeldPermission[],
  opts: { allPermissions?: boolean } = {},
): Promise<ChurchContext[]> {
  const churchIds = links.map((l) => l.church.id);
  if (!churchIds.length) return [];
  const memberships = await roleMembershipsOf(db, userId, churchIds);
  const granted = await permissionsFor(db, churchIds, [...new Set(memberships.map((m) => m.roleId))]);

  const linkedPersonIds = links.map((l) => l.uc?.personId).filter((id): id is string => !!id);
  const personRows = await peopleOfUserIn(db, userId, churchIds, linkedPersonIds);
  const personOf = new Map<string, (typeof personRows)[number]>();
  for (const l of links) {
    const linked = personRows.find((p) => p.churchId === l.church.id && p.id === l.uc?.personId);
    const byUser = personRows.find((p) => p.churchId === l.church.id && p.userId === userId);
    const person = linked ?? byUser;
    if (person) personOf.set(l.church.id, person);
  }
  const personIds = [...personOf.values()].map((p) => p.id);
  const groupRows = personIds.length ? await groupsOfPeople(db, churchIds, personIds) : [];

  return links.map(({ church, uc }) => {
    const person = personOf.get(church.id);
    const roleIds = new Set(memberships.filter((m) => m.churchId === church.id).map((m) => m.roleId));
    const own = granted.filter((p) => p.churchId === church.id && (p.roleId === null || roleIds.has(p.roleId)));
    const permissions = opts.allPermissions ? ALL_PERMISSIONS : dedupe([...own, ...server]);
    return {
      church,
      userChurch: uc,
      person: { id: person?.id ?? null, membershipStatus: person?.membershipStatus ?? null },
      groups: groupRows.filter((g) => g.churchId === church.id).map(({ id, name, leader, tags }) => ({ id, name, leader, tags })),
      permissions,
    };
  });
}

function dedupe(rows: HeldPermission[]): HeldPermission[] {
  const seen = new Map<string, HeldPermission>();
  for (const r of rows) {
    const key = `${r.apiName}|${permissionKey(r.contentType, r.action)}`;
    if (!seen.has(key)) seen.set(key, { apiName: r.apiName, contentType: r.contentType, action: r.action });
  }
  return [...seen.values()];
}

/** The permission reference's own spelling by canonical key (`GroupMembers.View` → `Group Members` / `View`). */
const SPELLING = new Map([...PERMISSIONS, SERVER_ADMIN].map((p) => [`${p.apiName}|${permissionKey(p.contentType, p.action)}`, p]));

/**
 * The login response's `apis[]`: every API, each with the `{contentType, action}` pairs held in it, written as the
 * permission reference writes them (the apps compare the strings exactly: `Group Members`, `View Summary`).
 * For the apps (`forApps`), `ReportingApi` also lists the permissions of the others, each with its `apiName`: reports
 * read every module, and the apps' report screens test them there.
 */
export function apisOf(permissions: HeldPermission[], forApps = false): Array<{ keyName: ApiName; permissions: Array<{ contentType: string; action: string; apiName?: string }> }> {
  const spelled = permissions.map((p) => {
    const def = SPELLING.get(`${p.apiName}|${permissionKey(p.contentType, p.action)}`);
    return { apiName: p.apiName, contentType: def?.contentType ?? p.contentType, action: def?.action ?? p.action };
  });
  return API_NAMES.map((keyName) => ({
    keyName,
    permissions:
      keyName === 'ReportingApi' && forApps
        ? spelled.map((p) => (p.apiName === keyName ? { contentType: p.contentType, action: p.action } : p))
        : spelled.filter((p) => p.apiName === keyName).map(({ contentType, action }) => ({ contentType, action })),
  }));
}

/** The token's per-API lists of canonical keys; APIs without permissions are left out to keep the token small. */
export function tokenPermissions(permissions: HeldPermission[]): Partial<Record<ApiName, string[]>> {
  const lists: Partial<Record<ApiName, string[]>> = {};
  for (const p of permissions) {
    const api = p.apiName as ApiName;
    const key = permissionKey(p.contentType, p.action);
    const list = (lists[api] ??= []);
    if (!list.includes(key)) list.push(key);
  }
  return lists;
}

/** The permission reference entry a role permission names, matched by canonical key (and API when given). */
export function findPermissionDef(contentType: string, action: string, apiName?: string | null) {
  const key = permissionKey(contentType, action);
  const matches = PERMISSIONS.filter((p) => permissionKey(p.contentType, p.action) === key && (!apiName || p.apiName === apiName));
  return matches;
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
  deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'revocations'>,
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
export async function removeRolePermission(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'revocations'>, actor: Actor, id: string): Promise<void> {
  const stamps = await deps.db.transaction(async (tx) => {
    const grant = await findRolePermission(tx, actor.churchId, id);
    if (!grant || !(await deleteRolePermission(tx, actor.churchId, id))) throw notFound('Role permission');
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'rolePermission', entityId: grant.id, action: 'destroyed', before: { roleId: grant.roleId, contentType: grant.contentType, action: grant.action } }], { req: actor, tx });
    return revokeHolders(tx, actor.churchId, grant.roleId);
  });
  await announce(deps, stamps);
}
