import { and, arrayContains, asc, eq, getTableColumns, ilike, inArray, like, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { findRow, type DbOrTx } from '@church/common';
import { groupMembers, groups, people } from '../db/schema';
import { preparedReader, rowReader, type RowOf } from '@church/common';

export type GroupRow = typeof groups.$inferSelect;
export type GroupMemberRow = typeof groupMembers.$inferSelect;

const live = (churchId: string | SQLWrapper) => and(eq(groups.churchId, churchId), eq(groups.removed, false));
/** Live and not archived: what the group lists show. */
const listed = (churchId: string | SQLWrapper) => and(live(churchId), eq(groups.archived, false));

// Lists return what a group record shows: not the soft-delete flag nor the timestamps.
const { removed: _removed, createdAt: _createdAt, updatedAt: _updatedAt, ...recordColumns } = getTableColumns(groups);
export type GroupRecord = RowOf<typeof recordColumns>;
const readRecords = rowReader(recordColumns);
// By category, then name: B1Admin's groups page prints a category's heading where the category changes.
const byCategory = [asc(groups.categoryName), asc(groups.name), asc(groups.id)];
const allOfChurch = preparedReader(recordColumns, (qb) =>
  qb.select(recordColumns).from(groups).where(listed(sql.placeholder('churchId'))).orderBy(...byCategory),
);

export interface GroupFilter {
  tag?: string;
  label?: string;
  ids?: string[];
  /** only archived groups (`GET /groups?archived=1`) */
  archived?: boolean;
  /** archived groups too (an id lookup that must find any live group) */
  includeArchived?: boolean;
}

/**
 * The group carries the label, compared case-insensitively and with hyphens as spaces: B1App's site turns the URL
 * segment `small-groups` into `small groups` and asks for that. Raw `sql`: drizzle has no operator over an
 * array's elements.
 */
const labelKey = (value: SQLWrapper | string) => sql`lower(replace(${value}, '-', ' '))`;
const hasLabel = (label: string) => sql`exists (select 1 from unnest(${groups.labels}) as l(v) where ${labelKey(sql`l.v`)} = ${labelKey(label)})`;

/** Groups of a church (not removed, not archived), by category and name; optional tag, label or id filters. */
export function listGroups(db: DbOrTx, churchId: string, filter: GroupFilter = {}): Promise<GroupRecord[]> {
  if (!filter.tag && !filter.label && !filter.ids && !filter.archived && !filter.includeArchived) return allOfChurch(db, { churchId });
  const where: Array<SQL | undefined> = [live(churchId)];
  if (filter.archived) where.push(eq(groups.archived, true));
  else if (!filter.includeArchived) where.push(eq(groups.archived, false));
  if (filter.tag) where.push(arrayContains(groups.tags, [filter.tag]));
  if (filter.label) where.push(hasLabel(filter.label));
  if (filter.ids) where.push(inArray(groups.id, filter.ids));
  return readRecords(db, db.select(recordColumns).from(groups).where(and(...where)).orderBy(...byCategory));
}

/** How many live people each group of the church has, by group id (one statement; groups without any are absent). */
export async function memberCounts(db: DbOrTx, churchId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ groupId: groupMembers.groupId, count: sql<number>`count(*)::int` })
    .from(groupMembers)
    .innerJoin(people, and(eq(people.churchId, churchId), eq(people.id, groupMembers.personId), eq(people.removed, false)))
    .where(eq(groupMembers.churchId, churchId))
    .groupBy(groupMembers.groupId);
  return new Map(rows.map((r) => [r.groupId, r.count]));
}

export function findGroup(db: DbOrTx, churchId: string, id: string): Promise<GroupRow | undefined> {
  return findRow(db, groups, churchId, id);
}

export async function findGroupBySlug(db: DbOrTx, churchId: string, slug: string): Promise<GroupRow | undefined> {
  const [row] = await db.select().from(groups).where(and(live(churchId), eq(groups.slug, slug))).limit(1);
  return row;
}

/** Groups the person belongs to (not archived), optionally only those with a tag. */
export function groupsOfPerson(db: DbOrTx, churchId: string, personId: string, tag?: string): Promise<GroupRow[]> {
  const where: Array<SQL | undefined> = [listed(churchId), eq(groupMembers.churchId, churchId), eq(groupMembers.personId, personId)];
  if (tag) where.push(arrayContains(groups.tags, [tag]));
  return db
    .select({ group: groups })
    .from(groupMembers)
    .innerJoin(groups, eq(groups.id, groupMembers.groupId))
    .where(and(...where))
    .orderBy(asc(groups.name))
    .then((rows) => rows.map((r) => r.group));
}

/**
 * Slugs of the church that could collide with `base` (`base` itself and `base-N`). Removed groups count:
 * the unique index covers them, and a public link to a deleted group should not silently move.
 */
export async function slugsLike(db: DbOrTx, churchId: string, base: string, exceptId?: string): Promise<Set<string>> {
  const escaped = base.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows = await db
    .select({ id: groups.id, slug: groups.slug })
    .from(groups)
    .where(and(eq(groups.churchId, churchId), or(eq(groups.slug, base), like(groups.slug, `${escaped}-%`))));
  return new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.slug));
}

/** Soft-deletes a group and, when it is a ministry, its teams; false when the church has no such group. */
export async function softDeleteGroup(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const [row] = await db.update(groups).set({ removed: true, updatedAt: new Date() }).where(and(live(churchId), eq(groups.id, id))).returning();
  if (!row) return false;
  if (row.tags.includes('ministry')) {
    await db
      .update(groups)
      .set({ removed: true, updatedAt: new Date() })
      .where(and(live(churchId), eq(groups.parentGroupId, id), arrayContains(groups.tags, ['team'])));
  }
  return true;
}

const memberColumns = {
  member: groupMembers,
  firstName: people.firstName,
  lastName: people.lastName,
  displayName: people.displayName,
  photo: people.photo,
  email: people.email,
  membershipStatus: people.membershipStatus,
  groupName: groups.name,
  groupPhotoUrl: groups.photoUrl,
};
export type MemberWithPerson = {
  member: GroupMemberRow;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  photo: string | null;
  email: string | null;
  membershipStatus: string | null;
  groupName: string;
  groupPhotoUrl: string | null;
};

/** Memberships with the person's name and photo; removed people and removed groups are left out. */
export function listMembers(
  db: DbOrTx,
  churchId: string,
  filter: { id?: string; groupIds?: string[]; personId?: string; leadersOnly?: boolean } = {},
): Promise<MemberWithPerson[]> {
  const where: Array<SQL | undefined> = [eq(groupMembers.churchId, churchId), eq(people.removed, false), eq(groups.removed, false)];
  if (filter.id) where.push(eq(groupMembers.id, filter.id));
  if (filter.groupIds) where.push(inArray(groupMembers.groupId, filter.groupIds));
  if (filter.personId) where.push(eq(groupMembers.personId, filter.personId));
  if (filter.leadersOnly) where.push(eq(groupMembers.leader, true));
  return db
    .select(memberColumns)
    .from(groupMembers)
    .innerJoin(people, and(eq(people.churchId, churchId), eq(people.id, groupMembers.personId)))
    .innerJoin(groups, and(eq(groups.churchId, churchId), eq(groups.id, groupMembers.groupId)))
    .where(and(...where))
    .orderBy(asc(people.lastName), asc(people.firstName));
}

/** The memberships of a person in the given groups (to decide "caller is in the group"). */
export async function memberGroupIds(db: DbOrTx, churchId: string, personId: string, groupIds: string[]): Promise<Set<string>> {
  if (!groupIds.length) return new Set();
  const rows = await db
    .select({ groupId: groupMembers.groupId })
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.personId, personId), inArray(groupMembers.groupId, groupIds)));
  return new Set(rows.map((r) => r.groupId));
}

/** A membership by group and person, or by its id. */
export async function findMembership(db: DbOrTx, churchId: string, groupId?: string, personId?: string, id?: string): Promise<GroupMemberRow | undefined> {
  const [row] = await db
    .select()
    .from(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), id ? eq(groupMembers.id, id) : and(eq(groupMembers.groupId, groupId!), eq(groupMembers.personId, personId!))))
    .limit(1);
  return row;
}

/**
 * Deletes a membership (only one of `personId`, when given); the deleted row (its group and person), or undefined
 * when the church has no such membership.
 */
export async function deleteMember(db: DbOrTx, churchId: string, id: string, personId?: string): Promise<GroupMemberRow | undefined> {
  const [row] = await db
    .delete(groupMembers)
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.id, id), personId ? eq(groupMembers.personId, personId) : undefined))
    .returning();
  return row;
}

/** Ids among `ids` that are live people of the church. */
export async function existingPeople(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: people.id })
    .from(people)
    .where(and(eq(people.churchId, churchId), eq(people.removed, false), inArray(people.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** Ids of the church's live groups whose name matches the LIKE pattern (case-insensitive). */
export async function groupIdsNamedLike(db: DbOrTx, churchId: string, pattern: string): Promise<string[]> {
  const found = await db
    .select({ id: groups.id })
    .from(groups)
    .where(and(eq(groups.churchId, churchId), eq(groups.removed, false), ilike(groups.name, pattern)));
  return found.map((g) => g.id);
}

/** The live groups of these people in these churches, with whether each person leads it (login's church contexts). */
export function groupsOfPeople(db: DbOrTx, churchIds: string[], personIds: string[]) {
  return db
    .select({ churchId: groupMembers.churchId, id: groups.id, name: groups.name, leader: groupMembers.leader, tags: groups.tags })
    .from(groupMembers)
    .innerJoin(groups, and(eq(groups.id, groupMembers.groupId), eq(groups.churchId, groupMembers.churchId)))
    .where(and(inArray(groupMembers.churchId, churchIds), inArray(groupMembers.personId, personIds), eq(groups.removed, false)));
}
