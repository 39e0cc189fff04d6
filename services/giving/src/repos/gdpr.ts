import { and, asc, eq, isNotNull, or } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { customers, donations, paymentMethods, pledges, registrationPayments, subscriptions } from '../db/schema';
import { listDonations } from './donations';
import { listFundDonations } from './fund-donations';
import { methodItem, methodsOfPerson } from './payment-methods';
import { pledgeItem } from './pledges';
import { paymentsOfPerson, registrationPaymentItem } from './registration-payments';
import { withFunds } from './subscriptions';

/** The kinds of record giving keeps about a person, as the GDPR contracts name them. */
export type GdprKind = 'donations' | 'allocations' | 'subscriptions' | 'customers' | 'paymentMethods' | 'pledges' | 'registrationPayments';

/** A person's records, each kind as giving's own API answers it (no gateway secret: none is kept per person). */
export async function personRecords(db: DbOrTx, churchId: string, personId: string): Promise<Record<GdprKind, unknown[]>> {
  const subs = await db.select().from(subscriptions).where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.personId, personId))).orderBy(asc(subscriptions.createdAt));
  const customerRows = await db
    .select({ id: customers.id, personId: customers.personId, provider: customers.provider, providerCustomerId: customers.providerCustomerId, email: customers.email, name: customers.name })
    .from(customers)
    .where(and(eq(customers.churchId, churchId), eq(customers.personId, personId)))
    .orderBy(asc(customers.createdAt));
  const pledgeRows = await db.select().from(pledges).where(and(eq(pledges.churchId, churchId), eq(pledges.personId, personId))).orderBy(asc(pledges.createdAt));
  return {
    donations: JSON.parse(await listDonations(db, churchId, { personId })) as unknown[],
    allocations: await listFundDonations(db, churchId, { personId }),
    subscriptions: await withFunds(db, churchId, subs),
    customers: customerRows,
    paymentMethods: (await methodsOfPerson(db, churchId, personId)).map(methodItem),
    pledges: pledgeRows.map(pledgeItem),
    registrationPayments: (await paymentsOfPerson(db, churchId, personId)).map(registrationPaymentItem),
  };
}

/**
 * Removes what identifies a person in giving, keeping every amount, date, status and count (README "GDPR"): the
 * donations' receipt email, notes and method details (a card's last digits, a check's number); the customer
 * links (their email and name, and the link to the person: the gateway's customer holds the person's details);
 * the saved methods' index (deleted: brand, last digits, expiry); the registration payments' email and name.
 * Only rows that still carry something are changed, so a second call changes nothing. Answers the ids changed.
 */
export async function anonymizePerson(tx: DbOrTx, churchId: string, personId: string): Promise<Record<'donations' | 'customers' | 'paymentMethods' | 'registrationPayments', string[]>> {
  const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
  const gifts = await tx
    .update(donations)
    .set({ email: null, notes: null, methodDetails: null, updatedAt: new Date() })
    .where(and(eq(donations.churchId, churchId), eq(donations.personId, personId), or(isNotNull(donations.email), isNotNull(donations.notes), isNotNull(donations.methodDetails))))
    .returning({ id: donations.id });
  const links = await tx
    .update(customers)
    .set({ personId: null, email: null, name: null, updatedAt: new Date() })
    .where(and(eq(customers.churchId, churchId), eq(customers.personId, personId)))
    .returning({ id: customers.id });
  const methods = await tx
    .delete(paymentMethods)
    .where(and(eq(paymentMethods.churchId, churchId), eq(paymentMethods.personId, personId)))
    .returning({ id: paymentMethods.id });
  const registrations = await tx
    .update(registrationPayments)
    .set({ email: null, name: null, updatedAt: new Date() })
    .where(and(eq(registrationPayments.churchId, churchId), eq(registrationPayments.personId, personId), or(isNotNull(registrationPayments.email), isNotNull(registrationPayments.name))))
    .returning({ id: registrationPayments.id });
  return { donations: ids(gifts), customers: ids(links), paymentMethods: ids(methods), registrationPayments: ids(registrations) };
}
