import { randomUUID } from 'node:crypto';
import { and, asc, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { registrationPayments } from '../db/schema';
import { amountOf } from '../lib/money';

export type RegistrationPaymentRow = typeof registrationPayments.$inferSelect;
export type NewRegistrationPayment = Omit<typeof registrationPayments.$inferInsert, 'id' | 'status' | 'createdAt' | 'updatedAt'>;

/** The church's payment kept under an idempotency key. */
export async function paymentByKey(db: DbOrTx, churchId: string, key: string): Promise<RegistrationPaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(registrationPayments)
    .where(and(eq(registrationPayments.churchId, churchId), eq(registrationPayments.idempotencyKey, key)))
    .limit(1);
  return row;
}

/** Claims the key with a `charging` row before the gateway is asked; undefined when the key is taken. */
export async function claimPayment(db: DbOrTx, values: NewRegistrationPayment): Promise<RegistrationPaymentRow | undefined> {
  const [row] = await db
    .insert(registrationPayments)
    .values({ ...values, id: randomUUID(), status: 'charging' })
    .onConflictDoNothing({ target: [registrationPayments.churchId, registrationPayments.idempotencyKey] })
    .returning();
  return row;
}

/** Takes over a claim left `charging` since before `before` (its process stopped mid-charge); undefined when another has it. */
export async function retakeClaim(db: DbOrTx, row: RegistrationPaymentRow, before: Date): Promise<RegistrationPaymentRow | undefined> {
  const [taken] = await db
    .update(registrationPayments)
    .set({ updatedAt: new Date() })
    .where(and(eq(registrationPayments.churchId, row.churchId), eq(registrationPayments.id, row.id), eq(registrationPayments.status, 'charging'), lt(registrationPayments.updatedAt, before)))
    .returning();
  return taken;
}

/** The gateway's answer written to a claimed row. */
export async function settlePayment(tx: DbOrTx, row: RegistrationPaymentRow, values: Pick<RegistrationPaymentRow, 'status' | 'transactionId' | 'method' | 'clientSecret'>): Promise<RegistrationPaymentRow> {
  const [after] = await tx
    .update(registrationPayments)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(registrationPayments.churchId, row.churchId), eq(registrationPayments.id, row.id)))
    .returning();
  return after!;
}

/** Releases a claim whose charge failed (nothing was charged, or the gateway keeps the same key for a retry). */
export async function releasePayment(db: DbOrTx, row: RegistrationPaymentRow): Promise<void> {
  await db.delete(registrationPayments).where(and(eq(registrationPayments.churchId, row.churchId), eq(registrationPayments.id, row.id), eq(registrationPayments.status, 'charging')));
}

/** The church's payment of a gateway transaction (a webhook's). */
export async function paymentByTransaction(db: DbOrTx, churchId: string, transactionId: string): Promise<RegistrationPaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(registrationPayments)
    .where(and(eq(registrationPayments.churchId, churchId), eq(registrationPayments.transactionId, transactionId)))
    .limit(1);
  return row;
}

/** Moves a payment's status (a webhook's later word on it); answers the row before and after. */
export async function setPaymentStatus(tx: DbOrTx, row: RegistrationPaymentRow, status: string): Promise<RegistrationPaymentRow> {
  const [after] = await tx
    .update(registrationPayments)
    .set({ status, clientSecret: status === 'requires_action' ? row.clientSecret : null, updatedAt: new Date() })
    .where(and(eq(registrationPayments.churchId, row.churchId), eq(registrationPayments.id, row.id)))
    .returning();
  return after!;
}

/** A person's registration payments, oldest first (the GDPR export). */
export async function paymentsOfPerson(db: DbOrTx, churchId: string, personId: string): Promise<RegistrationPaymentRow[]> {
  return db
    .select()
    .from(registrationPayments)
    .where(and(eq(registrationPayments.churchId, churchId), eq(registrationPayments.personId, personId)))
    .orderBy(asc(registrationPayments.createdAt));
}

/** A payment as giving shows it: no secret, no key, the amount as a number like every other amount of the API. */
export const registrationPaymentItem = (r: RegistrationPaymentRow) => ({
  id: r.id,
  registrationId: r.registrationId,
  personId: r.personId,
  email: r.email,
  name: r.name,
  gatewayId: r.gatewayId,
  provider: r.provider,
  transactionId: r.transactionId,
  amount: amountOf(r.amount),
  currency: r.currency,
  status: r.status,
  method: r.method,
  createdAt: r.createdAt,
});
