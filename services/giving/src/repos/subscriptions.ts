import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { isUuid, type DbOrTx } from '@church/common';
import { funds, subscriptionFunds, subscriptions } from '../db/schema';
import { amountOf, centsText } from '../lib/money';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type SubscriptionFundRow = typeof subscriptionFunds.$inferSelect;

/** A subscription of the church by its local id or the provider's (`sub_…`: the donor portal names it so). */
export async function subscriptionByRef(db: DbOrTx, churchId: string, ref: string): Promise<SubscriptionRow | undefined> {
  const where = isUuid(ref) ? eq(subscriptions.id, ref) : eq(subscriptions.providerSubscriptionId, ref);
  const [row] = await db.select().from(subscriptions).where(and(eq(subscriptions.churchId, churchId), where)).limit(1);
  return row;
}

/** The person a subscription (local id or provider id) belongs to, in the church; null when none. */
export async function subscriptionOwner(db: DbOrTx, churchId: string, subscriptionId: unknown): Promise<string | null> {
  if (typeof subscriptionId !== 'string' || !subscriptionId) return null;
  const where = isUuid(subscriptionId) ? eq(subscriptions.id, subscriptionId) : eq(subscriptions.providerSubscriptionId, subscriptionId);
  const [row] = await db.select({ personId: subscriptions.personId }).from(subscriptions).where(and(eq(subscriptions.churchId, churchId), where)).limit(1);
  return row?.personId ?? null;
}

/** The church's subscriptions, oldest first. */
export async function listSubscriptionRows(db: DbOrTx, churchId: string, filter: { customerId?: string } = {}): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.churchId, churchId), filter.customerId ? eq(subscriptions.customerId, filter.customerId) : undefined))
    .orderBy(asc(subscriptions.createdAt));
}

/** Subscriptions as the API answers them, each with its allocations. */
export async function withFunds(db: DbOrTx, churchId: string, rows: SubscriptionRow[]) {
  const allocations = rows.length
    ? await db.select().from(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), inArray(subscriptionFunds.subscriptionId, rows.map((r) => r.id))))
    : [];
  return rows.map((r) => ({
    ...r,
    amount: amountOf(r.amount),
    fee: amountOf(r.fee),
    funds: allocations.filter((a) => a.subscriptionId === r.id).map((a) => ({ id: a.id, fundId: a.fundId, amount: amountOf(a.amount) })),
  }));
}

/** A subscription's allocations with their funds' names (`name` as the donor portal reads it, `fundName` as well). */
export async function subscriptionFundItems(db: DbOrTx, churchId: string, filter: { id?: string; subscriptionId?: string }) {
  const rows = await db
    .select({ id: subscriptionFunds.id, subscriptionId: subscriptionFunds.subscriptionId, fundId: subscriptionFunds.fundId, amount: subscriptionFunds.amount, fundName: funds.name })
    .from(subscriptionFunds)
    .leftJoin(funds, and(eq(funds.churchId, subscriptionFunds.churchId), eq(funds.id, subscriptionFunds.fundId)))
    .where(
      and(
        eq(subscriptionFunds.churchId, churchId),
        filter.id ? eq(subscriptionFunds.id, filter.id) : undefined,
        filter.subscriptionId ? eq(subscriptionFunds.subscriptionId, filter.subscriptionId) : undefined,
      ),
    )
    .orderBy(asc(subscriptionFunds.createdAt));
  return rows.map((r) => ({ ...r, amount: amountOf(r.amount), name: r.fundName }));
}

/** A subscription's allocations as the webhook's invoice effect allocates a period. */
export async function subscriptionAllocations(db: DbOrTx, churchId: string, subscriptionId: string): Promise<SubscriptionFundRow[]> {
  return db.select().from(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, subscriptionId)));
}

/**
 * Records a new subscription and its allocations; answers its local id. A repeat of the provider's id (a retried
 * subscribe) records nothing and answers the kept one's.
 */
export async function insertSubscription(tx: DbOrTx, row: Omit<typeof subscriptions.$inferInsert, 'id'>, allocations: Array<{ fundId: string; cents: number }>): Promise<string> {
  const [made] = await tx.insert(subscriptions).values({ ...row, id: randomUUID() }).onConflictDoNothing().returning({ id: subscriptions.id });
  if (!made) return (await subscriptionByRef(tx, row.churchId, row.providerSubscriptionId))!.id;
  await tx.insert(subscriptionFunds).values(allocations.map((a) => ({ id: randomUUID(), churchId: row.churchId, subscriptionId: made.id, fundId: a.fundId, amount: centsText(a.cents) })));
  return made.id;
}

/** Updates a subscription of the church; undefined when it is gone. */
export async function updateSubscriptionRow(tx: DbOrTx, churchId: string, id: string, values: Partial<SubscriptionRow>): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(subscriptions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.id, id)))
    .returning();
  return row;
}

/** Replaces a subscription's allocations. */
export async function replaceSubscriptionFunds(tx: DbOrTx, churchId: string, subscriptionId: string, allocations: Array<{ fundId: string; cents: number }>): Promise<void> {
  await deleteSubscriptionFunds(tx, churchId, subscriptionId);
  if (allocations.length) {
    await tx.insert(subscriptionFunds).values(allocations.map((a) => ({ id: randomUUID(), churchId, subscriptionId, fundId: a.fundId, amount: centsText(a.cents) })));
  }
}

/** Deletes a subscription's allocations; answers how many. */
export async function deleteSubscriptionFunds(tx: DbOrTx, churchId: string, subscriptionId: string): Promise<number> {
  const gone = await tx
    .delete(subscriptionFunds)
    .where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, subscriptionId)))
    .returning({ id: subscriptionFunds.id });
  return gone.length;
}

/** Deletes one allocation of the church; false when it has none with that id. */
export async function deleteSubscriptionFund(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  const gone = await db.delete(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.id, id))).returning({ id: subscriptionFunds.id });
  return gone.length > 0;
}

/** Removes subscriptions (by local id, or the provider's for a provider) with their allocations; answers the ids removed. */
export async function deleteSubscriptions(tx: DbOrTx, churchId: string, by: { id: string; provider?: undefined } | { id?: undefined; provider: string; providerSubscriptionId: string }): Promise<string[]> {
  const where = by.id !== undefined ? eq(subscriptions.id, by.id) : and(eq(subscriptions.provider, by.provider), eq(subscriptions.providerSubscriptionId, by.providerSubscriptionId));
  const removed = await tx.delete(subscriptions).where(and(eq(subscriptions.churchId, churchId), where)).returning({ id: subscriptions.id });
  for (const r of removed) await deleteSubscriptionFunds(tx, churchId, r.id);
  return removed.map((r) => r.id);
}

/** A subscription of the church by the provider's id at that provider. */
export async function subscriptionOfProvider(db: DbOrTx, churchId: string, provider: string, providerSubscriptionId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.provider, provider), eq(subscriptions.providerSubscriptionId, providerSubscriptionId)))
    .limit(1);
  return row;
}
