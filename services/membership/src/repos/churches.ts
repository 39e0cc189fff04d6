import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, ilike, inArray, is, isNull, lt, or, sql } from 'drizzle-orm';
import { PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '@church/common';
import * as schema from '../db/schema';
import { churches, roleMembers, userChurches } from '../db/schema';
import { batchedReads, isUuid, preparedReader, type RowOf } from '@church/common';

export type ChurchRow = typeof churches.$inferSelect;
export type UserChurchRow = typeof userChurches.$inferSelect;

const escapeLike = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function findChurch(db: DbOrTx, id: string): Promise<ChurchRow | undefined> {
  const [row] = await db.select().from(churches).where(eq(churches.id, id)).limit(1);
  return row;
}

/** Subdomains are unique case-insensitively (churches_sub_domain_uq is on lower(sub_domain)). */
export async function findChurchBySubDomain(db: DbOrTx, subDomain: string): Promise<ChurchRow | undefined> {
  const [row] = await db.select().from(churches).where(sql`lower(${churches.subDomain}) = ${subDomain.trim().toLowerCase()}`).limit(1);
  return row;
}

export async function churchesByIds(db: DbOrTx, ids: string[], includeArchived = false): Promise<ChurchRow[]> {
  if (!ids.length) return [];
  const where = includeArchived ? inArray(churches.id, ids) : and(inArray(churches.id, ids), isNull(churches.archivedDate));
  return db.select().from(churches).where(where).orderBy(asc(churches.name));
}

/** Churches whose name contains the term; archived ones only when asked (server admins). */
export async function searchChurches(db: DbOrTx, term: string, opts: { includeArchived?: boolean; limit?: number } = {}): Promise<ChurchRow[]> {
  const conditions = [];
  if (term.trim()) conditions.push(or(ilike(churches.name, escapeLike(term.trim())), ilike(churches.subDomain, escapeLike(term.trim()))));
  if (!opts.includeArchived) conditions.push(isNull(churches.archivedDate));
  return db
    .select()
    .from(churches)
    .where(and(...conditions))
    .orderBy(asc(churches.name))
    .limit(opts.limit ?? 100);
}

export async function insertChurch(db: DbOrTx, values: typeof churches.$inferInsert): Promise<ChurchRow> {
  const [row] = await db.insert(churches).values(values).returning();
  return row!;
}

export async function updateChurch(db: DbOrTx, id: string, values: Partial<typeof churches.$inferInsert>): Promise<ChurchRow | undefined> {
  const [row] = await db
    .update(churches)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(churches.id, id))
    .returning();
  return row;
}

export async function touchChurch(db: DbOrTx, id: string, at: Date): Promise<void> {
  await db.update(churches).set({ lastActivity: at }).where(eq(churches.id, id));
}

/** Subdomains already taken among `candidates` (lower-cased). */
export async function takenSubDomains(db: DbOrTx, candidates: string[]): Promise<Set<string>> {
  if (!candidates.length) return new Set();
  const rows = await db
    .select({ subDomain: churches.subDomain })
    .from(churches)
    .where(inArray(sql`lower(${churches.subDomain})`, candidates.map((c) => c.toLowerCase())));
  return new Set(rows.map((r) => (r.subDomain ?? '').toLowerCase()));
}

/** The user's church links, most recently accessed first (then oldest link first). */
export async function userChurchesOf(db: DbOrTx, userId: string): Promise<Array<{ uc: UserChurchRow; church: ChurchRow }>> {
  return db
    .select({ uc: userChurches, church: churches })
    .from(userChurches)
    .innerJoin(churches, eq(churches.id, userChurches.churchId))
    .where(eq(userChurches.userId, userId))
    .orderBy(sql`${userChurches.lastAccessed} desc nulls last`, asc(userChurches.createdAt), asc(churches.name));
}

const { createdAt: _createdAt, updatedAt: _updatedAt, ...churchColumns } = getTableColumns(churches);
const linkedColumns = { ...churchColumns, linkedUserId: userChurches.userId };
const linkedChurches = preparedReader(linkedColumns, (qb) =>
  qb
    .select(linkedColumns)
    .from(userChurches)
    .innerJoin(churches, eq(churches.id, userChurches.churchId))
    .where(sql`${userChurches.userId} = any(${sql.placeholder('userIds')}::uuid[])`)
    .orderBy(sql`${userChurches.lastAccessed} desc nulls last`, asc(userChurches.createdAt), asc(churches.name)),
);
type LinkedChurch = RowOf<typeof churchColumns>;

// The church list is read on every client start: concurrent reads of several users go out as one statement.
const churchesOfUsers = batchedReads(async (db: DbOrTx, userIds: string[]) => {
  const asked = userIds.filter(isUuid);
  const byUser = new Map<string, LinkedChurch[]>();
  for (const { linkedUserId, ...church } of asked.length ? await linkedChurches(db, { userIds: asked }) : []) {
    const list = byUser.get(linkedUserId) ?? [];
    if (!list.length) byUser.set(linkedUserId, list);
    list.push(church);
  }
  return userIds.map((id) => byUser.get(id.toLowerCase()) ?? []);
});

/** The churches of the user's links in `userChurchesOf`'s order, without the link rows (the church list read). */
export async function churchesOfUser(db: DbOrTx, userId: string): Promise<LinkedChurch[]> {
  return (await churchesOfUsers(db, userId)) ?? [];
}

export async function findUserChurch(db: DbOrTx, userId: string, churchId: string): Promise<UserChurchRow | undefined> {
  const [row] = await db
    .select()
    .from(userChurches)
    .where(and(eq(userChurches.churchId, churchId), eq(userChurches.userId, userId)))
    .limit(1);
  return row;
}

export async function userChurchByPerson(db: DbOrTx, churchId: string, personId: string): Promise<UserChurchRow | undefined> {
  const [row] = await db
    .select()
    .from(userChurches)
    .where(and(eq(userChurches.churchId, churchId), eq(userChurches.personId, personId)))
    .orderBy(desc(userChurches.lastAccessed))
    .limit(1);
  return row;
}

/** Links a user to a church (or updates the person of an existing link). */
export async function upsertUserChurch(
  db: DbOrTx,
  values: { userId: string; churchId: string; personId?: string | null; lastAccessed?: Date | null },
): Promise<UserChurchRow> {
  const set: Partial<typeof userChurches.$inferInsert> = { updatedAt: new Date() };
  if (values.personId !== undefined) set.personId = values.personId;
  if (values.lastAccessed !== undefined) set.lastAccessed = values.lastAccessed;
  const [row] = await db
    .insert(userChurches)
    .values({ id: randomUUID(), ...values })
    .onConflictDoUpdate({ target: [userChurches.churchId, userChurches.userId], set })
    .returning();
  return row!;
}

export async function setLastAccessed(db: DbOrTx, userId: string, churchId: string, at: Date): Promise<UserChurchRow | undefined> {
  const [row] = await db
    .update(userChurches)
    .set({ lastAccessed: at, updatedAt: at })
    .where(and(eq(userChurches.churchId, churchId), eq(userChurches.userId, userId)))
    .returning();
  return row;
}

export async function deleteUserChurch(db: DbOrTx, churchId: string, userId: string, personId?: string): Promise<number> {
  const conditions = [eq(userChurches.churchId, churchId), eq(userChurches.userId, userId)];
  if (personId) conditions.push(eq(userChurches.personId, personId));
  const rows = await db.delete(userChurches).where(and(...conditions)).returning({ id: userChurches.id });
  return rows.length;
}

/** Number of users linked to each of the churches. */
export async function userCounts(db: DbOrTx, churchIds: string[]): Promise<Map<string, number>> {
  if (!churchIds.length) return new Map();
  const rows = await db
    .select({ churchId: userChurches.churchId, n: sql<number>`count(*)::int` })
    .from(userChurches)
    .where(inArray(userChurches.churchId, churchIds))
    .groupBy(userChurches.churchId);
  return new Map(rows.map((r) => [r.churchId, Number(r.n)]));
}

/** Churches with no activity since `before`. */
export async function inactiveChurches(db: DbOrTx, before: Date): Promise<ChurchRow[]> {
  return db.select().from(churches).where(lt(churches.lastActivity, before));
}

/**
 * Every table of the schema with a `church_id` column, with that column. Read from the schema's exports, so a
 * table added there is deleted with its church without anyone remembering to list it. Token revocation stamps
 * are the exception: they must outlive the church until the tokens they refuse have expired.
 */
export const CHURCH_SCOPED_TABLES: ReadonlyArray<{ table: PgTable; column: PgColumn }> = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable) && value !== schema.tokenRevocations)
  .flatMap((table) => {
    const column = Object.values(getTableColumns(table)).find((c) => c.name === 'church_id');
    return column ? [{ table, column }] : [];
  });

/** Deletes a church and every church-scoped row of it; run inside the caller's transaction. */
export async function deleteChurchAndData(tx: DbOrTx, churchId: string): Promise<void> {
  for (const { table, column } of CHURCH_SCOPED_TABLES) if (table !== schema.dataVersions) await tx.delete(table).where(eq(column, churchId));
  // The data-version triggers on people and groups are deferred to commit, where they would write the church's
  // version row again: fire them now (raw SQL: drizzle has no builder for SET CONSTRAINTS), then delete it.
  await tx.execute(sql`set constraints all immediate`);
  await tx.delete(schema.dataVersions).where(eq(schema.dataVersions.churchId, churchId));
  await tx.delete(churches).where(eq(churches.id, churchId));
}

export async function deleteUserChurchesOf(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(userChurches).where(eq(userChurches.userId, userId));
}

export async function userIdsOfChurch(db: DbOrTx, churchId: string): Promise<string[]> {
  const rows = await db.select({ userId: userChurches.userId }).from(userChurches).where(eq(userChurches.churchId, churchId));
  return rows.map((r) => r.userId);
}

/** The churches where the user holds a role (not the server-wide role), by name. */
export async function churchesWithRolesOf(db: DbOrTx, userId: string): Promise<ChurchRow[]> {
  return db
    .selectDistinct({ church: churches })
    .from(roleMembers)
    .innerJoin(churches, eq(churches.id, roleMembers.churchId))
    .where(eq(roleMembers.userId, userId))
    .orderBy(asc(churches.name), asc(churches.id))
    .then((rows) => rows.map((r) => r.church));
}

export async function churchExists(db: DbOrTx, churchId: string): Promise<boolean> {
  const [church] = await db.select({ id: churches.id }).from(churches).where(eq(churches.id, churchId)).limit(1);
  return Boolean(church);
}

/** The person the user's link to the church names (undefined: no link; `personId` null: a link without a person). */
export async function linkedPersonOf(db: DbOrTx, churchId: string, userId: string): Promise<{ personId: string | null } | undefined> {
  const [link] = await db
    .select({ personId: userChurches.personId })
    .from(userChurches)
    .where(and(eq(userChurches.churchId, churchId), eq(userChurches.userId, userId)))
    .limit(1);
  return link;
}

/** Links the user to their person at the church: a new link (accessed now), or the existing link pointed at the person. */
export async function linkUserToPerson(db: DbOrTx, churchId: string, userId: string, personId: string): Promise<void> {
  await db
    .insert(userChurches)
    .values({ id: randomUUID(), churchId, userId, personId, lastAccessed: new Date() })
    .onConflictDoUpdate({ target: [userChurches.churchId, userChurches.userId], set: { personId, updatedAt: sql`now()` } });
}
