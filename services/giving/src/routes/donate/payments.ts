import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, Id, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../../deps';
import { chargeGift, createOrder, logPayment, subscribeGift } from '../../domain/donate';
import { paymentsFor } from '../../domain/gateways';
import { paymentCurrency } from '../../domain/gifts';
import { toCents } from '../../lib/money';
import { ChargeAnswer, ChargeBody, CreateOrderBody, Currency, LogBody, PositiveMoney, ProviderName, SubscribeAnswer, SubscribeBody } from '../../schemas';
import { callerOrModule, idempotent } from '../helpers';

const base = '/giving/donate';
const ClientTokenBody = z.object({ provider: ProviderName.optional(), gatewayId: Id.optional(), amount: PositiveMoney.optional(), currency: Currency.optional(), customerId: z.string().max(255).optional() });
const Order = z.object({ id: z.string(), status: z.string(), provider: z.string() });
const Logged = z.object({ donationId: z.string(), created: z.boolean(), status: z.string() });

/** `/giving/donate`: payments through the church's gateway (one-time, recurring, checkout orders) and their log. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);

  app.post(`${base}/client-token`, { config: { access: anyUser }, schema: { body: ClientTokenBody, response: { 200: z.record(z.string(), z.unknown()) } } }, async (req) => {
    const { gateway, provider } = await paymentsFor(deps, req.auth.churchId, { gatewayId: req.body.gatewayId, provider: req.body.provider });
    const currency = req.body.amount === undefined ? (req.body.currency ?? gateway.currency) : paymentCurrency(req.body.currency, gateway.currency);
    return provider.clientToken({ amountCents: req.body.amount === undefined ? undefined : toCents(req.body.amount), currency, customerId: req.body.customerId });
  });

  app.post(`${base}/create-order`, { config: { access: anyUser }, schema: { body: CreateOrderBody, response: { 200: Order } } }, async (req) => createOrder(deps, actorOf(req), req.body));

  app.post(`${base}/charge`, { config: { access: anyUser }, schema: { body: ChargeBody, response: { 200: ChargeAnswer } } }, async (req, reply) =>
    idempotent(app.db, req, reply, 'charge', (key) => chargeGift(deps, actorOf(req), req.body, key)),
  );

  app.post(`${base}/subscribe`, { config: { access: anyUser }, schema: { body: SubscribeBody, response: { 200: SubscribeAnswer } } }, async (req, reply) =>
    idempotent(app.db, req, reply, 'subscribe', (key) => subscribeGift(deps, actorOf(req), req.body, key)),
  );

  app.post(`${base}/log`, { config: { access: 'public' }, schema: { body: LogBody, response: { 200: Logged } } }, async (req) =>
    logPayment(deps, callerOrModule(req, req.body.donation.churchId), req.body),
  );
}
