import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { badRequest, callInternal, givingInternal, HttpError, notFound, reportChanges } from '@church/common';
import { findRegistration, insertPayment, updateRegistration, type RegistrationRow } from '../../repos/registrations';
import type { PayBody } from '../../schemas/registrations';
import { centsText, toCents } from './pricing';
import { registrationChange } from './views';

type Payment = z.output<typeof PayBody>;
export interface Payer {
  personId: string | null;
  email: string | null;
  name: string | null;
}
/** A charge giving left for the browser to finish (3-D Secure). */
export interface PendingAction {
  status: string;
  paymentId: string;
  clientSecret: string | null;
}

/** How long a client waits before it retries a payment giving could not take (when giving names no time). */
const RETRY_AFTER_SECONDS = 30;

/**
 * The key that pays a held sign-up without a token (the signed-out wizard: a guest has no person to sign in as):
 * the church and registration sealed with the service's secret box, so it cannot be made up for another one.
 */
export const payKeyOf = (app: FastifyInstance, row: Pick<RegistrationRow, 'churchId' | 'id'>): string => app.deps.secrets.encrypt(`registration-pay:${row.churchId}:${row.id}`);

/** The registration a pay key was made for, when it is `id`'s (else undefined). */
export async function registrationByPayKey(app: FastifyInstance, id: string, key: string): Promise<RegistrationRow | undefined> {
  let plain: string;
  try {
    plain = app.deps.secrets.decrypt(key);
  } catch {
    return undefined;
  }
  const [kind, churchId, keyId] = plain.split(':');
  if (kind !== 'registration-pay' || !churchId || keyId !== id) return undefined;
  return findRegistration(app.db, churchId, id);
}

/**
 * When giving could not take a payment (unreachable, 5xx, briefly away), the answer the routes give: 503 with a
 * `Retry-After` (giving's own when it named one), the registration's id, until when its place is held, and the
 * key to pay it again, so the app retries the payment of that registration (the same idempotency key is sent,
 * so a charge giving did make is answered, not made twice). Anything else: undefined (the error stands).
 */
export function paymentUnavailable(app: FastifyInstance, err: unknown, row: RegistrationRow) {
  if (!(err instanceof HttpError) || err.statusCode < 500) return undefined;
  const retryAfter = err.headers['retry-after'] ?? String(RETRY_AFTER_SECONDS);
  return {
    headers: { 'retry-after': retryAfter },
    body: {
      errors: ['Payments cannot be taken just now; the place is held: retry the payment of this registration'],
      registrationId: row.id,
      holdUntil: row.holdUntil,
      payKey: payKeyOf(app, row),
    },
  };
}

/** Whether the caller sent a way to pay (B1Admin's staff sign-up sends none: the balance stays due). */
export const hasPaymentDetails = (p: Payment) => Boolean(p.token || p.id || p.paymentMethodId || p.provider || p.gatewayId);

/**
 * The idempotency key of a registration's charge attempt. The attempt advances once its outcome is known (a
 * recorded payment, or giving's refusal), and stays while it is not (giving unreachable, 5xx, 3-D Secure under
 * way): a retried pay then sends the same key and giving answers the first charge instead of charging again.
 */
export const chargeKey = (row: RegistrationRow) => `registration:${row.id}:${row.payAttempt}`;

/**
 * Charges the registration's balance through giving (`givingInternal.registrationCharge`, amounts as decimal
 * text from integer cents) and records the payment on the registration once, whatever the retries. Giving's
 * 4xx (a declined card, no gateway) is handed on as it is.
 */
export async function chargeBalance(app: FastifyInstance, req: FastifyRequest, row: RegistrationRow, payment: Payment, payer: Payer): Promise<{ registration: RegistrationRow; action?: PendingAction }> {
  const balance = toCents(row.totalAmount) - toCents(row.amountPaid);
  if (balance <= 0) throw badRequest('id', 'No balance due', 'params');
  let answer;
  try {
    answer = await callInternal(
      app.deps.internal,
      givingInternal.registrationCharge,
      {
        churchId: row.churchId,
        registrationId: row.id,
        personId: payer.personId,
        email: payer.email,
        name: payer.name,
        amount: centsText(balance),
        ...(payment.currency ? { currency: payment.currency.toLowerCase() } : {}),
        ...(payment.provider ? { provider: payment.provider } : {}),
        ...(payment.gatewayId ? { gatewayId: payment.gatewayId } : {}),
        type: payment.type === 'bank' || payment.type === 'ach' ? 'bank' : 'card',
        ...(payment.paymentMethodId ? { paymentMethodId: payment.paymentMethodId } : {}),
        ...(payment.customerId ? { customerId: payment.customerId } : {}),
        ...(payment.token || payment.id ? { token: (payment.token || payment.id)! } : {}),
        idempotencyKey: chargeKey(row),
      },
      { passClientErrors: true },
    );
  } catch (err) {
    // Refused: the next try is a new charge. A 409 (the key's first charge had another body) and failures of
    // unknown outcome keep the key, so nothing is charged twice.
    if (err instanceof HttpError && err.statusCode < 500 && err.statusCode !== 409) await updateRegistration(app.db, row.churchId, row.id, { payAttempt: row.payAttempt + 1 });
    throw err;
  }
  if (answer.status === 'requires_action') return { registration: row, action: { status: answer.status, paymentId: answer.paymentId, clientSecret: answer.clientSecret } };

  const recorded = answer;
  const registration = await app.deps.queue.transaction(app.db, async (tx) => {
    const current = await findRegistration(tx, row.churchId, row.id, true);
    if (!current) throw notFound('Registration');
    const saved = await insertPayment(tx, {
      churchId: row.churchId,
      registrationId: row.id,
      givingPaymentId: recorded.paymentId,
      provider: recorded.provider,
      transactionId: recorded.transactionId,
      method: payment.type === 'bank' || payment.type === 'ach' ? 'bank' : 'card',
      amount: recorded.amount,
      currency: recorded.currency,
      kind: 'charge',
      status: recorded.status,
      personId: payer.personId,
    });
    if (!saved) return current;
    const paid = toCents(current.amountPaid) + toCents(recorded.amount);
    // A bank payment still `processing` counts as paid: giving follows it up with the gateway's webhooks.
    const status = current.status === 'pending' && paid >= toCents(current.totalAmount) ? 'confirmed' : current.status;
    const after = await updateRegistration(tx, row.churchId, row.id, {
      amountPaid: centsText(paid),
      status,
      payAttempt: current.payAttempt + 1,
      ...(status === 'confirmed' ? { holdUntil: null } : {}),
    });
    await reportChanges(app.deps, [registrationChange('updated', current, after)], { req, tx });
    return after;
  });
  return { registration };
}
