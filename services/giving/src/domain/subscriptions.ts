import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type DbOrTx } from '@church/common';
import type { GivingDeps } from '../deps';
import { centsText, sumCents, toCents } from '../lib/money';
import type { ItemParam } from '../lib/params';
import { checkFunds } from '../repos/donations';
import { deleteSubscriptionFund, deleteSubscriptionFunds, deleteSubscriptions, replaceSubscriptionFunds, subscriptionByRef, updateSubscriptionRow, type SubscriptionRow } from '../repos/subscriptions';
import type { CancelBody, SubscriptionUpdate } from '../schemas';
import { assertOwnPerson } from './access';
import { paymentsFor, type PaymentDeps } from './gateways';

/** What changing and cancelling subscriptions uses: the gateway's adapter, and the audit log's queue. */
export type SubscriptionDeps = PaymentDeps & Pick<GivingDeps, 'queue' | 'module'>;

/** One item of a batch, checked: the subscription it names and what changes (only what differs from what is kept). */
interface Plan {
  sub: SubscriptionRow;
  amountCents: number;
  allocations?: Array<{ fundId: string; cents: number }>;
  interval?: { interval: string; interval_count: number };
  paymentMethodId?: string;
  /** whether the gateway must be asked (the amount, the interval or the method changes) */
  remote: boolean;
}

/**
 * Checks every item before anything is asked or written: the subscription the church's and the caller's own
 * (or Donations.Edit), the funds the church's, the allocations within the amount, and no subscription twice.
 */
async function planUpdates(db: DbOrTx, actor: Actor, items: Array<z.output<typeof SubscriptionUpdate>>, at: ItemParam): Promise<Plan[]> {
  const churchId = actor.churchId;
  const plans: Plan[] = [];
  for (const [i, item] of items.entries()) {
    const sub = await subscriptionByRef(db, churchId, item.id);
    if (!sub) throw notFound('Subscription');
    assertOwnPerson(actor, 'Donations.Edit', sub.personId);
    const amountCents = item.amount === undefined ? toCents(sub.amount) : toCents(item.amount);
    let allocations: Plan['allocations'];
    if (item.funds) {
      allocations = item.funds.map((f, j) => {
        const fundId = f.fundId ?? f.id;
        if (!fundId) throw badRequest(at(i, `funds[${j}].fundId`), 'is required');
        return { fundId, cents: toCents(f.amount) };
      });
      await checkFunds(db, churchId, allocations.map((a) => a.fundId), (j) => at(i, `funds[${j}].fundId`));
      if (sumCents(allocations.map((a) => a.cents)) > amountCents) throw badRequest(at(i, 'funds'), 'allocations must not exceed the amount');
    }
    // The portal posts the whole subscription back: only what differs from what is kept goes to the gateway.
    const wanted = (typeof item.interval === 'object' ? item.interval : undefined) ?? (item.plan ? { interval: item.plan.interval ?? sub.interval, interval_count: item.plan.interval_count ?? sub.intervalCount } : undefined);
    const interval = wanted && (wanted.interval !== sub.interval || wanted.interval_count !== sub.intervalCount) ? wanted : undefined;
    const methodId = item.paymentMethodId ?? (item.default_payment_method || item.default_source || undefined);
    const paymentMethodId = methodId && methodId !== sub.paymentMethodId ? methodId : undefined;
    const amountChanged = amountCents !== toCents(sub.amount);
    plans.push({ sub, amountCents, allocations, interval, paymentMethodId, remote: amountChanged || !!interval || !!paymentMethodId });
  }
  plans.forEach((plan, i) => {
    if (plans.findIndex((p) => p.sub.id === plan.sub.id) < i) throw badRequest(at(i, 'id'), 'names a subscription already in this batch');
  });
  return plans;
}

/**
 * Asks the gateway for each item that changes there, in order, with no transaction open. A refusal stops the
 * batch: the items the gateway took before it are answered with the refusal, nothing after it is asked.
 */
async function askGateway(deps: PaymentDeps, churchId: string, plans: Plan[]): Promise<{ taken: Array<Plan & { status?: string }>; refused?: unknown }> {
  const taken: Array<Plan & { status?: string }> = [];
  for (const plan of plans) {
    if (!plan.remote) {
      taken.push(plan);
      continue;
    }
    const { sub, amountCents, interval, paymentMethodId } = plan;
    try {
      const { gateway, provider } = await paymentsFor(deps, churchId, { provider: sub.provider });
      const remote = await provider.updateSubscription(sub.providerSubscriptionId, {
        ...(amountCents !== toCents(sub.amount) || interval ? { amountCents, currency: sub.currency, interval: interval?.interval ?? sub.interval, intervalCount: interval?.interval_count ?? sub.intervalCount } : {}),
        paymentMethodId: paymentMethodId ?? null,
        productId: gateway.productId,
      });
      taken.push({ ...plan, status: remote.status });
    } catch (err) {
      return { taken, refused: err };
    }
  }
  return { taken };
}

/**
 * `POST /subscriptions`, a batch (README "Subscriptions"): every item is checked first, then the gateway is asked
 * item by item (outside any transaction: no connection is held while a gateway answers), then every item's rows
 * are written in one transaction with their report, so the batch is written whole or not at all (a subscription
 * removed meanwhile, by a cancellation's webhook, fails the whole write). A gateway refusing an item stops
 * there: the items it already took are still written (the record follows the gateway) and the refusal is the
 * answer. Answers the rows in input order.
 */
export async function updateSubscriptions(deps: SubscriptionDeps, actor: Actor, items: Array<z.output<typeof SubscriptionUpdate>>, at: ItemParam): Promise<SubscriptionRow[]> {
  const churchId = actor.churchId;
  const plans = await planUpdates(deps.db, actor, items, at);
  const { taken, refused } = await askGateway(deps, churchId, plans);
  const rows = taken.length
    ? await deps.db.transaction(async (tx) => {
        const out = [];
        for (const { sub, amountCents, allocations, interval, paymentMethodId, status } of taken) {
          const updated = await updateSubscriptionRow(tx, churchId, sub.id, {
            amount: centsText(amountCents),
            ...(interval ? { interval: interval.interval, intervalCount: interval.interval_count } : {}),
            ...(paymentMethodId ? { paymentMethodId } : {}),
            ...(status ? { status } : {}),
          });
          if (!updated) throw notFound('Subscription');
          if (allocations) await replaceSubscriptionFunds(tx, churchId, sub.id, allocations);
          out.push({ before: sub, after: updated });
        }
        await reportChanges(deps, out.map(({ before, after }) => ({ churchId, entityType: 'subscription', entityId: before.id, action: 'updated' as const, before, after })), { req: actor, tx });
        return out.map((o) => o.after);
      })
    : [];
  if (refused) throw refused;
  return rows;
}

/** `DELETE /subscriptions/:id`: cancelled at the provider first (when that fails, nothing is removed here), then removed with its funds. */
export async function cancelSubscription(deps: SubscriptionDeps, actor: Actor, ref: string, body: z.output<typeof CancelBody>): Promise<void> {
  const churchId = actor.churchId;
  const sub = await subscriptionByRef(deps.db, churchId, ref);
  if (!sub) throw notFound('Subscription');
  if (body?.provider && body.provider !== sub.provider) throw badRequest('provider', `must be ${sub.provider}, the subscription's provider`);
  const { provider } = await paymentsFor(deps, churchId, { provider: sub.provider });
  await provider.cancelSubscription(sub.providerSubscriptionId, body?.reason ?? null);
  await deps.db.transaction(async (tx) => {
    await deleteSubscriptions(tx, churchId, { id: sub.id });
    await reportChanges(deps, [{ churchId, entityType: 'subscription', entityId: sub.id, action: 'destroyed', before: sub }], { req: actor, tx });
  });
}

/**
 * `DELETE /subscriptionfunds/subscription/:id`: a subscription's allocations removed (reported when there were
 * some); answers how many. A subscription already gone answers 0 (the donor portal cancels with this and
 * `DELETE /subscriptions/:id` at once).
 */
export async function removeSubscriptionFunds(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, ref: string): Promise<number> {
  const churchId = actor.churchId;
  const sub = await subscriptionByRef(deps.db, churchId, ref);
  if (!sub) return 0;
  return deps.db.transaction(async (tx) => {
    const n = await deleteSubscriptionFunds(tx, churchId, sub.id);
    if (n) await reportChanges(deps, [{ churchId, entityType: 'subscription', entityId: sub.id, action: 'fundsRemoved' }], { req: actor, tx });
    return n;
  });
}

/** `DELETE /subscriptionfunds/:id`: one allocation of the church removed and reported; 404 when it has none with the id. */
export async function removeSubscriptionFund(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    if (!(await deleteSubscriptionFund(tx, actor.churchId, id))) throw notFound('Subscription fund');
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'subscriptionFund', entityId: id, action: 'destroyed' }], { req: actor, tx });
  });
}
