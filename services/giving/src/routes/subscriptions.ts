import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, batchOf, getRow, Id, IdParams, itemParam, listRows, notFound, type ZodTypeProvider } from '@church/common';
import { subscriptionFunds, subscriptions } from '../db/schema';
import { assertOwnPerson, ownByLookup, ownInBody, subscriptionOwner } from '../domain/access';
import { amountOf, centsText, sumCents, toCents } from '../domain/money';
import { checkFunds } from '../repos/donations';
import { paymentsFor } from '../repos/gateways';
import { NonNegativeMoney, PositiveMoney, ProviderName, Subscription } from '../schemas';

type SubRow = typeof subscriptions.$inferSelect;

const SubscriptionUpdate = z.object({
  id: Id,
  amount: PositiveMoney.optional(),
  interval: z.object({ interval_count: z.coerce.number().int().min(1).max(36).default(1), interval: z.enum(['day', 'week', 'month', 'year']) }).optional(),
  paymentMethodId: z.string().trim().min(1).max(255).optional(),
  /** replaces the allocations; their sum must not exceed the amount */
  funds: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: NonNegativeMoney })).min(1).max(10).optional(),
});
const CancelBody = z.object({ provider: ProviderName.optional(), reason: z.string().trim().max(500).optional() }).optional();

/** `/giving/subscriptions`: recurring gifts; updates and cancellations go to the gateway first. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const withFunds = async (churchId: string, rows: SubRow[]) => {
    const allocations = rows.length
      ? await app.db.select().from(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), inArray(subscriptionFunds.subscriptionId, rows.map((r) => r.id))))
      : [];
    return rows.map((r) => ({
      ...r,
      amount: amountOf(r.amount),
      fee: amountOf(r.fee),
      funds: allocations.filter((a) => a.subscriptionId === r.id).map((a) => ({ id: a.id, fundId: a.fundId, amount: amountOf(a.amount) })),
    }));
  };

  app.get('/giving/subscriptions', { config: { access: requires('Donations.ViewSummary') }, schema: { response: { 200: z.array(Subscription) } } }, async (req) =>
    withFunds(req.auth.churchId, (await listRows(app.db, subscriptions, req.auth.churchId, { orderBy: asc(subscriptions.createdAt) })) as SubRow[]),
  );

  app.get('/giving/subscriptions/:id', { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: Subscription } } }, async (req) =>
    (await withFunds(req.auth.churchId, [(await getRow(app.db, subscriptions, req.auth.churchId, req.params.id, 'Subscription')) as SubRow]))[0]!,
  );

  app.post(
    '/giving/subscriptions',
    { config: { access: requires('Donations.Edit', ownInBody('own subscription')) }, schema: { body: batchOf(SubscriptionUpdate), response: { 200: z.array(Subscription) } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const out: SubRow[] = [];
      for (const [i, item] of req.body.entries()) {
        const sub = (await getRow(app.db, subscriptions, churchId, item.id, 'Subscription')) as SubRow;
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
        const { gateway, provider } = await paymentsFor(app, churchId, { provider: sub.provider });
        const changed = item.amount !== undefined || item.interval || item.paymentMethodId;
        const remote = changed
          ? await provider.updateSubscription(sub.providerSubscriptionId, {
              ...(item.amount !== undefined || item.interval ? { amountCents, currency: sub.currency, interval: item.interval?.interval ?? sub.interval, intervalCount: item.interval?.interval_count ?? sub.intervalCount } : {}),
              paymentMethodId: item.paymentMethodId ?? null,
              productId: gateway.productId,
            })
          : null;
        const row = await app.db.transaction(async (tx) => {
          const [updated] = await tx
            .update(subscriptions)
            .set({
              amount: centsText(amountCents),
              ...(item.interval ? { interval: item.interval.interval, intervalCount: item.interval.interval_count } : {}),
              ...(item.paymentMethodId ? { paymentMethodId: item.paymentMethodId } : {}),
              ...(remote ? { status: remote.status } : {}),
              updatedAt: new Date(),
            })
            .where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.id, sub.id)))
            .returning();
          if (!updated) throw notFound('Subscription');
          if (allocations) {
            await tx.delete(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, sub.id)));
            await tx.insert(subscriptionFunds).values(allocations.map((a) => ({ id: randomUUID(), churchId, subscriptionId: sub.id, fundId: a.fundId, amount: centsText(a.cents) })));
          }
          return updated;
        });
        out.push(row);
      }
      return withFunds(churchId, out);
    },
  );

  app.delete(
    '/giving/subscriptions/:id',
    { config: { access: requires('Donations.Edit', ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => (req.params as { id?: string }).id)) }, schema: { params: IdParams, body: CancelBody } },
    async (req) => {
      const churchId = req.auth.churchId;
      const sub = (await getRow(app.db, subscriptions, churchId, req.params.id, 'Subscription')) as SubRow;
      if (req.body?.provider && req.body.provider !== sub.provider) throw badRequest('provider', `must be ${sub.provider}, the subscription's provider`);
      const { provider } = await paymentsFor(app, churchId, { provider: sub.provider });
      // Cancelled at the provider first: when that fails, nothing is removed here.
      await provider.cancelSubscription(sub.providerSubscriptionId, req.body?.reason ?? null);
      await app.db.transaction(async (tx) => {
        await tx.delete(subscriptionFunds).where(and(eq(subscriptionFunds.churchId, churchId), eq(subscriptionFunds.subscriptionId, sub.id)));
        await tx.delete(subscriptions).where(and(eq(subscriptions.churchId, churchId), eq(subscriptions.id, sub.id)));
      });
      return {};
    },
  );
}
