import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { isUuid, type DbOrTx } from '@church/common';
import { paymentMethods } from '../db/schema';
import type { MethodInfo } from '../providers/payments';

export type MethodRow = typeof paymentMethods.$inferSelect;

/** A person's stored methods, oldest first. */
export async function methodsOfPerson(db: DbOrTx, churchId: string, personId: string): Promise<MethodRow[]> {
  return db
    .select()
    .from(paymentMethods)
    .where(and(eq(paymentMethods.churchId, churchId), eq(paymentMethods.personId, personId)))
    .orderBy(asc(paymentMethods.createdAt));
}

/** The church's stored methods with this id: the provider's (`pm_…`), or the local one. */
export async function methodsById(db: DbOrTx, churchId: string, id: string): Promise<MethodRow[]> {
  const byId = isUuid(id) ? eq(paymentMethods.id, id) : eq(paymentMethods.providerMethodId, id);
  return db.select().from(paymentMethods).where(and(eq(paymentMethods.churchId, churchId), byId));
}

/** Keeps the local index of a method the provider holds (insert or refresh); answers the row. */
export async function keepMethod(db: DbOrTx, churchId: string, customer: { id: string | null; personId: string | null; provider: string }, info: MethodInfo): Promise<MethodRow> {
  const values = {
    personId: customer.personId,
    customerId: customer.id,
    provider: customer.provider,
    providerMethodId: info.id,
    type: info.type,
    brand: info.brand ?? null,
    last4: info.last4 ?? null,
    expMonth: info.expMonth ?? null,
    expYear: info.expYear ?? null,
    bankName: info.bankName ?? null,
    status: info.status,
  };
  const [row] = await db
    .insert(paymentMethods)
    .values({ id: randomUUID(), churchId, ...values })
    .onConflictDoUpdate({ target: [paymentMethods.churchId, paymentMethods.provider, paymentMethods.providerMethodId], set: { ...values, updatedAt: new Date() } })
    .returning();
  return row!;
}

/** Drops the index of a method the provider detached. */
export async function forgetMethod(db: DbOrTx, churchId: string, providerMethodId: string): Promise<void> {
  await db.delete(paymentMethods).where(and(eq(paymentMethods.churchId, churchId), eq(paymentMethods.providerMethodId, providerMethodId)));
}

/** A stored method as the API answers it (`PaymentMethod`): by the provider's id, with the forms' names. */
export const methodItem = (r: MethodRow) => ({
  id: r.providerMethodId,
  personId: r.personId,
  customerId: r.customerId,
  provider: r.provider,
  providerMethodId: r.providerMethodId,
  type: r.type,
  brand: r.brand,
  last4: r.last4,
  expMonth: r.expMonth,
  expYear: r.expYear,
  bankName: r.bankName,
  status: r.status,
  name: r.brand ?? r.bankName,
  exp_month: r.expMonth,
  exp_year: r.expYear,
});
