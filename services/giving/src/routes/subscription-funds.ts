import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires, rule } from '@church/auth';
import { actorOf, Empty, IdParams, notFound, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { removeSubscriptionFund, removeSubscriptionFunds } from '../domain/subscriptions';
import { subscriptionByRef, subscriptionFundItems, subscriptionOwner } from '../repos/subscriptions';
import { ProviderId, ProviderRefParams, SubscriptionFund } from '../schemas';
import { ownByLookup } from './access';

const base = '/giving/subscriptionfunds';

/** `/giving/subscriptionfunds`: a subscription's fund allocations (by its local id or the provider's, as the donor portal names it). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);
  const own = (pick: (params: Record<string, string | undefined>) => string | undefined) =>
    ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => pick({ ...(req.query as object), ...(req.params as object) }));

  app.get(
    base,
    {
      config: { access: requires('Donations.View', own((p) => p.subscriptionId)) },
      schema: { querystring: z.object({ subscriptionId: ProviderId.optional() }), response: { 200: z.array(SubscriptionFund) } },
    },
    async (req) => {
      const churchId = req.auth.churchId;
      if (!req.query.subscriptionId) return subscriptionFundItems(app.db, churchId, {});
      const sub = await subscriptionByRef(app.db, churchId, req.query.subscriptionId);
      return sub ? subscriptionFundItems(app.db, churchId, { subscriptionId: sub.id }) : [];
    },
  );

  app.get(`${base}/:id`, { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: SubscriptionFund } } }, async (req) => {
    const [row] = await subscriptionFundItems(app.db, req.auth.churchId, { id: req.params.id });
    if (!row) throw notFound('Subscription fund');
    return row;
  });

  // The donor portal cancels with this and `DELETE /subscriptions/:id` at once: a subscription already removed by
  // the other call has no allocations left, so a signed-in caller is answered `{deleted: 0}` rather than refused.
  const goneOrOwn = rule('own subscription', async (req, auth) => !(await subscriptionByRef(app.db, auth.churchId, (req.params as { id: string }).id)));
  app.delete(
    `${base}/subscription/:id`,
    { config: { access: requires('Donations.Edit', own((p) => p.id), goneOrOwn) }, schema: { params: ProviderRefParams, response: { 200: z.object({ deleted: z.number().int() }) } } },
    async (req) => ({ deleted: await removeSubscriptionFunds(deps, actorOf(req), req.params.id) }),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await removeSubscriptionFund(deps, actorOf(req), req.params.id);
    return {};
  });
}
