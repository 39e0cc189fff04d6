import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { crud, IdParams, type ZodTypeProvider } from '@church/common';
import { customers } from '../db/schema';
import { givingDeps } from '../deps';
import { gatewaySubscriptions } from '../domain/customers';
import { customerOwner } from '../repos/customers';
import { Customer } from '../schemas';
import { ownByLookup } from './access';

const base = '/giving/customers';
const GatewaySubscription = z.object({
  /** the provider's subscription id */
  id: z.string(),
  /** the local subscription id where known */
  subscriptionId: z.string().nullable(),
  status: z.string(),
  amount: z.number().nullable(),
  currency: z.string().nullable(),
  interval: z.string().nullable(),
  intervalCount: z.number().int().nullable(),
  currentPeriodEnd: z.string().nullable(),
  customer: z.string().nullable(),
  // As the donor portal reads a gateway subscription (Stripe's own field names): seconds, and cents in `plan`.
  billing_cycle_anchor: z.number().int().nullable(),
  default_payment_method: z.string().nullable(),
  default_source: z.string().nullable(),
  plan: z.object({ amount: z.number().int().nullable(), currency: z.string().nullable(), interval: z.string().nullable(), interval_count: z.number().int().nullable() }),
});
/** A list as the gateway answers one: the donor portal reads `data`. */
const GatewaySubscriptions = z.object({ object: z.literal('list'), data: z.array(GatewaySubscription) });

/** `/giving/customers`: a person's link to the provider's customer record (list, by id, its gateway subscriptions, delete). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const ownRecord = ownByLookup('own record', () => app.db, customerOwner, (req) => (req.params as { id?: string }).id);

  crud(app, {
    path: base,
    name: 'Customer',
    table: customers,
    item: Customer,
    save: Customer,
    only: ['list', 'get', 'delete'],
    view: requires('Donations.ViewSummary', ownRecord),
    edit: requires('Donations.Edit'),
    orderBy: customers.createdAt,
    changes: { entityType: 'customer' },
  });

  // The gateway is the source of truth for a customer's subscriptions; the local id is added where known.
  app.get(`${base}/:id/subscriptions`, { config: { access: requires('Donations.ViewSummary', ownRecord) }, schema: { params: IdParams, response: { 200: GatewaySubscriptions } } }, async (req) =>
    gatewaySubscriptions(givingDeps(app), req.auth.churchId, req.params.id),
  );
}
