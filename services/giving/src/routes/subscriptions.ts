import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, batchOf, Empty, Id, IdParams, itemParam, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { assertOwnPerson, ownByLookup, ownInBody, subscriptionOwner } from '../domain/access';
import { centsText, sumCents, toCents } from '../domain/money';
import { checkFunds } from '../repos/donations';
import { paymentsFor } from '../repos/gateways';
import { deleteSubscriptions, listSubscriptionRows, replaceSubscriptionFunds, subscriptionByRef, updateSubscriptionRow, withFunds } from '../repos/subscriptions';
import { NonNegativeMoney, PositiveMoney, ProviderId, ProviderName, ProviderRefParams, Subscription } from '../schemas';

const base = '/giving/subscriptions';
const Interval = z.object({ interval_count: z.coerce.number().int().min(1).max(36).default(1), interval: z.enum(['day', 'week', 'month', 'year']) });
const SubscriptionUpdate = z.object({
  /** the local id, or the provider's (`sub_…`) as the donor portal names it */
  id: ProviderId,
  amount: PositiveMoney.optional(),
  /** a new interval; the name alone (`month`), as a gateway subscription read back carries it, changes nothing */
  interval: z.union([Interval, z.string().max(20)]).optional(),
  /** the donor portal's form of `interval` (a Stripe subscription's `plan`) */
  plan: Interval.partial().optional(),
  paymentMethodId: z.string().trim().min(1).max(255).optional(),
  /** the donor portal's form of `paymentMethodId`: a card, or a bank account */
  default_payment_method: z.string().trim().max(255).nullish(),
  default_source: z.string().trim().max(255).nullish(),
  /** replaces the allocations; their sum must not exceed the amount */
  funds: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: NonNegativeMoney })).min(1).max(10).optional(),
});
/** the apps cancel with no body at all */
const CancelBody = z.object({ provider: ProviderName.optional(), reason: z.string().trim().max(500).optional() }).nullish();

/** `/giving/subscriptions`: recurring gifts; updates and cancellations go to the gateway first. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const ownSubscription = ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => (req.params as { id?: string }).id);

  app.get(base, { config: { access: requires('Donations.ViewSummary') }, schema: { response: { 200: z.array(Subscription) } } }, async (req) =>
    withFunds(app.db, req.auth.churchId, await listSubscriptionRows(app.db, req.auth.churchId)),
  );

  app.get(`${base}/:id`, { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: Subscription } } }, async (req) => {
    const row = await subscriptionByRef(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Subscription');
    return (await withFunds(app.db, req.auth.churchId, [row]))[0]!;
  });

  // A batch: every item is checked first, then the gateway is asked item by item (outside any transaction: no
  // connection is held while a gateway answers), then what the gateway took is written in one transaction. A
  // gateway refusing an item stops there: the items it already took are still written (the record follows the
  // gateway) and the refusal is the answer; nothing after it is asked or written. README: "Subscriptions".
  app.post(base, { config: { access: requires('Donations.Edit', ownInBody('own subscription')) }, schema: { body: batchOf(SubscriptionUpdate), response: { 200: z.array(Subscription) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const plans: Array<{
      sub: NonNullable<Awaited<ReturnType<typeof subscriptionByRef>>>;
      amountCents: number;
      allocations?: Array<{ fundId: string; cents: number }>;
      interval?: { interval: string; interval_count: number };
      paymentMethodId?: string;
      remote: boolean;
    }> = [];
    for (const [i, item] of req.body.entries()) {
      const sub = await subscriptionByRef(app.db, churchId, item.id);
      if (!sub) throw notFound('Subscription');
      assertOwnPerson(req.auth, 'Donations.Edit', sub.personId);
      const amountCents = item.amount === undefined ? toCents(sub.amount) : toCents(item.amount);
      let allocations: Array<{ fundId: string; cents: number }> | undefined;
      if (item.funds) {
        allocations = item.funds.map((f, j) => {
          const fundId = f.fundId ?? f.id;
          if (!fundId) throw badRequest(itemParam(req, i, `funds[${j}].fundId`), 'is required');
          return { fundId, cents: toCents(f.amount) };
        });
        await checkFunds(app.db, churchId, allocations.map((a) => a.fundId), (j) => itemParam(req, i, `funds[${j}].fundId`));
        if (sumCents(allocations.map((a) => a.cents)) > amountCents) throw badRequest(itemParam(req, i, 'funds'), 'allocations must not exceed the amount');
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
      if (plans.findIndex((p) => p.sub.id === plan.sub.id) < i) throw badRequest(itemParam(req, i, 'id'), 'names a subscription already in this batch');
    });

    const taken: Array<(typeof plans)[number] & { status?: string }> = [];
    let refused: unknown;
    for (const plan of plans) {
      if (!plan.remote) {
        taken.push(plan);
        continue;
      }
      const { sub, amountCents, interval, paymentMethodId } = plan;
      try {
        const { gateway, provider } = await paymentsFor(app, churchId, { provider: sub.provider });
        const remote = await provider.updateSubscription(sub.providerSubscriptionId, {
          ...(amountCents !== toCents(sub.amount) || interval
            ? { amountCents, currency: sub.currency, interval: interval?.interval ?? sub.interval, intervalCount: interval?.interval_count ?? sub.intervalCount }
            : {}),
          paymentMethodId: paymentMethodId ?? null,
          productId: gateway.productId,
        });
        taken.push({ ...plan, status: remote.status });
      } catch (err) {
        refused = err;
        break;
      }
    }

    const rows = taken.length
      ? await app.db.transaction(async (tx) => {
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
          await reportChanges(app.deps, out.map(({ before, after }) => ({ churchId, entityType: 'subscription', entityId: before.id, action: 'updated' as const, before, after })), { req, tx });
          return out.map((o) => o.after);
        })
      : [];
    if (refused) throw refused;
    return withFunds(app.db, churchId, rows);
  });

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit', ownSubscription) }, schema: { params: ProviderRefParams, body: CancelBody, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    const sub = await subscriptionByRef(app.db, churchId, req.params.id);
    if (!sub) throw notFound('Subscription');
    if (req.body?.provider && req.body.provider !== sub.provider) throw badRequest('provider', `must be ${sub.provider}, the subscription's provider`);
    const { provider } = await paymentsFor(app, churchId, { provider: sub.provider });
    // Cancelled at the provider first: when that fails, nothing is removed here.
    await provider.cancelSubscription(sub.providerSubscriptionId, req.body?.reason ?? null);
    await app.db.transaction(async (tx) => {
      await deleteSubscriptions(tx, churchId, { id: sub.id });
      await reportChanges(app.deps, [{ churchId, entityType: 'subscription', entityId: sub.id, action: 'destroyed', before: sub }], { req, tx });
    });
    return {};
  });
}
