import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, ilike, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { donations, fundDonations, funds } from '../db/schema';
import { amountOf, centsText } from '../domain/money';
import { dayRange } from './summary';

export type FundDonationRow = typeof fundDonations.$inferSelect;

/** The filters of `GET /giving/funddonations`. */
export interface FundDonationFilter {
  id?: string;
  ids?: string[];
  donationId?: string;
  personId?: string;
  fundId?: string;
  fundName?: string;
  startDate?: Date;
  endDate?: Date;
}

const select = (db: DbOrTx, where: SQL[]) =>
  db
    .select({
      id: fundDonations.id,
      donationId: fundDonations.donationId,
      fundId: fundDonations.fundId,
      amount: fundDonations.amount,
      fundName: funds.name,
      personId: donations.personId,
      donationDate: donations.donationDate,
      batchId: donations.batchId,
      currency: donations.currency,
    })
    .from(fundDonations)
    .leftJoin(donations, and(eq(donations.churchId, fundDonations.churchId), eq(donations.id, fundDonations.donationId)))
    .leftJoin(funds, and(eq(funds.churchId, fundDonations.churchId), eq(funds.id, fundDonations.fundId)))
    .where(and(...where))
    .orderBy(desc(donations.donationDate), asc(fundDonations.id));

type Selected = Awaited<ReturnType<typeof select>>[number];

/** An allocation as the API answers it: with its fund's name and its donation (as the staff app's fund page reads it). */
const item = (r: Selected) => ({
  id: r.id,
  donationId: r.donationId,
  fundId: r.fundId,
  amount: amountOf(r.amount),
  fundName: r.fundName,
  personId: r.personId,
  donationDate: r.donationDate,
  donation: r.donationDate ? { id: r.donationId, batchId: r.batchId, personId: r.personId, donationDate: r.donationDate, currency: r.currency ?? 'usd' } : null,
});
export type FundDonationItem = ReturnType<typeof item>;

/** A church's allocations matching the filter, newest donation first. */
export async function listFundDonations(db: DbOrTx, churchId: string, f: FundDonationFilter): Promise<FundDonationItem[]> {
  const where: SQL[] = [eq(fundDonations.churchId, churchId)];
  if (f.id) where.push(eq(fundDonations.id, f.id));
  if (f.ids) where.push(inArray(fundDonations.id, f.ids.length ? f.ids : [randomUUID()]));
  if (f.donationId) where.push(eq(fundDonations.donationId, f.donationId));
  if (f.personId) where.push(eq(donations.personId, f.personId));
  if (f.fundId) where.push(eq(fundDonations.fundId, f.fundId));
  if (f.fundName) where.push(ilike(funds.name, f.fundName.replace(/[\\%_]/g, (c) => `\\${c}`)));
  const { from, to } = dayRange(f.startDate, f.endDate);
  if (from) where.push(gte(donations.donationDate, from));
  if (to) where.push(lt(donations.donationDate, to));
  return (await select(db, where)).map(item);
}

/** One allocation of the church, or undefined. */
export async function fundDonationById(db: DbOrTx, churchId: string, id: string): Promise<FundDonationItem | undefined> {
  return (await listFundDonations(db, churchId, { id }))[0];
}

/**
 * Locks the church's donations with these ids (in id order, so two writers never wait on each other in a
 * circle): every write of allocations or of an amount holds its donations' rows until it commits, so the
 * allocations checked are the ones that commit. Answers the ids found.
 */
export async function lockDonations(tx: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx
    .select({ id: donations.id })
    .from(donations)
    .where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])))
    .orderBy(asc(donations.id))
    .for('update');
  return new Set(rows.map((r) => r.id));
}

/** Of these donations, those whose allocations now sum above their amount: `{id, amount, allocated}` as decimal text. */
export async function overAllocated(tx: DbOrTx, churchId: string, ids: string[]): Promise<Array<{ id: string; amount: string; allocated: string }>> {
  if (!ids.length) return [];
  return tx
    .select({ id: donations.id, amount: sql<string>`${donations.amount}::text`, allocated: sql<string>`sum(${fundDonations.amount})::text` })
    .from(donations)
    .innerJoin(fundDonations, and(eq(fundDonations.churchId, donations.churchId), eq(fundDonations.donationId, donations.id)))
    .where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])))
    .groupBy(donations.id, donations.amount)
    .having(sql`sum(${fundDonations.amount}) > ${donations.amount}`);
}

/** An allocation to write: a new one (no `id`) or changes to one of the church's. */
export interface AllocationInput {
  id?: string;
  donationId?: string;
  fundId?: string;
  cents?: number;
}

/** The allocations as they were before a write (for the audit log), by id. */
export async function allocationsById(tx: DbOrTx, churchId: string, ids: string[]): Promise<Map<string, FundDonationRow>> {
  if (!ids.length) return new Map();
  const rows = await tx.select().from(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Writes allocations in order, in the caller's transaction; an `id` the church does not have answers undefined in its place. */
export async function writeAllocations(tx: DbOrTx, churchId: string, items: AllocationInput[]): Promise<Array<FundDonationRow | undefined>> {
  const out: Array<FundDonationRow | undefined> = [];
  for (const it of items) {
    const values = {
      ...(it.donationId ? { donationId: it.donationId } : {}),
      ...(it.fundId ? { fundId: it.fundId } : {}),
      ...(it.cents !== undefined ? { amount: centsText(it.cents) } : {}),
    };
    if (it.id) {
      const [row] = await tx
        .update(fundDonations)
        .set({ ...values, updatedAt: new Date() })
        .where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.id, it.id)))
        .returning();
      out.push(row);
    } else {
      const [row] = await tx
        .insert(fundDonations)
        .values({ id: randomUUID(), churchId, donationId: it.donationId!, fundId: it.fundId!, amount: centsText(it.cents ?? 0) })
        .returning();
      out.push(row);
    }
  }
  return out;
}

/**
 * Makes `wanted` the whole set of a donation's allocations: an item with the `id` of one of them updates it (its
 * id kept), others are added, and the donation's allocations not listed are removed. Answers the rows before and
 * after, for the audit log.
 */
export async function replaceAllocations(
  tx: DbOrTx,
  churchId: string,
  donationId: string,
  wanted: Array<{ id?: string; fundId: string; cents: number }>,
): Promise<Array<{ before?: FundDonationRow; after?: FundDonationRow }>> {
  const current = await tx.select().from(fundDonations).where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.donationId, donationId)));
  const byId = new Map(current.map((r) => [r.id, r]));
  const kept = new Set<string>();
  const changes: Array<{ before?: FundDonationRow; after?: FundDonationRow }> = [];
  for (const w of wanted) {
    const before = w.id ? byId.get(w.id) : undefined;
    if (before && !kept.has(before.id)) {
      kept.add(before.id);
      const [after] = await writeAllocations(tx, churchId, [{ id: before.id, fundId: w.fundId, cents: w.cents }]);
      changes.push({ before, after });
    } else {
      const [after] = await writeAllocations(tx, churchId, [{ donationId, fundId: w.fundId, cents: w.cents }]);
      changes.push({ after });
    }
  }
  const gone = current.filter((r) => !kept.has(r.id)).map((r) => r.id);
  if (gone.length) {
    await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.id, gone)));
    for (const id of gone) changes.push({ before: byId.get(id) });
  }
  return changes;
}

/** Deletes the allocations of these donations (a donation or a batch going); answers the rows removed. */
export async function deleteAllocationsOf(tx: DbOrTx, churchId: string, donationIds: string[]): Promise<FundDonationRow[]> {
  if (!donationIds.length) return [];
  return tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.donationId, donationIds))).returning();
}

/** Deletes one allocation of the church; answers it as it was, or undefined. */
export async function deleteAllocation(tx: DbOrTx, churchId: string, id: string): Promise<FundDonationRow | undefined> {
  const [row] = await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.id, id))).returning();
  return row;
}
