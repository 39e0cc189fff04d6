import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type ChangeInput } from '@church/common';
import type { ContentDeps } from '../../deps';
import { activeSelections, activeTypes, findCoupon, findRegistration, lockEvent, replaceParts, updateRegistration, type RegistrationRow } from '../../repos/registrations';
import type { RegistrationEdit } from '../../schemas/registrations';
import { centsText, discounted, totalCents } from './pricing';
import { releaseHolds, type RegistrationDeps } from './lifecycle';
import { checkMemberTypes, checkPlaces } from './places';
import { checkMembersOfChurch } from './register';
import { registrationChange } from './views';

type Body = z.output<typeof RegistrationEdit>;

/**
 * B1App's edit of a registration (its members, extras, notes): under the event's lock, the new members and extras
 * are checked against the event's active types and extras and their places (this registration's old ones no
 * longer counted), and the total is computed again with its code. Nothing is charged or refunded here: a higher
 * total is a balance due (`POST /:id/pay`), a lower one is for staff to refund in giving.
 */
export async function editRegistration(deps: RegistrationDeps & Pick<ContentDeps, 'internal'>, actor: Actor, row: RegistrationRow, body: Body) {
  // the people members name are the church's (membership, asked before the transaction)
  await checkMembersOfChurch(deps, row.churchId, body.members);
  return deps.queue.transaction(deps.db, async (tx) => {
    const event = await lockEvent(tx, row.churchId, row.eventId);
    if (!event) throw notFound('Registration');
    const changes: ChangeInput[] = [];
    await releaseHolds(deps, tx, event, changes);
    const current = await findRegistration(tx, row.churchId, row.id);
    if (!current) throw notFound('Registration');
    if (current.status === 'cancelled') throw badRequest('id', 'A cancelled registration cannot be changed', 'params');
    const types = await activeTypes(tx, row.churchId, event.id);
    const selections = await activeSelections(tx, row.churchId, event.id);
    const typeOf = new Map(types.map((t) => [t.id, t]));
    const selectionOf = new Map(selections.map((s) => [s.id, s]));
    if (body.members) checkMemberTypes(types, body.members);
    body.selections?.forEach((c, i) => {
      const selection = selectionOf.get(c.selectionId);
      if (!selection) throw badRequest(`selections[${i}].selectionId`, 'is not a selection of this event');
      if (selection.maxQuantity !== null && c.quantity > selection.maxQuantity) throw badRequest(`selections[${i}].quantity`, `must be at most ${selection.maxQuantity}`);
    });
    const members = body.members?.map((m) => ({ personId: m.personId ?? null, firstName: m.firstName, lastName: m.lastName || null, registrationTypeId: m.registrationTypeId ?? null }));
    const choices = body.selections?.map((c) => ({ selectionId: c.selectionId, quantity: c.quantity }));
    // Only the replaced parts are checked (the kept ones are already counted); a wait-listed registration holds no places.
    const parts = await replaceParts(tx, row.churchId, row.id, members, choices, () =>
      current.status === 'waitlisted' ? Promise.resolve() : checkPlaces(tx, row.churchId, event.id, members ?? [], choices ?? [], typeOf, selectionOf),
    );
    let total = totalCents(types, selections, parts.members, parts.choices);
    const coupon = current.couponId ? await findCoupon(tx, row.churchId, current.couponId) : undefined;
    if (coupon) total = discounted(total, coupon);
    const after = await updateRegistration(tx, row.churchId, row.id, {
      totalAmount: centsText(total),
      ...(body.notes !== undefined ? { notes: body.notes || null } : {}),
      ...(body.formSubmissionId !== undefined ? { formSubmissionId: body.formSubmissionId ?? null } : {}),
    });
    await reportChanges(deps, [...changes, registrationChange('updated', current, after)], { req: actor, tx });
    return { registration: after, ...parts };
  });
}
