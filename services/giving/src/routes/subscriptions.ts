import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { actorOf, batchOf, Empty, IdParams, notFound, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { cancelSubscription, updateSubscriptions } from '../domain/subscriptions';
import { listSubscriptionRows, subscriptionByRef, subscriptionOwner, withFunds } from '../repos/subscriptions';
import { CancelBody, ProviderRefParams, Subscription, SubscriptionUpdate } from '../schemas';
import { ownByLookup, ownInBody } from './access';
import { itemParams } from './helpers';

const base = '/giving/subscriptions';

/** `/giving/subscriptions`: recurring gifts; updates and cancellations go to the gateway first. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);
  const ownSubscription = ownByLookup('own subscription', () => app.db, subscriptionOwner, (req) => (req.params as { id?: string }).id);

  app.get(base, { config: { access: requires('Donations.ViewSummary') }, schema: { response: { 200: z.array(Subscription) } } }, async (req) =>
    withFunds(app.db, req.auth.churchId, await listSubscriptionRows(app.db, req.auth.churchId)),
  );

  app.get(`${base}/:id`, { config: { access: requires('Donations.ViewSummary') }, schema: { params: IdParams, response: { 200: Subscription } } }, async (req) => {
    const row = await subscriptionByRef(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Subscription');
    return (await withFunds(app.db, req.auth.churchId, [row]))[0]!;
  });

  // A batch: checked whole, the gateway asked with no transaction open, then one transaction (README: "Subscriptions").
  app.post(
    base,
    { config: { access: requires('Donations.Edit', ownInBody('own subscription')) }, schema: { body: batchOf(SubscriptionUpdate), response: { 200: z.array(Subscription) } } },
    async (req) => withFunds(app.db, req.auth.churchId, await updateSubscriptions(deps, actorOf(req), req.body, itemParams(req))),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit', ownSubscription) }, schema: { params: ProviderRefParams, body: CancelBody, response: { 200: Empty } } }, async (req) => {
    await cancelSubscription(deps, actorOf(req), req.params.id, req.body);
    return {};
  });
}
