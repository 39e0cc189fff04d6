import { systemActor, type Actor, type ActorLog, type ChangeInput } from '@church/common';
import type { ChoiceRow, EventRow, MemberRow, PaymentRow, RegistrationRow } from '../../repos/registrations';
import { moneyOut } from './pricing';

// Rows as the routes answer them: amounts as JSON numbers (from decimal text), the rest as stored.

export function registrationOut(row: RegistrationRow) {
  const { payAttempt: _attempt, createdAt: _created, updatedAt: _updated, ...rest } = row;
  return { ...rest, totalAmount: moneyOut(row.totalAmount)!, amountPaid: moneyOut(row.amountPaid)! };
}

export const paymentOut = (row: PaymentRow) => ({ ...row, amount: moneyOut(row.amount)! });

/** A registration with its members, choices, payments and event (whichever are given). */
export function registrationDetail(row: RegistrationRow, parts: { members?: MemberRow[]; choices?: ChoiceRow[]; payments?: PaymentRow[]; event?: EventRow | null } = {}) {
  return {
    ...registrationOut(row),
    ...(parts.members ? { members: parts.members } : {}),
    ...(parts.choices ? { selectionChoices: parts.choices } : {}),
    ...(parts.payments ? { payments: parts.payments.map(paymentOut) } : {}),
    ...(parts.event !== undefined ? { event: parts.event } : {}),
  };
}

/**
 * A registration's change for the audit log; its creation is the `registration.created` webhook event, with
 * the registration and its members as the payload.
 */
export function registrationChange(action: 'created' | 'updated' | 'destroyed', before: RegistrationRow | undefined, after: RegistrationRow | undefined, members?: MemberRow[]): ChangeInput {
  const row = (after ?? before)!;
  return {
    churchId: row.churchId,
    entityType: 'registration',
    entityId: row.id,
    action,
    ...(action === 'created' ? { event: 'registration.created' } : {}),
    before: before && registrationOut(before),
    after: after && action !== 'destroyed' ? registrationOut(after) : undefined,
    data: after && action !== 'destroyed' ? { ...registrationOut(after), ...(members ? { members } : {}) } : { id: row.id },
  };
}

const QUIET: ActorLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Who a registration's changes are recorded as made by: the signed-in caller, or for a caller without a token
 * (B1App's public wizard, a guest paying with the pay key) no user and no person, only the request's address.
 */
export const changedBy = (actor: Actor | null, churchId: string, ip: string): Actor => actor ?? { ...systemActor(churchId, '', QUIET), ip };
