import type { FastifyRequest } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { hasPermission, rule, type AccessRule, type Claims } from '@church/auth';
import { isUuid, unauthorized, type Db } from '@church/common';
import { customers, subscriptions } from '../db/schema';

// The spec's "own" terms. Rules that read the path or query string decide before the body is read (the
// shared access hook); rules over a body field pass any signed-in person at that point, and the handler
// finishes the decision with `assertOwnPerson` once the body is validated.

/** `own personId` from the query string or path (`?personId=`, `/personid/:id`). */
export const ownPersonIn = (where: 'query' | 'params', field: string): AccessRule =>
  rule('own personId', (req, auth) => {
    const source = (where === 'query' ? req.query : req.params) as Record<string, unknown> | undefined;
    const value = source?.[field];
    return !!auth.personId && typeof value === 'string' && value.toLowerCase() === auth.personId.toLowerCase();
  });

/** `own …` decided in the handler from the body: admits a signed-in person here. */
export const ownInBody = (text: string): AccessRule => rule(text, (_req, auth) => !!auth.personId);

/** Throws 401 unless the caller holds the permission or the record belongs to their own person. */
export function assertOwnPerson(auth: Claims, permission: string, personId: string | null | undefined): void {
  if (hasPermission(auth, permission, 'GivingApi')) return;
  if (auth.personId && personId && personId.toLowerCase() === auth.personId.toLowerCase()) return;
  throw unauthorized(`Missing permission: ${permission} or own record`);
}

/** The person a customer (local id or provider id) belongs to, in the caller's church. */
export async function customerOwner(db: Db, churchId: string, customerId: unknown): Promise<string | null> {
  if (typeof customerId !== 'string' || !customerId) return null;
  const where = isUuid(customerId) ? eq(customers.id, customerId) : eq(customers.providerCustomerId, customerId);
  const [row] = await db.select({ personId: customers.personId }).from(customers).where(and(eq(customers.churchId, churchId), where)).limit(1);
  return row?.personId ?? null;
}

/** The person a subscription (local id or provider id) belongs to, in the caller's church. */
export async function subscriptionOwner(db: Db, churchId: string, subscriptionId: unknown): Promise<string | null> {
  if (typeof subscriptionId !== 'string' || !subscriptionId) return null;
  const where = isUuid(subscriptionId) ? eq(subscriptions.id, subscriptionId) : eq(subscriptions.providerSubscriptionId, subscriptionId);
  const [row] = await db.select({ personId: subscriptions.personId }).from(subscriptions).where(and(eq(subscriptions.churchId, churchId), where)).limit(1);
  return row?.personId ?? null;
}

/** `own record` / `own customer` / `own subscription` decided from a path or query id by looking the record up. */
export function ownByLookup(text: string, db: () => Db, owner: (db: Db, churchId: string, id: unknown) => Promise<string | null>, pick: (req: FastifyRequest) => unknown): AccessRule {
  return rule(text, async (req, auth) => {
    if (!auth.personId) return false;
    const personId = await owner(db(), auth.churchId, pick(req));
    return !!personId && personId.toLowerCase() === auth.personId.toLowerCase();
  });
}

export { isUuid };
