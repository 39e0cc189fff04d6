import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { badRequest, conflict, HttpError, isUuid, reportChanges, type Actor, type givingInternal } from '@church/common';
import type { GivingDeps } from '../deps';
import { findCustomer } from '../repos/customers';
import type { GatewayRow } from '../repos/gateways';
import { claimPayment, paymentByKey, releasePayment, retakeClaim, settlePayment, type RegistrationPaymentRow } from '../repos/registration-payments';
import type { PaymentProvider, PaymentResult } from '../providers/payments';
import { paymentCurrency } from './gifts';
import { centsText, toCents } from '../lib/money';
import { paymentsFor, type PaymentDeps } from './gateways';

type ChargeBody = z.output<typeof givingInternal.registrationCharge.body>;
type ChargeAnswer = z.output<typeof givingInternal.registrationCharge.answer>;
/** What charging a registration uses. */
export type ChargeDeps = PaymentDeps & Pick<GivingDeps, 'queue' | 'module'>;

/** How long a claim may stay `charging` before a retry takes it over (well above the gateway's timeout). */
export const STALE_CLAIM_MS = 120_000;

/** The request without its key, keys sorted: what "the same body" means for a retry. */
function hashOf(body: ChargeBody): string {
  const { idempotencyKey: _key, ...rest } = body;
  const sorted = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** The contract's answer of a settled payment row. */
export const answerOf = (row: RegistrationPaymentRow): ChargeAnswer => ({
  status: row.status as ChargeAnswer['status'],
  paymentId: row.id,
  provider: row.provider,
  transactionId: row.transactionId,
  amount: row.amount,
  currency: row.currency,
  clientSecret: row.status === 'requires_action' ? row.clientSecret : null,
});

/** The first answer of a key already used: the same body answers it, another body is a 409. */
function replay(row: RegistrationPaymentRow, hash: string): ChargeAnswer {
  if (row.requestHash !== hash) throw conflict('This idempotencyKey was used for another payment', 'idempotencyKey');
  if (row.status === 'charging') throw conflict('A payment with this idempotencyKey is being charged; retry shortly', 'idempotencyKey');
  // The gateway's later word (a 3-D Secure payment abandoned or refused): no answer of the contract says it.
  if (row.status === 'failed') throw badRequest('paymentMethodId', 'The payment failed at the gateway; pay again with a new idempotencyKey');
  return answerOf(row);
}

/** The contract's status of a gateway payment; a refused one is the 400 the contract promises. */
function statusOf(result: PaymentResult): ChargeAnswer['status'] {
  if (result.providerStatus === 'requires_action') return 'requires_action';
  if (result.status === 'complete') return 'succeeded';
  if (result.status === 'pending') return 'processing';
  throw badRequest('paymentMethodId', `The payment was refused (${result.providerStatus})`);
}

/** The church's gateway the body names; one it does not have is a 400 (the contract's), never a 404. */
async function gatewayOf(deps: PaymentDeps, body: ChargeBody): Promise<{ gateway: GatewayRow; provider: PaymentProvider }> {
  if (body.provider && body.provider !== 'stripe' && body.provider !== 'paypal') throw badRequest('provider', 'must be stripe or paypal');
  let found: { gateway: GatewayRow; provider: PaymentProvider };
  try {
    found = await paymentsFor(deps, body.churchId, { gatewayId: body.gatewayId, provider: body.provider });
  } catch (err) {
    if (err instanceof HttpError && err.statusCode === 404) throw badRequest('gatewayId', 'is not a gateway of this church');
    throw err;
  }
  if (body.provider && found.gateway.provider !== body.provider) throw badRequest('provider', `is not the provider of the gateway named (${found.gateway.provider})`);
  return found;
}

/**
 * Charges a registration once per (church, idempotency key): see README "Registration payments". The key is
 * claimed before the gateway is asked, so a concurrent retry is a 409 rather than a second charge, and the
 * gateway gets its own idempotency key made of ours, so a retry after a timeout is answered by the gateway's
 * first payment.
 */
export async function chargeRegistration(deps: ChargeDeps, actor: Actor, body: ChargeBody): Promise<ChargeAnswer> {
  const churchId = body.churchId.toLowerCase();
  const hash = hashOf(body);
  const known = await paymentByKey(deps.db, churchId, body.idempotencyKey);
  const stale = known?.status === 'charging' && known.requestHash === hash && known.updatedAt.getTime() < Date.now() - STALE_CLAIM_MS;
  if (known && !stale) return replay(known, hash);

  const amountCents = toCents(body.amount);
  if (amountCents <= 0) throw badRequest('amount', 'must be greater than 0 (a free registration is not charged)');
  const { gateway, provider } = await gatewayOf(deps, body);
  const currency = paymentCurrency(body.currency, gateway.currency);
  const methodId = body.paymentMethodId ?? body.token ?? null;
  if (!methodId) throw badRequest('paymentMethodId', gateway.provider === 'paypal' ? 'send the approved order as token' : 'send a saved method (paymentMethodId) or a token from the browser');
  let customerId: string | null = null;
  if (body.customerId) {
    // A saved method is charged with its customer: only the registering person's own (content passes what the
    // browser sent, and another person's customer would charge their card).
    const customer = isUuid(body.customerId) || gateway.provider === 'stripe' ? await findCustomer(deps.db, churchId, body.customerId, gateway.provider) : undefined;
    if (!customer || !body.personId || customer.personId?.toLowerCase() !== body.personId.toLowerCase()) throw badRequest('customerId', "is not a customer of the registering person at this church's gateway");
    customerId = customer.providerCustomerId;
  }
  if (gateway.provider === 'paypal') {
    // The payer approved an order for some amount: capture it only when that is the registration's price.
    const order = await provider.retrievePayment(methodId);
    if (order.amountCents !== amountCents) throw badRequest('amount', 'does not match the amount of the approved order');
  }

  // A claim left by a process stopped mid-charge is taken over: the gateway's idempotency key answers the payment
  // it made, if it made one, so this charges at most once too.
  const claim = known ? await retakeClaim(deps.db, known, new Date(Date.now() - STALE_CLAIM_MS)) : await claimPayment(deps.db, {
    churchId,
    registrationId: body.registrationId.toLowerCase(),
    personId: body.personId?.toLowerCase() ?? null,
    email: body.email,
    name: body.name,
    gatewayId: gateway.id,
    provider: gateway.provider,
    amount: centsText(amountCents),
    currency,
    idempotencyKey: body.idempotencyKey,
    requestHash: hash,
  });
  if (!claim) {
    const current = await paymentByKey(deps.db, churchId, body.idempotencyKey);
    if (!current) throw conflict('A payment with this idempotencyKey is being charged; retry shortly', 'idempotencyKey');
    return replay(current, hash);
  }

  let result: PaymentResult;
  let status: ChargeAnswer['status'];
  try {
    result = await provider.charge({
      amountCents,
      currency,
      customerId,
      paymentMethodId: methodId,
      type: body.type,
      description: 'Event registration',
      email: body.email,
      metadata: { churchId, registrationId: claim.registrationId, personId: claim.personId ?? '', kind: 'registration' },
      idempotencyKey: `${churchId}:registration:${body.idempotencyKey}`,
    });
    status = statusOf(result);
  } catch (err) {
    await releasePayment(deps.db, claim);
    // A declined card is the gateway's 402 to a donor; to content it is the contract's 400 with the sentence.
    if (err instanceof HttpError && err.statusCode === 402) throw new HttpError(400, err.errors.map((e) => ({ ...e, param: 'paymentMethodId', location: 'body' })));
    throw err;
  }
  return deps.db.transaction(async (tx) => {
    const row = await settlePayment(tx, claim, { status, transactionId: result.id, method: result.method, clientSecret: result.clientSecret ?? null });
    const { clientSecret: _secret, requestHash: _hash, ...after } = row;
    await reportChanges(deps, [{ churchId, entityType: 'registrationPayment', entityId: row.id, action: 'created', after }], { req: actor, tx });
    return answerOf(row);
  });
}
