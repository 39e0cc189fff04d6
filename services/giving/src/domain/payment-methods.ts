import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { badRequest, notFound, reportChanges, unauthorized, type Actor } from '@church/common';
import type { GivingDeps } from '../deps';
import type { MethodInfo } from '../providers/payments';
import { findCustomer, type CustomerRow } from '../repos/customers';
import { forgetMethod, keepMethod, methodsById, type MethodRow } from '../repos/payment-methods';
import type { AddBank, AddCard, SetupIntent, SetupIntentAnon, UpdateBank, UpdateCard, VerifyBank } from '../schemas';
import { assertOwnPerson } from './access';
import { checkPass } from './captcha-pass';
import { ensureCustomer } from './customers';
import { paymentsFor, type PaymentDeps } from './gateways';

// Cards and bank accounts held at the gateway for a person, and the local index of them (`payment_methods`): the
// gateway is asked first, then the index is written with its report in one transaction.

/** What the payment-method work uses: the gateway's adapter, the audit log's queue, the captcha and its pass. */
export type MethodDeps = PaymentDeps & Pick<GivingDeps, 'queue' | 'module' | 'config'>;

/** Keeps the index of a method the provider answered, and reports it, in one transaction. */
function keep(deps: MethodDeps, actor: Actor, customer: { id: string | null; personId: string | null; provider: string }, info: MethodInfo): Promise<MethodRow> {
  return deps.db.transaction(async (tx) => {
    const row = await keepMethod(tx, actor.churchId, customer, info);
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'paymentMethod', entityId: row.id, action: 'updated', after: row }], { req: actor, tx });
    return row;
  });
}

/** The person a body acts for: the one named, else the caller's own. */
const personOf = (actor: Actor, personId?: string) => personId ?? actor.personId ?? null;

/** The church's customer a body names (a bank account's), the caller's own unless they hold Donations.Edit; 400 when not the church's. */
async function customerNamed(deps: MethodDeps, actor: Actor, customerId: string): Promise<CustomerRow> {
  const customer = await findCustomer(deps.db, actor.churchId, customerId);
  if (!customer) throw badRequest('customerId', 'is not a customer of this church');
  assertOwnPerson(actor, 'Donations.Edit', customer.personId);
  return customer;
}

/** `POST /paymentmethods/addcard`: a card attached to the person's customer (made when they have none). */
export async function addCard(deps: MethodDeps, actor: Actor, body: z.output<typeof AddCard>): Promise<MethodRow> {
  const personId = personOf(actor, body.personId);
  if (!personId) throw badRequest('personId', 'is required');
  assertOwnPerson(actor, 'Donations.Edit', personId);
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: body.provider });
  const customer = await ensureCustomer(deps.db, actor, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
  const info = await provider.attachCard(body.id, customer.providerCustomerId);
  return keep(deps, actor, customer, info);
}

/** `POST /paymentmethods/updatecard`: a stored card's expiry or name, at the gateway and in the index. */
export async function updateCard(deps: MethodDeps, actor: Actor, body: z.output<typeof UpdateCard>): Promise<MethodRow> {
  const [method] = await methodsById(deps.db, actor.churchId, body.paymentMethodId);
  if (!method) throw badRequest('paymentMethodId', 'is not a stored payment method of this church');
  assertOwnPerson(actor, 'Donations.Edit', method.personId);
  if (body.personId && body.personId !== method.personId) throw badRequest('personId', 'does not own this payment method');
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: method.provider });
  const info = await provider.updateCard(body.paymentMethodId, { expMonth: body.cardData.exp_month, expYear: body.cardData.exp_year, name: body.cardData.name });
  return keep(deps, actor, { id: method.customerId, personId: method.personId, provider: method.provider }, info);
}

/** `POST /paymentmethods/ach-setup-intent`: a setup intent for the person's customer (made when they have none). */
export async function setupIntent(deps: MethodDeps, actor: Actor, body: z.output<typeof SetupIntent>) {
  const personId = personOf(actor, body.personId);
  assertOwnPerson(actor, 'Donations.Edit', personId);
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: body.provider });
  const customer = await ensureCustomer(deps.db, actor, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
  const si = await provider.setupIntent({ customerId: customer.providerCustomerId, email: body.email, name: body.name });
  return { id: si.id, clientSecret: si.clientSecret, customerId: customer.id };
}

/**
 * `POST /paymentmethods/ach-setup-intent-anon`: a guest's setup intent, only through a verified captcha (the pass
 * `captcha-verify` answered, or a fresh token verified here from the caller's address `ip`).
 */
export async function setupIntentAnon(deps: MethodDeps, ip: string, body: z.output<typeof SetupIntentAnon>) {
  const captcha = deps.providers.captcha;
  if (!captcha.configured) await captcha.verify('', ip); // throws "not configured"
  const passed = body.verificationToken ? checkPass(deps.config.ENCRYPTION_KEY, body.verificationToken) : body.captchaToken ? (await captcha.verify(body.captchaToken, ip)).success : false;
  if (!passed) throw badRequest(body.verificationToken ? 'verificationToken' : 'captchaToken', 'a verified captcha is required');
  const { provider } = await paymentsFor(deps, body.churchId, { gatewayId: body.gatewayId });
  const si = await provider.setupIntent({ email: body.email, name: body.name });
  return { id: si.id, clientSecret: si.clientSecret, customerId: null };
}

/** `POST /paymentmethods/addbankaccount`: a bank account (a token from the browser) added to the person's customer. */
export async function addBank(deps: MethodDeps, actor: Actor, body: z.output<typeof AddBank>): Promise<MethodRow> {
  const personId = personOf(actor, body.personId);
  assertOwnPerson(actor, 'Donations.Edit', personId);
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: body.provider });
  const customer = await ensureCustomer(deps.db, actor, provider, { customerId: body.customerId, personId, email: body.email, name: body.name });
  const info = await provider.addBankAccount(body.id, customer.providerCustomerId);
  return keep(deps, actor, customer, info);
}

/** `POST /paymentmethods/updatebank`: a bank account's holder, at the gateway and in the index. */
export async function updateBank(deps: MethodDeps, actor: Actor, body: z.output<typeof UpdateBank>): Promise<MethodRow> {
  const customer = await customerNamed(deps, actor, body.customerId);
  if (body.personId && customer.personId && body.personId !== customer.personId) throw badRequest('personId', 'does not own this customer');
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: customer.provider });
  const info = await provider.updateBank(body.paymentMethodId, customer.providerCustomerId, { accountHolderName: body.bankData.account_holder_name, accountHolderType: body.bankData.account_holder_type });
  return keep(deps, actor, customer, info);
}

/** `POST /paymentmethods/verifybank`: a bank account verified by its micro-deposits (two amounts, or the descriptor code). */
export async function verifyBank(deps: MethodDeps, actor: Actor, body: z.output<typeof VerifyBank>): Promise<MethodRow> {
  const customer = await customerNamed(deps, actor, body.customerId);
  if (!body.amountData.amounts && !body.amountData.descriptorCode) throw badRequest('amountData.amounts', 'two micro-deposit amounts in cents, or descriptorCode, are required');
  const { provider } = await paymentsFor(deps, actor.churchId, { provider: customer.provider });
  const info = await provider.verifyBank(body.paymentMethodId, customer.providerCustomerId, body.amountData.amounts ?? null, body.amountData.descriptorCode ?? null);
  return keep(deps, actor, customer, info);
}

/**
 * `DELETE /paymentmethods/:id/:customerid`: a method detached at the gateway, then dropped from the index.
 * `methodRef` is the provider's method id or the local id of the stored method.
 */
export async function detachMethod(deps: MethodDeps, actor: Actor, methodRef: string, customerRef: string): Promise<void> {
  const churchId = actor.churchId;
  const customer = await findCustomer(deps.db, churchId, customerRef);
  if (!customer) throw notFound('Customer');
  const indexed = await methodsById(deps.db, churchId, methodRef);
  const method = indexed.find((m) => m.customerId === customer.id);
  if (!method) {
    // The provider detaches a card by its id alone, whoever's customer it is: the customer in the path must
    // be the method's. A method indexed for another customer is someone else's; one not indexed at all is
    // detached only for Donations.Edit (a member's own methods are indexed when they are added here).
    const editor = hasPermission(actor, 'Donations.Edit', 'GivingApi');
    if (indexed.length) {
      if (!editor) throw unauthorized('Missing permission: Donations.Edit or own customer');
      throw notFound('Payment method');
    }
    if (!editor) throw notFound('Payment method');
  }
  const providerMethodId = method?.providerMethodId ?? methodRef;
  const { provider } = await paymentsFor(deps, churchId, { provider: customer.provider });
  await provider.detach(providerMethodId, customer.providerCustomerId);
  await deps.db.transaction(async (tx) => {
    await forgetMethod(tx, churchId, providerMethodId);
    await reportChanges(deps, [{ churchId, entityType: 'paymentMethod', entityId: method?.id ?? providerMethodId, action: 'destroyed', before: method }], { req: actor, tx });
  });
}
