import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { isUuid, type DbOrTx } from '@church/common';
import { customers } from '../db/schema';

export type CustomerRow = typeof customers.$inferSelect;

/** A customer of the church by local id or the provider's id. */
export async function findCustomer(db: DbOrTx, churchId: string, id: string, provider?: string): Promise<CustomerRow | undefined> {
  const where = isUuid(id) ? eq(customers.id, id) : eq(customers.providerCustomerId, id);
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.churchId, churchId), where, ...(provider ? [eq(customers.provider, provider)] : [])))
    .limit(1);
  return row;
}

/** The person a customer (local id or provider id) belongs to, in the church; null when none. */
export async function customerOwner(db: DbOrTx, churchId: string, customerId: unknown): Promise<string | null> {
  if (typeof customerId !== 'string' || !customerId) return null;
  const where = isUuid(customerId) ? eq(customers.id, customerId) : eq(customers.providerCustomerId, customerId);
  const [row] = await db.select({ personId: customers.personId }).from(customers).where(and(eq(customers.churchId, churchId), where)).limit(1);
  return row?.personId ?? null;
}

/** The person's first customer at a provider, if any. */
export async function customerOfPerson(db: DbOrTx, churchId: string, provider: string, personId: string): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.churchId, churchId), eq(customers.provider, provider), eq(customers.personId, personId)))
    .orderBy(asc(customers.createdAt))
    .limit(1);
  return row;
}

/** Links a provider customer to the person (once per provider id); answers the row, the one kept when it existed. */
export async function insertCustomer(
  db: DbOrTx,
  churchId: string,
  values: { personId: string | null; provider: string; providerCustomerId: string; email: string | null; name: string | null },
): Promise<CustomerRow> {
  const [row] = await db
    .insert(customers)
    .values({ id: randomUUID(), churchId, ...values })
    .onConflictDoNothing()
    .returning();
  return row ?? (await findCustomer(db, churchId, values.providerCustomerId, values.provider))!;
}
