import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import type { Claims } from '@church/auth';
import { notFound, type DbOrTx } from '@church/common';
import { customers } from '../db/schema';
import { assertOwnPerson, isUuid } from '../domain/access';
import type { PaymentProvider } from '../providers/payments';

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

/**
 * The provider customer a payment uses: the one named (the caller's own, unless they hold Donations.Edit), the
 * person's known one, or a new one created at the provider and linked to the person here.
 */
export async function ensureCustomer(
  db: DbOrTx,
  auth: Claims,
  adapter: PaymentProvider,
  input: { customerId?: string | null; personId?: string | null; email?: string | null; name?: string | null; idempotencyKey?: string },
): Promise<CustomerRow> {
  const churchId = auth.churchId;
  if (input.customerId) {
    const known = await findCustomer(db, churchId, input.customerId, adapter.name);
    if (known) {
      assertOwnPerson(auth, 'Donations.Edit', known.personId);
      return known;
    }
    if (isUuid(input.customerId)) {
      throw notFound('Customer');
    }
    // A provider customer made elsewhere (the church's own dashboard): link it to the person now. Nothing here
    // shows whose it is, so only Donations.Edit links one; a member claiming it would gain "own customer" over
    // someone else's cards and subscriptions.
    assertOwnPerson(auth, 'Donations.Edit', null);
    const [row] = await db
      .insert(customers)
      .values({ id: randomUUID(), churchId, personId: input.personId ?? null, provider: adapter.name, providerCustomerId: input.customerId, email: input.email ?? null, name: input.name ?? null })
      .onConflictDoNothing()
      .returning();
    return row ?? (await findCustomer(db, churchId, input.customerId, adapter.name))!;
  }
  if (input.personId) {
    const [known] = await db
      .select()
      .from(customers)
      .where(and(eq(customers.churchId, churchId), eq(customers.provider, adapter.name), eq(customers.personId, input.personId)))
      .orderBy(asc(customers.createdAt))
      .limit(1);
    if (known) return known;
  }
  const providerCustomerId = await adapter.createCustomer({ email: input.email, name: input.name, personId: input.personId, idempotencyKey: input.idempotencyKey ? `${input.idempotencyKey}:customer` : undefined });
  const [row] = await db
    .insert(customers)
    .values({ id: randomUUID(), churchId, personId: input.personId ?? null, provider: adapter.name, providerCustomerId, email: input.email ?? null, name: input.name ?? null })
    .onConflictDoNothing()
    .returning();
  return row ?? (await findCustomer(db, churchId, providerCustomerId, adapter.name))!;
}

