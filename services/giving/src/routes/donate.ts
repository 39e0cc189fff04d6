import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, HttpError, Id, recordWebhookEvent, webhookIntake, webhookEvents, type ZodTypeProvider } from '@church/common';
import { giving } from '../app';
import { subscriptionFunds, subscriptions } from '../db/schema';
import { assertOwnPerson } from '../domain/access';
import { issuePass } from '../domain/captcha-pass';
import { feeCents, feeKind } from '../domain/fees';
import { checkGiftAmount, checkPaymentCurrency, fundsMeta } from '../domain/gifts';
import { withIdempotency } from '../domain/idempotency';
import { amountOf, centsText, sumCents, toCents } from '../domain/money';
import { receiptJob, webhookEffect } from '../jobs/contracts';
import { settleWebhookEvent } from '../jobs/webhooks';
import { ensureCustomer } from '../repos/customers';
import { checkFunds, recordDonation } from '../repos/donations';
import { churchGateways, feeSettingsOf, paymentsFor, verifyWebhook } from '../repos/gateways';
import { ChargeAnswer, ChargeBody, ChurchQuery, Currency, FeeBody, PositiveMoney, ProviderName, PublicGateway, ReplayBody, SubscribeAnswer, SubscribeBody } from '../schemas';
import { publicGateway } from './gateways';

const ClientTokenBody = z.object({ provider: ProviderName.optional(), gatewayId: Id.optional(), amount: PositiveMoney.optional(), currency: Currency.default('usd'), customerId: z.string().max(255).optional() });
const CreateOrderBody = z.object({
  provider: ProviderName.default('paypal'),
  gatewayId: Id.optional(),
  amount: PositiveMoney,
  currency: Currency.default('usd'),
  funds: z.array(z.object({ id: Id, name: z.string().max(255).optional(), amount: PositiveMoney })).min(1).max(10),
  person: z.object({ id: Id.nullish(), email: z.string().max(255).nullish() }).optional(),
  church: z.object({ name: z.string().max(255).nullish(), subDomain: z.string().max(255).nullish() }).optional(),
});
const LogBody = z.object({
  donation: z.object({
    churchId: Id,
    transactionId: z.string().trim().min(1, 'is required').max(255),
    provider: ProviderName.optional(),
    personId: Id.nullish(),
    notes: z.string().max(2000).nullish(),
  }),
  fundData: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: PositiveMoney })).min(1).max(10),
});
const CaptchaBody = z.object({ token: z.string().trim().min(1, 'is required').max(4000) });

/** `/giving/donate`: payments through the church's gateway, fees, webhooks and their replay. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => giving.deps(app);

  app.get('/giving/donate/gateways/:churchId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(PublicGateway) } } }, async (req) =>
    (await churchGateways(app.db, req.params.churchId)).filter((g) => g.privateKey).map(publicGateway),
  );

  app.post('/giving/donate/client-token', { config: { access: anyUser }, schema: { body: ClientTokenBody } }, async (req) => {
    if (req.body.amount !== undefined) checkPaymentCurrency(req.body.currency);
    const { provider } = await paymentsFor(app, req.auth.churchId, { gatewayId: req.body.gatewayId, provider: req.body.provider });
    return provider.clientToken({ amountCents: req.body.amount === undefined ? undefined : toCents(req.body.amount), currency: req.body.currency, customerId: req.body.customerId });
  });

  app.post('/giving/donate/create-order', { config: { access: anyUser }, schema: { body: CreateOrderBody, response: { 200: z.object({ id: z.string(), status: z.string(), provider: z.string() }) } } }, async (req) => {
    const body = req.body;
    const { gateway, provider } = await paymentsFor(app, req.auth.churchId, { gatewayId: body.gatewayId, provider: body.provider });
    const known = await checkFunds(app.db, req.auth.churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
    const gift = checkGiftAmount({ amount: body.amount, funds: body.funds, provider: gateway.provider, type: 'paypal', currency: body.currency, settings: feeSettingsOf(gateway) });
    const order = await provider.createOrder({
      amountCents: gift.totalCents,
      currency: body.currency,
      description: `Donation: ${body.funds.map((f) => known.get(f.id)?.name ?? f.name ?? 'fund').join(', ')}`.slice(0, 127),
      metadata: { churchId: req.auth.churchId, personId: body.person?.id ?? req.auth.personId ?? '' },
    });
    return { id: order.id, status: order.status, provider: gateway.provider };
  });

  app.post('/giving/donate/charge', { config: { access: anyUser }, schema: { body: ChargeBody, response: { 200: ChargeAnswer } } }, async (req, reply) =>
    withIdempotency(req, reply, 'charge', async (idempotencyKey) => {
      const body = req.body;
      const churchId = req.auth.churchId;
      const personId = body.person?.id ?? req.auth.personId ?? null;
      if (body.person?.id) assertOwnPerson(req.auth, 'Donations.Edit', body.person.id);
      const { gateway, provider } = await paymentsFor(app, churchId, { gatewayId: body.gatewayId, provider: body.provider });
      await checkFunds(app.db, churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
      const type = body.type === 'ach' ? 'bank' : body.type;
      const gift = checkGiftAmount({ amount: body.amount, funds: body.funds, provider: gateway.provider, type, currency: body.currency, settings: feeSettingsOf(gateway) });
      const allocations = body.funds.map((f, i) => ({ fundId: f.id, cents: gift.fundCents[i]! }));
      const email = body.person?.email ?? req.auth.email ?? null;
      let customerId: string | null = null;
      const methodId = gateway.provider === 'paypal' ? (body.orderId ?? body.id) : (body.paymentMethodId ?? body.id);
      if (!methodId) throw badRequest(gateway.provider === 'paypal' ? 'orderId' : 'id', 'is required: the payment method (or approved order) to charge');
      if (gateway.provider === 'paypal') {
        // The payer approved an order for some amount: capture it only when that is the gift being recorded.
        const order = await provider.retrievePayment(methodId);
        if (order.amountCents !== gift.totalCents) throw badRequest('amount', 'does not match the amount of the approved order');
      }
      if (gateway.provider === 'stripe') {
        const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId, email, name: body.person?.name, idempotencyKey });
        customerId = customer.providerCustomerId;
      }
      const result = await provider.charge({
        amountCents: gift.totalCents,
        currency: body.currency,
        customerId,
        paymentMethodId: methodId,
        type,
        description: `Donation${body.church?.name ? ` to ${body.church.name}` : ''}`,
        email,
        metadata: { churchId, personId: personId ?? '', funds: fundsMeta(allocations), fee: centsText(gift.feeCents), email: email ?? '' },
        idempotencyKey,
      });
      if (result.status === 'failed') throw new HttpError(402, [{ msg: `Payment failed (${result.providerStatus})`, param: 'id', location: 'body' }]);
      if (result.providerStatus === 'requires_action') {
        // The payer must confirm (3-D Secure); the webhook records the gift when it succeeds.
        return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: null as string | null, clientSecret: result.clientSecret ?? null } };
      }
      const { donation, created } = await app.db.transaction((tx) =>
        recordDonation(tx, {
          churchId,
          amountCents: gift.totalCents,
          currency: body.currency,
          personId,
          method: result.method,
          methodDetails: result.methodDetails ?? null,
          notes: body.notes ?? null,
          status: result.status,
          transactionId: result.id,
          provider: gateway.provider,
          feeCents: gift.feeCents,
          email,
          funds: allocations,
        }),
      );
      if (created && donation.status === 'complete') await deps().queue.enqueue(receiptJob, { churchId, donationId: donation.id }, { jobId: `receipt-${donation.id}` });
      return { body: { id: result.id, status: result.providerStatus, provider: gateway.provider, donationId: donation.id as string | null, clientSecret: null as string | null } };
    }),
  );

  app.post('/giving/donate/subscribe', { config: { access: anyUser }, schema: { body: SubscribeBody, response: { 200: SubscribeAnswer } } }, async (req, reply) =>
    withIdempotency(req, reply, 'subscribe', async (idempotencyKey) => {
      const body = req.body;
      const churchId = req.auth.churchId;
      const personId = body.person?.id ?? req.auth.personId ?? null;
      if (body.person?.id) assertOwnPerson(req.auth, 'Donations.Edit', body.person.id);
      const { gateway, provider } = await paymentsFor(app, churchId, { gatewayId: body.gatewayId, provider: body.provider });
      await checkFunds(app.db, churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
      const type = body.type === 'ach' ? 'bank' : body.type;
      const gift = checkGiftAmount({ amount: body.amount, funds: body.funds, provider: gateway.provider, type, currency: body.currency, settings: feeSettingsOf(gateway) });
      const email = body.person?.email ?? req.auth.email ?? null;
      const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId, email, name: body.person?.name, idempotencyKey });
      const methodId = body.paymentMethodId ?? body.id ?? null;
      if (methodId && gateway.provider === 'stripe' && type === 'card') await provider.attachCard(methodId, customer.providerCustomerId);
      const sub = await provider.subscribe({
        customerId: customer.providerCustomerId,
        paymentMethodId: methodId,
        amountCents: gift.totalCents,
        currency: body.currency,
        interval: body.interval.interval,
        intervalCount: body.interval.interval_count,
        billingCycleAnchor: body.billing_cycle_anchor ?? null,
        productId: gateway.productId,
        description: 'Recurring donation',
        metadata: { churchId, personId: personId ?? '', funds: fundsMeta(body.funds.map((f, i) => ({ fundId: f.id, cents: gift.fundCents[i]! }))) },
        idempotencyKey,
      });
      const id = randomUUID();
      await app.db.transaction(async (tx) => {
        await tx
          .insert(subscriptions)
          .values({
            id,
            churchId,
            personId,
            customerId: customer.id,
            provider: gateway.provider,
            providerSubscriptionId: sub.id,
            amount: centsText(gift.totalCents),
            currency: body.currency,
            interval: body.interval.interval,
            intervalCount: body.interval.interval_count,
            billingCycleAnchor: body.billing_cycle_anchor ? new Date(body.billing_cycle_anchor * 1000) : null,
            status: sub.status,
            fee: centsText(gift.feeCents),
            paymentMethodId: methodId,
          })
          .onConflictDoNothing();
        await tx.insert(subscriptionFunds).values(body.funds.map((f, i) => ({ id: randomUUID(), churchId, subscriptionId: id, fundId: f.id, amount: centsText(gift.fundCents[i]!) })));
      });
      return { body: { id, status: sub.status, provider: gateway.provider, subscriptionId: sub.id } };
    }),
  );

  app.post('/giving/donate/log', { config: { access: 'public' }, schema: { body: LogBody, response: { 200: z.object({ donationId: z.string(), created: z.boolean(), status: z.string() }) } } }, async (req) => {
    const { donation, fundData } = req.body;
    const churchId = donation.churchId;
    // A public route records only what the church's gateway confirms: amount, currency and status come from it.
    const { gateway, provider } = await paymentsFor(app, churchId, { provider: donation.provider });
    const payment = await provider.retrievePayment(donation.transactionId).catch((err: unknown) => {
      if (err instanceof HttpError && err.statusCode === 404) throw badRequest('donation.transactionId', 'is not a payment at the gateway');
      throw err;
    });
    if (payment.status === 'failed') throw badRequest('donation.transactionId', `the payment did not succeed (${payment.providerStatus})`);
    if (payment.metadata?.churchId && payment.metadata.churchId !== churchId) throw badRequest('donation.churchId', 'does not match the payment');
    const allocations = fundData.map((f, i) => {
      const fundId = f.fundId ?? f.id;
      if (!fundId) throw badRequest(`fundData[${i}].fundId`, 'is required');
      return { fundId, cents: toCents(f.amount) };
    });
    await checkFunds(app.db, churchId, allocations.map((a) => a.fundId), (i) => `fundData[${i}].fundId`);
    const amountCents = payment.amountCents ?? sumCents(allocations.map((a) => a.cents));
    if (sumCents(allocations.map((a) => a.cents)) > amountCents) throw badRequest('fundData', 'allocations exceed the amount paid');
    const { donation: row, created } = await app.db.transaction((tx) =>
      recordDonation(tx, {
        churchId,
        amountCents,
        currency: payment.currency ?? gateway.currency,
        personId: donation.personId ?? (payment.metadata?.personId || null),
        method: payment.method,
        notes: donation.notes ?? null,
        status: payment.status,
        transactionId: payment.id,
        provider: gateway.provider,
        feeCents: sumCents([amountCents, -sumCents(allocations.map((a) => a.cents))]),
        email: payment.metadata?.email || null,
        funds: allocations,
      }),
    );
    if (created && row.status === 'complete') await deps().queue.enqueue(receiptJob, { churchId, donationId: row.id }, { jobId: `receipt-${row.id}` });
    return { donationId: row.id, created, status: row.status };
  });

  webhookIntake(app, {
    path: '/giving/donate/webhook/:provider',
    schema: { params: z.object({ provider: ProviderName }), querystring: z.object({ churchId: Id }) },
    provider: (req) => (req.params as { provider: string }).provider,
    async verify(req, raw) {
      const { churchId } = req.query as { churchId: string };
      const event = await verifyWebhook(app, churchId, (req.params as { provider: string }).provider, req, raw);
      return { churchId, eventId: event.id, type: event.type, payload: event.payload };
    },
    job: webhookEffect,
    settle: (event) => settleWebhookEvent(giving.deps(app), event),
  });

  app.post(
    '/giving/donate/replay-gatewayA-events',
    {
      config: { access: requires('Donations.Edit') },
      schema: {
        body: ReplayBody,
        response: {
          200: z.object({
            dryRun: z.boolean(),
            total: z.number().int(),
            alreadyRecorded: z.number().int(),
            missing: z.number().int(),
            processed: z.number().int(),
            events: z.array(z.object({ id: z.string(), type: z.string(), created: z.string(), action: z.string() })),
          }),
        },
      },
    },
    async (req) => {
      const { startDate, endDate, dryRun } = req.body;
      if (endDate < startDate) throw badRequest('endDate', 'must not be before startDate');
      if (endDate.getTime() - startDate.getTime() > 31 * 86_400_000) throw badRequest('endDate', 'the range may span at most 31 days');
      const churchId = req.auth.churchId;
      const { gateway, provider } = await paymentsFor(app, churchId, { provider: req.body.provider });
      const listed = await provider.listEvents(startDate, new Date(endDate.getTime() + 86_400_000 - 1));
      const seen = new Set<string>();
      for (let i = 0; i < listed.length; i += 1000) {
        const ids = listed.slice(i, i + 1000).map((e) => e.id);
        const rows = await app.db
          .select({ eventId: webhookEvents.eventId, processedAt: webhookEvents.processedAt })
          .from(webhookEvents)
          .where(and(eq(webhookEvents.churchId, churchId), eq(webhookEvents.provider, gateway.provider), inArray(webhookEvents.eventId, ids)));
        for (const r of rows) if (r.processedAt) seen.add(r.eventId);
      }
      const events: Array<{ id: string; type: string; created: string; action: string }> = [];
      let processed = 0;
      for (const e of listed) {
        const created = new Date(e.created * 1000).toISOString();
        if (seen.has(e.id)) {
          events.push({ id: e.id, type: e.type, created, action: 'already recorded' });
          continue;
        }
        if (dryRun) {
          events.push({ id: e.id, type: e.type, created, action: 'would process' });
          continue;
        }
        const { id } = await recordWebhookEvent(app.db, gateway.provider, { churchId, eventId: e.id, type: e.type, payload: e.payload });
        if (id) await deps().queue.enqueue(webhookEffect, { webhookEventId: id }, { jobId: `webhook-${id}` });
        processed++;
        events.push({ id: e.id, type: e.type, created, action: 'processed' });
      }
      return { dryRun, total: listed.length, alreadyRecorded: seen.size, missing: listed.length - seen.size, processed, events };
    },
  );

  app.post(
    '/giving/donate/fee',
    { config: { access: 'public' }, schema: { querystring: ChurchQuery, body: FeeBody, response: { 200: z.object({ calculatedFee: z.number(), amount: z.number(), total: z.number(), currency: z.string(), type: z.string() }) } } },
    async (req) => {
      const { type, amount, currency } = req.body;
      const rows = await churchGateways(app.db, req.query.churchId);
      const gateway = req.body.gatewayId ? rows.find((g) => g.id === req.body.gatewayId) : req.body.provider ? rows.find((g) => g.provider === req.body.provider) : rows[0];
      const provider = req.body.provider ?? gateway?.provider ?? 'stripe';
      const kind = feeKind(provider, type);
      const cents = toCents(amount);
      const fee = feeCents(cents, kind, currency, feeSettingsOf(gateway));
      return { calculatedFee: amountOf(fee), amount: amountOf(cents), total: amountOf(cents + fee), currency, type: kind };
    },
  );

  app.post(
    '/giving/donate/captcha-verify',
    { config: { access: 'public' }, schema: { body: CaptchaBody, response: { 200: z.object({ success: z.boolean(), verificationToken: z.string().optional(), errors: z.array(z.string()) }) } } },
    async (req) => {
      const d = deps();
      const result = await d.providers.captcha.verify(req.body.token, req.ip);
      if (!result.success) return { success: false, errors: result.errors };
      return { success: true, verificationToken: issuePass(d.config.ENCRYPTION_KEY, Date.now()), errors: [] };
    },
  );

}
