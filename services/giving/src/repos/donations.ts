import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { badRequest, rowsByIds, type DbOrTx } from '@church/common';
import { donations, fundDonations, funds } from '../db/schema';
import { amountOf, centsText } from '../domain/money';

export type DonationRow = typeof donations.$inferSelect;

export interface NewDonation {
  churchId: string;
  amountCents: number;
  currency: string;
  personId?: string | null;
  batchId?: string | null;
  method?: string | null;
  methodDetails?: string | null;
  notes?: string | null;
  status: 'complete' | 'pending' | 'failed';
  transactionId?: string | null;
  provider?: string | null;
  feeCents?: number;
  subscriptionId?: string | null;
  email?: string | null;
  date?: Date;
  /** allocations in cents */
  funds: Array<{ fundId: string; cents: number }>;
}

/**
 * Records a donation with its allocations, in the caller's transaction. A gateway donation is recognised by
 * its transaction id (unique per church): when one exists already the existing row is answered and nothing is
 * written (`created: false`), so a webhook, a retried charge and a replay never add a second.
 */
export async function recordDonation(tx: DbOrTx, d: NewDonation): Promise<{ donation: DonationRow; created: boolean }> {
  const id = randomUUID();
  const [inserted] = await tx
    .insert(donations)
    .values({
      id,
      churchId: d.churchId,
      amount: centsText(d.amountCents),
      currency: d.currency,
      personId: d.personId ?? null,
      batchId: d.batchId ?? null,
      method: d.method ?? null,
      methodDetails: d.methodDetails ?? null,
      notes: d.notes ?? null,
      status: d.status,
      transactionId: d.transactionId ?? null,
      provider: d.provider ?? null,
      fee: centsText(d.feeCents ?? 0),
      subscriptionId: d.subscriptionId ?? null,
      email: d.email ?? null,
      donationDate: d.date ?? new Date(),
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted) {
    const existing = await donationByTransaction(tx, d.churchId, d.transactionId ?? '');
    if (!existing) throw new Error('donation conflict without a transaction id');
    return { donation: existing, created: false };
  }
  if (d.funds.length) {
    await tx.insert(fundDonations).values(d.funds.map((f) => ({ id: randomUUID(), churchId: d.churchId, donationId: id, fundId: f.fundId, amount: centsText(f.cents) })));
  }
  return { donation: inserted, created: true };
}

export async function donationByTransaction(db: DbOrTx, churchId: string, transactionId: string): Promise<DonationRow | undefined> {
  const [row] = await db.select().from(donations).where(and(eq(donations.churchId, churchId), eq(donations.transactionId, transactionId))).limit(1);
  return row;
}

/** Checks that every fund id is a live fund of the church; 400 naming the first unknown one. */
export async function checkFunds(db: DbOrTx, churchId: string, ids: string[], param: (i: number) => string): Promise<Map<string, typeof funds.$inferSelect>> {
  const rows = await rowsByIds(db, funds, churchId, [...new Set(ids)]);
  const known = new Map(rows.map((r) => [r.id as string, r as typeof funds.$inferSelect]));
  ids.forEach((id, i) => {
    if (!known.has(id)) throw badRequest(param(i), 'is not a fund of this church');
  });
  return known;
}

/** Allocations of donations with fund names, grouped by donation id. */
export async function allocationsOf(db: DbOrTx, churchId: string, donationIds: string[]) {
  const out = new Map<string, Array<{ id: string; fundId: string; fundName: string | null; amount: number }>>();
  if (!donationIds.length) return out;
  const rows = await db
    .select({ id: fundDonations.id, donationId: fundDonations.donationId, fundId: fundDonations.fundId, amount: fundDonations.amount, fundName: funds.name })
    .from(fundDonations)
    .leftJoin(funds, and(eq(funds.id, fundDonations.fundId), eq(funds.churchId, fundDonations.churchId)))
    .where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.donationId, donationIds)))
    .orderBy(asc(fundDonations.donationId));
  for (const r of rows) {
    const list = out.get(r.donationId) ?? [];
    list.push({ id: r.id, fundId: r.fundId, fundName: r.fundName, amount: amountOf(r.amount) });
    out.set(r.donationId, list);
  }
  return out;
}

/** A donation row as the API answers it. */
export function donationItem(row: DonationRow, allocations?: Array<{ id: string; fundId: string; fundName: string | null; amount: number }>) {
  return {
    id: row.id,
    batchId: row.batchId,
    personId: row.personId,
    donationDate: row.donationDate,
    amount: amountOf(row.amount),
    currency: row.currency,
    method: row.method,
    methodDetails: row.methodDetails,
    notes: row.notes,
    status: row.status,
    transactionId: row.transactionId,
    provider: row.provider,
    fee: amountOf(row.fee),
    refundedAmount: amountOf(row.refundedAmount),
    subscriptionId: row.subscriptionId,
    ...(allocations ? { funds: allocations } : {}),
  };
}

/** Total and count of donations per batch. */
export async function batchTotals(db: DbOrTx, churchId: string, batchIds: string[]) {
  const out = new Map<string, { count: number; total: number }>();
  if (!batchIds.length) return out;
  const rows = await db
    .select({ batchId: donations.batchId, count: sql<number>`count(*)::int`, total: sql<string>`coalesce(sum(${donations.amount}), 0)::text` })
    .from(donations)
    .where(and(eq(donations.churchId, churchId), inArray(donations.batchId, batchIds)))
    .groupBy(donations.batchId);
  for (const r of rows) out.set(r.batchId!, { count: r.count, total: amountOf(r.total) });
  return out;
}
