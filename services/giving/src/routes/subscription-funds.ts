import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { deleteRow, Id, IdParams, notFound, type ZodTypeProvider } from '@church/common';
import { funds, subscriptionFunds, subscriptions } from '../db/schema';
import { ownByLookup, subscriptionOwner } from '../domain/access';
import { amountOf } from '../domain/money';
import { SubscriptionFund } from '../schemas';

/** `/giving/subscriptionfunds`: a subscription's fund allocations. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const select = (churchId: string, where: ReturnType<typeof eq>) =>
    app.db
      .select({ id: subscriptionFunds.id, subscriptionId: subscriptionFunds.subscriptionId, fundId: subscriptionFunds.fundId, amount: subscriptionFunds.amount, fundName: funds.name })
      .from(subscriptionFunds)
      .leftJoin(funds, and(eq(funds.churchId, subscriptionFunds.churchId), eq(funds.id, subscriptionFunds.fundId)))
      .where(and(eq(subscriptionFunds.churchId, churchId), where))
      .orderBy(asc(subscriptionFunds.createdAt));
  const item = (r: { id: string; subscriptionId: string; fundId: string; amount: string; fundName: string | null }) => ({ ...r, amount: amountOf(r.amount) });

  app.get(
    '/giving/subscriptionfunds',
    {
      config: { access: requires('Donations.View', ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => (req.query as { subscriptionId?: string }).subscriptionId)) },
      schema: { querystring: z.object({ subscriptionId: Id.optional() }), response: { 200: z.array(SubscriptionFund) } },
    },
    async (req) => {
      const churchId = req.auth.churchId;
      const rows = req.query.subscriptionId
        ? await select(churchId, eq(subscriptionFunds.subscriptionId, req.query.subscriptionId))
        : await select(churchId, eq(subscriptionFunds.churchId, churchId));
      return rows.map(item);
    },
  );

  app.get('/giving/subscriptionfunds/:id', { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: SubscriptionFund } } }, async (req) => {
    const [row] = await select(req.auth.churchId, eq(subscriptionFunds.id, req.params.id));
    if (!row) throw notFound('Subscription fund');
    return item(row);
  });

  app.delete(
    '/giving/subscriptionfunds/subscription/:id',
    { config: { access: requires('Donations.Edit', ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => (req.params as { id?: string }).id)) }, schema: { params: IdParams } },
    async (req) => {
      const [sub] = await app.db.select({ id: subscriptions.id }).from(subscriptions).where(and(eq(subscriptions.churchId, req.auth.churchId), eq(subscriptions.id, req.params.id))).limit(1);
      if (!sub) throw notFound('Subscription');
      const gone = await app.db
        .delete(subscriptionFunds)
        .where(and(eq(subscriptionFunds.churchId, req.auth.churchId), eq(subscriptionFunds.subscriptionId, sub.id)))
        .returning({ id: subscriptionFunds.id });
      return { deleted: gone.length };
    },
  );

  app.delete('/giving/subscriptionfunds/:id', { config: { access: requires('Donations.Edit') }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, subscriptionFunds, req.auth.churchId, req.params.id);
    return {};
  });
}
