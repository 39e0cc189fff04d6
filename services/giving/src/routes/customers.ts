import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { deleteRow, getRow, IdParams, listRows, type ZodTypeProvider } from '@church/common';
import { customers, subscriptions } from '../db/schema';
import { customerOwner, ownByLookup } from '../domain/access';
import { amountOf } from '../domain/money';
import { paymentsFor } from '../repos/gateways';
import { Customer } from '../schemas';

const item = (r: Record<string, unknown>) => ({
  id: r.id as string,
  personId: (r.personId as string | null) ?? null,
  provider: r.provider as string,
  providerCustomerId: r.providerCustomerId as string,
  email: (r.email as string | null) ?? null,
  name: (r.name as string | null) ?? null,
});

const GatewaySubscription = z.object({
  id: z.string(),
  subscriptionId: z.string().nullable(),
  status: z.string(),
  amount: z.number().nullable(),
  currency: z.string().nullable(),
  interval: z.string().nullable(),
  intervalCount: z.number().int().nullable(),
  currentPeriodEnd: z.string().nullable(),
});

/** `/giving/customers`: a person's link to the provider's customer record (list, by id, its gateway subscriptions, delete). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const ownRecord = ownByLookup('own record', () => app.db, customerOwner, (req) => (req.params as { id?: string }).id);

  app.get('/giving/customers', { config: { access: requires('Donations.ViewSummary') }, schema: { response: { 200: z.array(Customer) } } }, async (req) =>
    (await listRows(app.db, customers, req.auth.churchId, { orderBy: asc(customers.createdAt) })).map(item),
  );

  app.get('/giving/customers/:id', { config: { access: requires('Donations.ViewSummary', ownRecord) }, schema: { params: IdParams, response: { 200: Customer } } }, async (req) =>
    item(await getRow(app.db, customers, req.auth.churchId, req.params.id, 'Customer')),
  );

  app.get(
    '/giving/customers/:id/subscriptions',
    { config: { access: requires('Donations.ViewSummary', ownRecord) }, schema: { params: IdParams, response: { 200: z.array(GatewaySubscription) } } },
    async (req) => {
      const customer = await getRow(app.db, customers, req.auth.churchId, req.params.id, 'Customer');
      const local = await app.db.select().from(subscriptions).where(and(eq(subscriptions.churchId, req.auth.churchId), eq(subscriptions.customerId, customer.id as string)));
      const localByProvider = new Map(local.map((s) => [s.providerSubscriptionId, s.id]));
      // The gateway is the source of truth for a customer's subscriptions; the local id is added where known.
      const { provider } = await paymentsFor(app, req.auth.churchId, { provider: customer.provider as string });
      const remote = await provider.listSubscriptions(customer.providerCustomerId as string);
      return remote.map((s) => ({
        id: s.id,
        subscriptionId: localByProvider.get(s.id) ?? null,
        status: s.status,
        amount: s.amountCents === null ? null : amountOf(s.amountCents),
        currency: s.currency,
        interval: s.interval,
        intervalCount: s.intervalCount,
        currentPeriodEnd: s.currentPeriodEnd ? new Date(s.currentPeriodEnd * 1000).toISOString() : null,
      }));
    },
  );

  app.delete('/giving/customers/:id', { config: { access: requires('Donations.Edit') }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, customers, req.auth.churchId, req.params.id);
    return {};
  });
}
