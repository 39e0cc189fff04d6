import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '@church/common';
import { donationBatches, donations } from '../db/schema';
import type { DonationRow } from './donations';

// The writes of donations entered by hand (`POST /giving/donations`, deletes), in the caller's transaction.

/** The columns a donation save may set. */
export type DonationValues = Partial<Pick<DonationRow, 'batchId' | 'personId' | 'donationDate' | 'amount' | 'currency' | 'method' | 'methodDetails' | 'notes' | 'status' | 'transactionId'>>;

/** The church's donations with these ids (unlocked: what a save compares against before its transaction). */
export async function donationsByIds(db: DbOrTx, churchId: string, ids: string[]): Promise<Map<string, DonationRow>> {
  if (!ids.length) return new Map();
  const rows = await db.select().from(donations).where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The same, locked until the caller's transaction ends (in id order). */
export async function lockedDonations(tx: DbOrTx, churchId: string, ids: string[]): Promise<Map<string, DonationRow>> {
  if (!ids.length) return new Map();
  const rows = await tx
    .select()
    .from(donations)
    .where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])))
    .orderBy(asc(donations.id))
    .for('update');
  return new Map(rows.map((r) => [r.id, r]));
}

/** Inserts a donation (`amount` required) or updates one of the church's; undefined for an id it does not have. */
export async function writeDonation(tx: DbOrTx, churchId: string, id: string | undefined, values: DonationValues): Promise<DonationRow | undefined> {
  if (id) {
    const [row] = await tx
      .update(donations)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(donations.churchId, churchId), eq(donations.id, id)))
      .returning();
    return row;
  }
  const [row] = await tx
    .insert(donations)
    .values({ id: randomUUID(), churchId, amount: values.amount!, ...values })
    .returning();
  return row;
}

/** Deletes the church's donations with these ids; answers the rows removed. */
export async function deleteDonations(tx: DbOrTx, churchId: string, ids: string[]): Promise<DonationRow[]> {
  if (!ids.length) return [];
  return tx.delete(donations).where(and(eq(donations.churchId, churchId), inArray(donations.id, ids))).returning();
}

/** Deletes a batch's donations; answers the rows removed. */
export async function deleteDonationsOfBatch(tx: DbOrTx, churchId: string, batchId: string): Promise<DonationRow[]> {
  return tx.delete(donations).where(and(eq(donations.churchId, churchId), eq(donations.batchId, batchId))).returning();
}

/** Of these batch ids, the church's. */
export async function knownBatches(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: donationBatches.id }).from(donationBatches).where(and(eq(donationBatches.churchId, churchId), inArray(donationBatches.id, [...new Set(ids)])));
  return new Set(rows.map((r) => r.id));
}

/**
 * The staff dashboard's figures over complete donations in a range of days (and of one fund's allocations when
 * given): total given, the average gift, donors and donations. Sums in numeric, answered as decimal text.
 */
export async function givingKpis(db: DbOrTx, churchId: string, from: Date | undefined, to: Date | undefined, fundId?: string) {
  const range = sql`${from ? sql`and d.donation_date >= ${from.toISOString()}::timestamptz` : sql``} ${to ? sql`and d.donation_date < ${to.toISOString()}::timestamptz` : sql``}`;
  const query = fundId
    ? sql`select coalesce(sum(fd.amount), 0)::text as total, coalesce(avg(d.amount), 0)::numeric(12,2)::text as average,
            count(distinct d.person_id)::int as donors, count(distinct d.id)::int as gifts
          from donations d join fund_donations fd on fd.church_id = d.church_id and fd.donation_id = d.id and fd.fund_id = ${fundId}::uuid
          where d.church_id = ${churchId}::uuid and d.status = 'complete' ${range}`
    : sql`select coalesce(sum(d.amount - d.refunded_amount), 0)::text as total, coalesce(avg(d.amount), 0)::numeric(12,2)::text as average,
            count(distinct d.person_id)::int as donors, count(*)::int as gifts
          from donations d where d.church_id = ${churchId}::uuid and d.status = 'complete' ${range}`;
  const [row] = rowsOf<{ total: string; average: string; donors: number; gifts: number }>(await db.execute(query));
  return row ?? { total: '0', average: '0', donors: 0, gifts: 0 };
}
