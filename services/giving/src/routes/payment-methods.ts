import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { badRequest, Empty, Id, notFound, reportChanges, unauthorized, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { assertOwnPerson, customerOwner, ownByLookup, ownInBody, ownPersonIn } from '../domain/access';
import { checkPass } from '../domain/captcha-pass';
import { ensureCustomer, findCustomer } from '../repos/customers';
import { paymentsFor } from '../repos/gateways';
import { forgetMethod, keepMethod, methodsById, methodItem, methodsOfPerson } from '../repos/payment-methods';
import { PaymentMethod, ProviderId, ProviderName } from '../schemas';

const Person = { personId: Id.optional(), customerId: ProviderId.optional(), email: z.string().trim().max(255).nullish(), name: z.string().trim().max(255).nullish(), churchId: Id.optional(), provider: ProviderName.optional() };
const AddCard = z.object({ id: ProviderId, ...Person });
const UpdateCard = z.object({
  personId: Id.optional(),
  paymentMethodId: ProviderId,
  provider: ProviderName.optional(),
  cardData: z.object({ exp_month: z.coerce.number().int().min(1).max(12).optional(), exp_year: z.coerce.number().int().min(2000).max(2200).optional(), name: z.string().max(255).nullish() }).default({}),
});
const SetupIntent = z.object({ ...Person });
const SetupIntentAnon = z.object({
  email: z.string().trim().max(255).nullish(),
  name: z.string().trim().max(255).nullish(),
  churchId: Id,
  gatewayId: Id.optional(),
  /** the pass `POST /donate/captcha-verify` answered */
  verificationToken: z.string().max(500).optional(),
  /** or a fresh captcha token, verified here */
  captchaToken: z.string().max(4000).optional(),
});
const AddBank = z.object({ id: ProviderId, ...Person });
const UpdateBank = z.object({
  paymentMethodId: ProviderId,
  personId: Id.optional(),
  customerId: ProviderId,
  provider: ProviderName.optional(),
  bankData: z.object({ account_holder_name: z.string().max(255).nullish(), account_holder_type: z.enum(['individual', 'company']).nullish() }).default({}),
});
const VerifyBank = z.object({
  paymentMethodId: ProviderId,
  customerId: ProviderId,
  provider: ProviderName.optional(),
  amountData: z.object({ amounts: z.array(z.coerce.number().int().min(1).max(99)).length(2).optional(), descriptorCode: z.string().trim().max(20).optional() }),
});


/** `/giving/paymentmethods`: cards and bank accounts held at the gateway, and the local index of them. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const ownCustomerParam = ownByLookup('own customer', () => app.db, customerOwner, (req) => (req.params as { customerid?: string }).customerid);

  /** Keeps the index of a method the provider answered, and reports it, in one transaction. */
  const keep = (req: FastifyRequest, customer: Parameters<typeof keepMethod>[2], info: Parameters<typeof keepMethod>[3]) =>
    app.db.transaction(async (tx) => {
      const row = await keepMethod(tx, req.auth.churchId, customer, info);
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'paymentMethod', entityId: row.id, action: 'updated', after: row }], { req, tx });
      return row;
    });

  /** The person a body acts for: the caller's own unless they hold Donations.Edit. */
  const personOf = (auth: { personId: string | null }, personId?: string) => personId ?? auth.personId ?? null;

  app.get(
    '/giving/paymentmethods/personid/:id',
    { config: { access: requires('Donations.View', ownPersonIn('params', 'id')) }, schema: { params: z.object({ id: Id }), response: { 200: z.array(PaymentMethod) } } },
    async (req) => (await methodsOfPerson(app.db, req.auth.churchId, req.params.id)).map(methodItem),
  );

  app.post('/giving/paymentmethods/addcard', { config: { access: anyUser }, schema: { body: AddCard, response: { 200: PaymentMethod } } }, async (req) => {
    const body = req.body;
    const personId = personOf(req.auth, body.personId);
    if (!personId) throw badRequest('personId', 'is required');
    assertOwnPerson(req.auth, 'Donations.Edit', personId);
    const { provider } = await paymentsFor(app, req.auth.churchId, { provider: body.provider });
    const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
    const info = await provider.attachCard(body.id, customer.providerCustomerId);
    return methodItem(await keep(req, customer, info));
  });

  app.post('/giving/paymentmethods/updatecard', { config: { access: requires('Donations.Edit', ownInBody('own personId')) }, schema: { body: UpdateCard, response: { 200: PaymentMethod } } }, async (req) => {
    const body = req.body;
    const [method] = await methodsById(app.db, req.auth.churchId, body.paymentMethodId);
    if (!method) throw badRequest('paymentMethodId', 'is not a stored payment method of this church');
    assertOwnPerson(req.auth, 'Donations.Edit', method.personId);
    if (body.personId && body.personId !== method.personId) throw badRequest('personId', 'does not own this payment method');
    const { provider } = await paymentsFor(app, req.auth.churchId, { provider: method.provider });
    const info = await provider.updateCard(body.paymentMethodId, { expMonth: body.cardData.exp_month, expYear: body.cardData.exp_year, name: body.cardData.name });
    return methodItem(await keep(req, { id: method.customerId, personId: method.personId, provider: method.provider }, info));
  });

  app.post(
    '/giving/paymentmethods/ach-setup-intent',
    { config: { access: requires('Donations.Edit', ownInBody('own personId')) }, schema: { body: SetupIntent, response: { 200: z.object({ id: z.string(), clientSecret: z.string().nullable(), customerId: z.string().nullable() }) } } },
    async (req) => {
      const body = req.body;
      const personId = personOf(req.auth, body.personId);
      assertOwnPerson(req.auth, 'Donations.Edit', personId);
      const { provider } = await paymentsFor(app, req.auth.churchId, { provider: body.provider });
      const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
      const si = await provider.setupIntent({ customerId: customer.providerCustomerId, email: body.email, name: body.name });
      return { id: si.id, clientSecret: si.clientSecret, customerId: customer.id };
    },
  );

  app.post(
    '/giving/paymentmethods/ach-setup-intent-anon',
    { config: { access: 'public' }, schema: { body: SetupIntentAnon, response: { 200: z.object({ id: z.string(), clientSecret: z.string().nullable(), customerId: z.string().nullable() }) } } },
    async (req) => {
      const body = req.body;
      const deps = givingDeps(app);
      // Guests reach the gateway only through a verified captcha: the pass from captcha-verify, or a token here.
      if (!deps.providers.captcha.configured) await deps.providers.captcha.verify('', req.ip); // throws "not configured"
      const passed = body.verificationToken
        ? checkPass(deps.config.ENCRYPTION_KEY, body.verificationToken)
        : body.captchaToken
          ? (await deps.providers.captcha.verify(body.captchaToken, req.ip)).success
          : false;
      if (!passed) throw badRequest(body.verificationToken ? 'verificationToken' : 'captchaToken', 'a verified captcha is required');
      const { provider } = await paymentsFor(app, body.churchId, { gatewayId: body.gatewayId });
      const si = await provider.setupIntent({ email: body.email, name: body.name });
      return { id: si.id, clientSecret: si.clientSecret, customerId: null };
    },
  );

  app.post('/giving/paymentmethods/addbankaccount', { config: { access: requires('Donations.Edit', ownInBody('own personId')) }, schema: { body: AddBank, response: { 200: PaymentMethod } } }, async (req) => {
    const body = req.body;
    const personId = personOf(req.auth, body.personId);
    assertOwnPerson(req.auth, 'Donations.Edit', personId);
    const { provider } = await paymentsFor(app, req.auth.churchId, { provider: body.provider });
    const customer = await ensureCustomer(app.db, req.auth, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
    const info = await provider.addBankAccount(body.id, customer.providerCustomerId);
    return methodItem(await keep(req, customer, info));
  });

  app.post('/giving/paymentmethods/updatebank', { config: { access: requires('Donations.Edit', ownInBody('own personId')) }, schema: { body: UpdateBank, response: { 200: PaymentMethod } } }, async (req) => {
    const body = req.body;
    const customer = await findCustomer(app.db, req.auth.churchId, body.customerId);
    if (!customer) throw badRequest('customerId', 'is not a customer of this church');
    assertOwnPerson(req.auth, 'Donations.Edit', customer.personId);
    if (body.personId && customer.personId && body.personId !== customer.personId) throw badRequest('personId', 'does not own this customer');
    const { provider } = await paymentsFor(app, req.auth.churchId, { provider: customer.provider });
    const info = await provider.updateBank(body.paymentMethodId, customer.providerCustomerId, { accountHolderName: body.bankData.account_holder_name, accountHolderType: body.bankData.account_holder_type });
    return methodItem(await keep(req, customer, info));
  });

  app.post('/giving/paymentmethods/verifybank', { config: { access: requires('Donations.Edit', ownInBody('own customer')) }, schema: { body: VerifyBank, response: { 200: PaymentMethod } } }, async (req) => {
    const body = req.body;
    const customer = await findCustomer(app.db, req.auth.churchId, body.customerId);
    if (!customer) throw badRequest('customerId', 'is not a customer of this church');
    assertOwnPerson(req.auth, 'Donations.Edit', customer.personId);
    if (!body.amountData.amounts && !body.amountData.descriptorCode) throw badRequest('amountData.amounts', 'two micro-deposit amounts in cents, or descriptorCode, are required');
    const { provider } = await paymentsFor(app, req.auth.churchId, { provider: customer.provider });
    const info = await provider.verifyBank(body.paymentMethodId, customer.providerCustomerId, body.amountData.amounts ?? null, body.amountData.descriptorCode ?? null);
    return methodItem(await keep(req, customer, info));
  });

  app.delete(
    '/giving/paymentmethods/:id/:customerid',
    { config: { access: requires('Donations.Edit', ownCustomerParam) }, schema: { params: z.object({ id: ProviderId, customerid: ProviderId }), response: { 200: Empty } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const customer = await findCustomer(app.db, churchId, req.params.customerid);
      if (!customer) throw notFound('Customer');
      // `:id` is the provider's method id or the local id of the stored method.
      const indexed = await methodsById(app.db, churchId, req.params.id);
      const method = indexed.find((m) => m.customerId === customer.id);
      if (!method) {
        // The provider detaches a card by its id alone, whoever's customer it is: the customer in the path must
        // be the method's. A method indexed for another customer is someone else's; one not indexed at all is
        // detached only for Donations.Edit (a member's own methods are indexed when they are added here).
        const editor = hasPermission(req.auth, 'Donations.Edit', 'GivingApi');
        if (indexed.length) {
          if (!editor) throw unauthorized('Missing permission: Donations.Edit or own customer');
          throw notFound('Payment method');
        }
        if (!editor) throw notFound('Payment method');
      }
      const providerMethodId = method?.providerMethodId ?? req.params.id;
      const { provider } = await paymentsFor(app, churchId, { provider: customer.provider });
      await provider.detach(providerMethodId, customer.providerCustomerId);
      await app.db.transaction(async (tx) => {
        await forgetMethod(tx, churchId, providerMethodId);
        await reportChanges(app.deps, [{ churchId, entityType: 'paymentMethod', entityId: method?.id ?? providerMethodId, action: 'destroyed', before: method }], { req, tx });
      });
      return {};
    },
  );
}
