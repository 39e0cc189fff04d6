import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, Empty, Id, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { addBank, addCard, detachMethod, setupIntent, setupIntentAnon, updateBank, updateCard, verifyBank } from '../domain/payment-methods';
import { customerOwner } from '../repos/customers';
import { methodItem, methodsOfPerson } from '../repos/payment-methods';
import { AddBank, AddCard, PaymentMethod, ProviderId, SetupIntent, SetupIntentAnon, UpdateBank, UpdateCard, VerifyBank } from '../schemas';
import { ownByLookup, ownInBody, ownPersonIn } from './access';

const base = '/giving/paymentmethods';
const SetupAnswer = z.object({ id: z.string(), clientSecret: z.string().nullable(), customerId: z.string().nullable() });

/** `/giving/paymentmethods`: cards and bank accounts held at the gateway, and the local index of them. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);
  const ownCustomerParam = ownByLookup('own customer', () => app.db, customerOwner, (req) => (req.params as { customerid?: string }).customerid);
  const ownPerson = requires('Donations.Edit', ownInBody('own personId'));

  app.get(
    `${base}/personid/:id`,
    { config: { access: requires('Donations.View', ownPersonIn('params', 'id')) }, schema: { params: z.object({ id: Id }), response: { 200: z.array(PaymentMethod) } } },
    async (req) => (await methodsOfPerson(app.db, req.auth.churchId, req.params.id)).map(methodItem),
  );

  app.post(`${base}/addcard`, { config: { access: anyUser }, schema: { body: AddCard, response: { 200: PaymentMethod } } }, async (req) => methodItem(await addCard(deps, actorOf(req), req.body)));

  app.post(`${base}/updatecard`, { config: { access: ownPerson }, schema: { body: UpdateCard, response: { 200: PaymentMethod } } }, async (req) => methodItem(await updateCard(deps, actorOf(req), req.body)));

  app.post(`${base}/ach-setup-intent`, { config: { access: ownPerson }, schema: { body: SetupIntent, response: { 200: SetupAnswer } } }, async (req) => setupIntent(deps, actorOf(req), req.body));

  // Guests reach the gateway only through a verified captcha: the pass from captcha-verify, or a token here.
  app.post(`${base}/ach-setup-intent-anon`, { config: { access: 'public' }, schema: { body: SetupIntentAnon, response: { 200: SetupAnswer } } }, async (req) => setupIntentAnon(deps, req.ip, req.body));

  app.post(`${base}/addbankaccount`, { config: { access: ownPerson }, schema: { body: AddBank, response: { 200: PaymentMethod } } }, async (req) => methodItem(await addBank(deps, actorOf(req), req.body)));

  app.post(`${base}/updatebank`, { config: { access: ownPerson }, schema: { body: UpdateBank, response: { 200: PaymentMethod } } }, async (req) => methodItem(await updateBank(deps, actorOf(req), req.body)));

  app.post(
    `${base}/verifybank`,
    { config: { access: requires('Donations.Edit', ownInBody('own customer')) }, schema: { body: VerifyBank, response: { 200: PaymentMethod } } },
    async (req) => methodItem(await verifyBank(deps, actorOf(req), req.body)),
  );

  app.delete(
    `${base}/:id/:customerid`,
    { config: { access: requires('Donations.Edit', ownCustomerParam) }, schema: { params: z.object({ id: ProviderId, customerid: ProviderId }), response: { 200: Empty } } },
    async (req) => {
      await detachMethod(deps, actorOf(req), req.params.id, req.params.customerid);
      return {};
    },
  );
}
