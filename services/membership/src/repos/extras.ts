import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { associatedGroups, churches, domains, householdPickups, people, sites } from '../db/schema';

export function pickupsOf(db: DbOrTx, churchId: string, householdId: string) {
  return db
    .select()
    .from(householdPickups)
    .where(and(eq(householdPickups.churchId, churchId), eq(householdPickups.householdId, householdId)))
    .orderBy(asc(householdPickups.name), asc(householdPickups.id));
}

/** The household of the caller's person (members read their own household's pickup list). */
export async function householdOfPerson(db: DbOrTx, churchId: string, personId: string): Promise<string | null> {
  const [row] = await db.select({ householdId: people.householdId }).from(people).where(and(eq(people.churchId, churchId), eq(people.id, personId), eq(people.removed, false)));
  return row?.householdId ?? null;
}

export function associationsOf(db: DbOrTx, churchId: string, where: { contentType: string; contentId: string } | { groupId: string; contentType?: string }) {
  const cond =
    'groupId' in where
      ? and(eq(associatedGroups.groupId, where.groupId), where.contentType ? eq(associatedGroups.contentType, where.contentType) : undefined)
      : and(eq(associatedGroups.contentType, where.contentType), eq(associatedGroups.contentId, where.contentId));
  return db.select().from(associatedGroups).where(and(eq(associatedGroups.churchId, churchId), cond)).orderBy(asc(associatedGroups.createdAt));
}


/** Whether a sub-domain is taken by any church or by another site (one namespace). */
export async function subDomainTaken(db: DbOrTx, subDomain: string, exceptSiteId?: string): Promise<boolean> {
  const name = subDomain.toLowerCase();
  const [church] = await db.select({ id: churches.id }).from(churches).where(sql`lower(${churches.subDomain}) = ${name}`).limit(1);
  if (church) return true;
  const [site] = await db.select({ id: sites.id }).from(sites).where(sql`lower(${sites.subDomain}) = ${name}`).limit(1);
  return Boolean(site && site.id !== exceptSiteId);
}

/** Domains that served a removed site serve the church's main site again. */
export async function clearSiteOfDomains(db: DbOrTx, churchId: string, siteId: string): Promise<void> {
  await db.update(domains).set({ siteId: null, updatedAt: new Date() }).where(and(eq(domains.churchId, churchId), eq(domains.siteId, siteId)));
}

/** The outbox's view of membership's jobs: the last run of each job and the recent failures. */
export async function outboxJobs(db: { rows: <T>(sql: string, params: unknown[]) => Promise<T[]> }) {
  type Row = { id: string; name: string; state: string; created_at: Date; sent_at: Date | null; last_error: string | null };
  const latest = await db.rows<Row>(
    `select distinct on (name) id, name, state, created_at, sent_at, last_error from job_outbox order by name, created_at desc`,
    [],
  );
  const failures = await db.rows<Row>(`select id, name, state, created_at, sent_at, last_error from job_outbox where state = 'failed' order by created_at desc limit 25`, []);
  return { latest, failures };
}
