import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { findRow, type DbOrTx } from '@church/common';
import { SERVER_CHURCH_ID, roleMembers, rolePermissions, roles, userChurches, users } from '../db/schema';

export type RoleRow = typeof roles.$inferSelect;
export type RoleMemberRow = typeof roleMembers.$inferSelect;
export type RolePermissionRow = typeof rolePermissions.$inferSelect;

export async function rolesOfChurch(db: DbOrTx, churchId: string): Promise<RoleRow[]> {
  return db.select().from(roles).where(eq(roles.churchId, churchId)).orderBy(asc(roles.name));
}

export function findRole(db: DbOrTx, churchId: string, id: string): Promise<RoleRow | undefined> {
  return findRow(db, roles, churchId, id);
}

export async function findRoleByName(db: DbOrTx, churchId: string, name: string): Promise<RoleRow | undefined> {
  const [row] = await db
    .select()
    .from(roles)
    .where(and(eq(roles.churchId, churchId), eq(roles.name, name)))
    .orderBy(asc(roles.createdAt))
    .limit(1);
  return row;
}

export async function insertRole(db: DbOrTx, churchId: string, name: string): Promise<RoleRow> {
  const [row] = await db.insert(roles).values({ id: randomUUID(), churchId, name }).returning();
  return row!;
}

/** Deletes a role with its permissions and members; false when the church has no such role. */
export async function deleteRoleCascade(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(roles)
    .where(and(eq(roles.churchId, churchId), eq(roles.id, id)))
    .returning({ id: roles.id });
  if (!deleted.length) return false;
  await db.delete(rolePermissions).where(and(eq(rolePermissions.churchId, churchId), eq(rolePermissions.roleId, id)));
  await db.delete(roleMembers).where(and(eq(roleMembers.churchId, churchId), eq(roleMembers.roleId, id)));
  return true;
}

/** The role's members (every role's, without `roleId`) with their user and their person in the church (the user-church link's), by name. */
export async function membersOfRole(db: DbOrTx, churchId: string, roleId?: string) {
  return db
    .select({
      member: roleMembers,
      personId: userChurches.personId,
      user: { id: users.id, email: users.email, firstName: users.firstName, lastName: users.lastName },
    })
    .from(roleMembers)
    .leftJoin(users, eq(users.id, roleMembers.userId))
    .leftJoin(userChurches, and(eq(userChurches.churchId, roleMembers.churchId), eq(userChurches.userId, roleMembers.userId)))
    .where(and(eq(roleMembers.churchId, churchId), roleId ? eq(roleMembers.roleId, roleId) : undefined))
    .orderBy(asc(users.lastName), asc(users.firstName), asc(roleMembers.roleId));
}

/** Adds a user to a role; an existing membership is answered as is. */
export async function addRoleMember(db: DbOrTx, values: { churchId: string; roleId: string; userId: string; addedBy?: string | null }): Promise<RoleMemberRow> {
  const [inserted] = await db
    .insert(roleMembers)
    .values({ id: randomUUID(), ...values })
    .onConflictDoNothing({ target: [roleMembers.churchId, roleMembers.roleId, roleMembers.userId] })
    .returning();
  if (inserted) return inserted;
  const [existing] = await db
    .select()
    .from(roleMembers)
    .where(and(eq(roleMembers.churchId, values.churchId), eq(roleMembers.roleId, values.roleId), eq(roleMembers.userId, values.userId)))
    .limit(1);
  return existing!;
}

/** Removes one role member of the church; answers the removed member's user (undefined when there was none). */
export async function deleteRoleMember(db: DbOrTx, churchId: string, id: string): Promise<{ userId: string | null } | undefined> {
  const [row] = await db
    .delete(roleMembers)
    .where(and(eq(roleMembers.churchId, churchId), eq(roleMembers.id, id)))
    .returning({ userId: roleMembers.userId });
  return row;
}

/** Removes a user from every role of one church (or of every church when `churchId` is null). */
export async function deleteMembershipsOfUser(db: DbOrTx, userId: string, churchId: string | null): Promise<void> {
  const where = churchId ? and(eq(roleMembers.churchId, churchId), eq(roleMembers.userId, userId)) : eq(roleMembers.userId, userId);
  await db.delete(roleMembers).where(where);
}

/** Role ids of the user's memberships in the given churches (served by role_members_user_idx). */
export async function roleMembershipsOf(db: DbOrTx, userId: string, churchIds: string[]): Promise<Array<{ churchId: string; roleId: string }>> {
  if (!churchIds.length) return [];
  return db
    .select({ churchId: roleMembers.churchId, roleId: roleMembers.roleId })
    .from(roleMembers)
    .where(and(eq(roleMembers.userId, userId), inArray(roleMembers.churchId, churchIds)));
}

/** Permissions of a church's role; `roleId` null is the Everyone role. */
export async function permissionsOfRole(db: DbOrTx, churchId: string, roleId: string | null): Promise<RolePermissionRow[]> {
  return db
    .select()
    .from(rolePermissions)
    .where(and(eq(rolePermissions.churchId, churchId), roleId ? eq(rolePermissions.roleId, roleId) : isNull(rolePermissions.roleId)))
    .orderBy(asc(rolePermissions.apiName), asc(rolePermissions.contentType), asc(rolePermissions.action));
}

/** Everyone-role permissions of the churches plus those of the listed roles, in one query. */
export async function permissionsFor(db: DbOrTx, churchIds: string[], roleIds: string[]): Promise<RolePermissionRow[]> {
  if (!churchIds.length) return [];
  const forRoles = roleIds.length ? or(isNull(rolePermissions.roleId), inArray(rolePermissions.roleId, roleIds)) : isNull(rolePermissions.roleId);
  return db
    .select()
    .from(rolePermissions)
    .where(and(inArray(rolePermissions.churchId, churchIds), forRoles));
}

export async function insertRolePermissions(db: DbOrTx, rows: Array<Omit<typeof rolePermissions.$inferInsert, 'id'>>): Promise<RolePermissionRow[]> {
  if (!rows.length) return [];
  return db
    .insert(rolePermissions)
    .values(rows.map((r) => ({ id: randomUUID(), ...r })))
    .returning();
}

export function findRolePermission(db: DbOrTx, churchId: string, id: string): Promise<RolePermissionRow | undefined> {
  return findRow(db, rolePermissions, churchId, id);
}

export async function updateRolePermission(db: DbOrTx, churchId: string, id: string, values: Partial<typeof rolePermissions.$inferInsert>): Promise<RolePermissionRow | undefined> {
  const [row] = await db
    .update(rolePermissions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(rolePermissions.churchId, churchId), eq(rolePermissions.id, id)))
    .returning();
  return row;
}

export async function deleteRolePermission(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(rolePermissions)
    .where(and(eq(rolePermissions.churchId, churchId), eq(rolePermissions.id, id)))
    .returning({ id: rolePermissions.id });
  return rows.length > 0;
}

/** Users in the church's role of this name, oldest membership first. */
export async function usersInRoleNamed(db: DbOrTx, churchId: string, name: string) {
  return db
    .select({ id: users.id, email: users.email, firstName: users.firstName, lastName: users.lastName })
    .from(roleMembers)
    .innerJoin(roles, and(eq(roles.id, roleMembers.roleId), eq(roles.churchId, churchId)))
    .innerJoin(users, eq(users.id, roleMembers.userId))
    .where(and(eq(roleMembers.churchId, churchId), eq(roles.name, name)))
    .orderBy(asc(roleMembers.createdAt));
}

/** Count of role members in the church other than this user. */
export async function otherRoleMembers(db: DbOrTx, churchId: string, userId: string | null): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(roleMembers)
    .where(and(eq(roleMembers.churchId, churchId), userId ? sql`${roleMembers.userId} <> ${userId}` : undefined));
  return Number(row?.n ?? 0);
}

/** An identical grant already held by the role (so saving a permission twice does not duplicate it). */
export async function findSamePermission(db: DbOrTx, p: { churchId: string; roleId: string | null; apiName: string; contentType: string; action: string; contentId?: string | null }) {
  const [row] = await db
    .select()
    .from(rolePermissions)
    .where(
      and(
        eq(rolePermissions.churchId, p.churchId),
        p.roleId ? eq(rolePermissions.roleId, p.roleId) : isNull(rolePermissions.roleId),
        eq(rolePermissions.apiName, p.apiName),
        eq(rolePermissions.contentType, p.contentType),
        eq(rolePermissions.action, p.action),
        p.contentId ? eq(rolePermissions.contentId, p.contentId) : isNull(rolePermissions.contentId),
      ),
    )
    .limit(1);
  return row;
}

export function findRoleMember(db: DbOrTx, churchId: string, id: string): Promise<RoleMemberRow | undefined> {
  return findRow(db, roleMembers, churchId, id);
}

/**
 * The users whose tokens carry a role's grants in a church: the role's members, or for the Everyone role
 * (`roleId` null) every user of the church.
 */
export async function usersHoldingRole(db: DbOrTx, churchId: string, roleId: string | null): Promise<string[]> {
  const rows = roleId
    ? await db.select({ userId: roleMembers.userId }).from(roleMembers).where(and(eq(roleMembers.churchId, churchId), eq(roleMembers.roleId, roleId)))
    : await db.select({ userId: userChurches.userId }).from(userChurches).where(eq(userChurches.churchId, churchId));
  return [...new Set(rows.map((r) => r.userId))];
}

/** A permission as roles hold it. */
export interface HeldPermission {
  apiName: string;
  contentType: string;
  action: string;
}

/** Permissions the user holds through server-wide roles (the server admin role at SERVER_CHURCH_ID). */
export function serverPermissions(db: DbOrTx, userId: string): Promise<HeldPermission[]> {
  return db
    .select({ apiName: rolePermissions.apiName, contentType: rolePermissions.contentType, action: rolePermissions.action })
    .from(roleMembers)
    .innerJoin(rolePermissions, and(eq(rolePermissions.churchId, SERVER_CHURCH_ID), eq(rolePermissions.roleId, roleMembers.roleId)))
    .where(and(eq(roleMembers.userId, userId), eq(roleMembers.churchId, SERVER_CHURCH_ID)));
}
