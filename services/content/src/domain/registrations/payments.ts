import type { z } from 'zod';
import { badRequest, HttpError, notFound, reportChanges, unauthorized, type Actor } from '@church/common';
import { chargeRegistration } from '../../clients/giving';
import { contactOf } from '../../clients/membership';
import type { ContentDeps } from '../../deps';
import { findRegistration, insertPayment, updateRegistration, type RegistrationRow } from '../../repos/registrations';
import type { PayBody, RegisterBody } from '../../schemas/registrations';
import { ownOrStaff, remove, renewHold, type RegistrationDeps } from './lifecycle';
import { centsText, toCents } from './pricing';
import { register } from './register';
import { changedBy, registrationChange, registrationDetail } from './views';

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

/** What paying reads and writes: the registrations, the outbox, giving and membership (through `internal`), the secret box. */
export type PaymentDeps = RegistrationDeps & Pick<ContentDeps, 'internal' | 'secrets'>;

/** How long a client waits before it retries a payment giving could not take (when giving names no time). */
const RETRY_AFTER_SECONDS = 30;

/**
 * The key that pays a held sign-up without a token (the signed-out wizard: a guest has no person to sign in as):
 * the church and registration sealed with the service's secret box, so it cannot be made up for another one.
 */
export const payKeyOf = (deps: Pick<ContentDeps, 'secrets'>, row: Pick<RegistrationRow, 'churchId' | 'id'>): string => deps.secrets.encrypt(`registration-pay:${row.churchId}:${row.id}`);

/** The registration a pay key was made for, when it is `id`'s (else undefined). */
export async function registrationByPayKey(deps: Pick<ContentDeps, 'db' | 'secrets'>, id: string, key: string): Promise<RegistrationRow | undefined> {
  let plain: string;
  try {
    plain = deps.secrets.decrypt(key);
  } catch {
    return undefined;
  }
  const [kind, churchId, keyId] = plain.split(':');
  if (kind !== 'registration-pay' || !churchId || keyId !== id) return undefined;
  return findRegistration(deps.db, churchId, id);
}

/**
 * When giving could not take a payment (unreachable, 5xx, briefly away), the answer the routes give: 503 with a
 * `Retry-After` (giving's own when it named one), the registration's id, until when its place is held, and the
 * key to pay it again, so the app retries the payment of that registration (the same idempotency key is sent,
 * so a charge giving did make is answered, not made twice). Anything else: undefined (the error stands).
 */
export function paymentUnavailable(deps: Pick<ContentDeps, 'secrets'>, err: unknown, row: RegistrationRow) {
  if (!(err instanceof HttpError) || err.statusCode < 500) return undefined;
  const retryAfter = err.headers['retry-after'] ?? String(RETRY_AFTER_SECONDS);
  return {
    headers: { 'retry-after': retryAfter },
    body: {
      errors: ['Payments cannot be taken just now; the place is held: retry the payment of this registration'],
      registrationId: row.id,
      holdUntil: row.holdUntil,
      payKey: payKeyOf(deps, row),
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
 * 4xx (a declined card, no gateway) is handed on as it is. The payment is recorded as made by `by`.
 */
export async function chargeBalance(deps: PaymentDeps, by: Actor, row: RegistrationRow, payment: Payment, payer: Payer): Promise<{ registration: RegistrationRow; action?: PendingAction }> {
  const balance = toCents(row.totalAmount) - toCents(row.amountPaid);
  if (balance <= 0) throw badRequest('id', 'No balance due', 'params');
  let answer;
  try {
    answer = await chargeRegistration(deps.internal, {
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
    });
  } catch (err) {
    // Refused: the next try is a new charge. A 409 (the key's first charge had another body) and failures of
    // unknown outcome keep the key, so nothing is charged twice.
    if (err instanceof HttpError && err.statusCode < 500 && err.statusCode !== 409) await updateRegistration(deps.db, row.churchId, row.id, { payAttempt: row.payAttempt + 1 });
    throw err;
  }
  if (answer.status === 'requires_action') return { registration: row, action: { status: answer.status, paymentId: answer.paymentId, clientSecret: answer.clientSecret } };

  const recorded = answer;
  const registration = await deps.queue.transaction(deps.db, async (tx) => {
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
    await reportChanges(deps, [registrationChange('updated', current, after)], { req: by, tx });
    return after;
  });
  return { registration };
}

/**
 * Signs up (`register`) and, for a paid registration sent with payment details, charges it at once, after the
 * sign-up has committed (no call to giving inside a transaction). One the gateway refuses is removed again (its
 * place freed, as a staff delete) and giving's 4xx thrown; giving unreachable is `unavailable` with the
 * registration to pay again (its 503's headers and body). A pending sign-up with a hold carries its `payKey`.
 */
export async function registerAndPay(deps: PaymentDeps, actor: Actor | null, body: z.output<typeof RegisterBody>, ip: string) {
  const saved = await register(deps, actor, body, ip);
  const held = (row: RegistrationRow) => (row.status === 'pending' && row.holdUntil ? { payKey: payKeyOf(deps, row) } : {});
  const out = { ...registrationDetail(saved.registration, { members: saved.members }), ...held(saved.registration) };
  if (saved.registration.status !== 'pending' || !hasPaymentDetails(body)) return { answer: out };
  const by = changedBy(actor, saved.registration.churchId, ip);
  try {
    const paid = await chargeBalance(deps, by, saved.registration, body, saved.payer);
    return { answer: { ...registrationDetail(paid.registration, { members: saved.members }), ...held(paid.registration), ...(paid.action ? { payment: paid.action } : {}) } };
  } catch (err) {
    const down = paymentUnavailable(deps, err, saved.registration);
    if (down) return { unavailable: down };
    // Removed like a staff delete: under the event's lock, its place going to the wait list if anyone waits.
    if (err instanceof HttpError && err.statusCode < 500) await remove(deps, by, saved.registration);
    throw err;
  }
}

/**
 * Pays a registration's balance (after a wait list promotion, a staff sign-up without payment, or a payment giving
 * could not take): the registrant or staff (`actor`), or signed out with the `payKey` the held sign-up was
 * answered with. A held place is renewed first (409 when it ran out and is taken), then charged after that has
 * committed, for the registrant as membership knows them (or the guest's name and address).
 */
export async function payRegistration(deps: PaymentDeps, actor: Actor | null, id: string, payment: Payment, ip: string) {
  const keyed = payment.payKey ? await registrationByPayKey(deps, id, payment.payKey) : undefined;
  if (!keyed && !actor) throw unauthorized(payment.payKey ? 'The payKey is not this registration’s' : 'A token or the registration’s payKey is required');
  const found = keyed ?? (await ownOrStaff(deps, actor!, id));
  if (found.status === 'waitlisted' || found.status === 'cancelled') throw badRequest('id', `A ${found.status} registration cannot be paid`, 'params');
  const row = await renewHold(deps, found);
  let email: string | null = row.guestEmail;
  let name: string | null = row.guestFirstName ? `${row.guestFirstName} ${row.guestLastName ?? ''}`.trim() : null;
  if (row.personId) {
    const person = await contactOf(deps.internal, row.churchId, row.personId);
    email = person?.email ?? null;
    name = person ? [person.firstName, person.lastName].filter(Boolean).join(' ') || person.displayName : null;
  }
  try {
    const paid = await chargeBalance(deps, changedBy(actor, row.churchId, ip), row, payment, { personId: row.personId, email, name });
    return { answer: { ...registrationDetail(paid.registration), ...(paid.action ? { payment: paid.action } : {}) } };
  } catch (err) {
    const down = paymentUnavailable(deps, err, row);
    if (down) return { unavailable: down };
    throw err;
  }
}
