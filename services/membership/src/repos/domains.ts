import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { findRow, type DbOrTx } from '@church/common';
import { domains } from '../db/schema';

export type DomainRow = typeof domains.$inferSelect;

export function listDomains(db: DbOrTx, churchId: string): Promise<DomainRow[]> {
  return db.select().from(domains).where(eq(domains.churchId, churchId)).orderBy(asc(domains.domainName));
}

export function findDomain(db: DbOrTx, churchId: string, id: string): Promise<DomainRow | undefined> {
  return findRow(db, domains, churchId, id);
}

/** A domain by name across churches (names are unique globally: domains_name_uq). */
export async function findDomainByName(db: DbOrTx, domainName: string): Promise<DomainRow | undefined> {
  const [row] = await db.select().from(domains).where(eq(domains.domainName, domainName)).limit(1);
  return row;
}

/** Every domain of every church, for the reverse proxy's configuration. */
export function allDomains(db: DbOrTx): Promise<DomainRow[]> {
  return db.select().from(domains).orderBy(asc(domains.domainName));
}

/** Domains never checked, found stale, or last checked before `before`: never-checked first. */
export function domainsToCheck(db: DbOrTx, before: Date, limit: number): Promise<DomainRow[]> {
  return db
    .select()
    .from(domains)
    .where(or(isNull(domains.lastChecked), eq(domains.isStale, true), lt(domains.lastChecked, before)))
    .orderBy(sql`${domains.lastChecked} asc nulls first`)
    .limit(limit);
}

export async function markChecked(db: DbOrTx, id: string, isStale: boolean, at: Date): Promise<void> {
  await db.update(domains).set({ isStale, lastChecked: at, updatedAt: at }).where(eq(domains.id, id));
}

export async function deleteDomain(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const rows = await db.delete(domains).where(and(eq(domains.churchId, churchId), eq(domains.id, id))).returning({ id: domains.id });
  return rows.length > 0;
}
