import type { Claims } from '@church/auth';
import { isUuid, notFound, type DbOrTx } from '@church/common';
import { amountOf } from '../lib/money';
import type { PaymentProvider } from '../providers/payments';
import { customerOfPerson, findCustomer, insertCustomer, type CustomerRow } from '../repos/customers';
import { listSubscriptionRows } from '../repos/subscriptions';
import { assertOwnPerson } from './access';
import { paymentsFor, type PaymentDeps } from './gateways';

/**
 * The provider customer a payment uses: the one named (the caller's own, unless they hold Donations.Edit), the
 * person's known one, or a new one created at the provider and linked to the person here.
 */
export async function ensureCustomer(
  db: DbOrTx,
  actor: Claims,
  adapter: PaymentProvider,
  input: { customerId?: string | null; personId?: string | null; email?: string | null; name?: string | null; idempotencyKey?: string },
): Promise<CustomerRow> {
  const churchId = actor.churchId;
  const link = (providerCustomerId: string) =>
    insertCustomer(db, churchId, { personId: input.personId ?? null, provider: adapter.name, providerCustomerId, email: input.email ?? null, name: input.name ?? null });
  if (input.customerId) {
    const known = await findCustomer(db, churchId, input.customerId, adapter.name);
    if (known) {
      assertOwnPerson(actor, 'Donations.Edit', known.personId);
      return known;
    }
    if (isUuid(input.customerId)) {
      throw notFound('Customer');
    }
    // A provider customer made elsewhere (the church's own dashboard): link it to the person now. Nothing here
    // shows whose it is, so only Donations.Edit links one; a member claiming it would gain "own customer" over
    // someone else's cards and subscriptions.
    assertOwnPerson(actor, 'Donations.Edit', null);
    return link(input.customerId);
  }
  if (input.personId) {
    const known = await customerOfPerson(db, churchId, adapter.name, input.personId);
    if (known) return known;
  }
  const providerCustomerId = await adapter.createCustomer({ email: input.email, name: input.name, personId: input.personId, idempotencyKey: input.idempotencyKey ? `${input.idempotencyKey}:customer` : undefined });
  return link(providerCustomerId);
}

/**
 * `GET /customers/:id/subscriptions`: the customer's subscriptions as the gateway holds them (the source of
 * truth), each with the local id where known, in the fields the donor portal reads (Stripe's own names: seconds,
 * and cents in `plan`). Another church's customer: 404.
 */
export async function gatewaySubscriptions(deps: PaymentDeps, churchId: string, customerRef: string) {
  const customer = await findCustomer(deps.db, churchId, customerRef);
  if (!customer) throw notFound('Customer');
  const local = await listSubscriptionRows(deps.db, churchId, { customerId: customer.id });
  const localByProvider = new Map(local.map((s) => [s.providerSubscriptionId, s.id]));
  const { provider } = await paymentsFor(deps, churchId, { provider: customer.provider });
  const remote = await provider.listSubscriptions(customer.providerCustomerId);
  return {
    object: 'list' as const,
    data: remote.map((s) => ({
      id: s.id,
      subscriptionId: localByProvider.get(s.id) ?? null,
      status: s.status,
      amount: s.amountCents === null ? null : amountOf(s.amountCents),
      currency: s.currency,
      interval: s.interval,
      intervalCount: s.intervalCount,
      currentPeriodEnd: s.currentPeriodEnd ? new Date(s.currentPeriodEnd * 1000).toISOString() : null,
      customer: s.customerId,
      billing_cycle_anchor: s.billingCycleAnchor,
      default_payment_method: s.defaultPaymentMethod,
      default_source: s.defaultSource,
      plan: { amount: s.amountCents, currency: s.currency, interval: s.interval, interval_count: s.intervalCount },
    })),
  };
}
