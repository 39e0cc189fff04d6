import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, conflict, notFound, reportChanges, unauthorized, type Actor, type ChangeInput } from '@church/common';
import { personFacts } from '../../clients/membership';
import type { ContentDeps } from '../../deps';
import { checkNested } from '../references';
import {
  activeSelections,
  activeTypes,
  countActive,
  couponByCode,
  couponUses,
  insertRegistration,
  liveRegistrationOf,
  lockEvent,
  type EventRow,
} from '../../repos/registrations';
import type { RegisterBody } from '../../schemas/registrations';
import { centsText, checkCoupon, discounted, totalCents } from './pricing';
import { holdUntil, releaseHolds, type RegistrationDeps } from './lifecycle';
import { checkMemberTypes, checkPlaces, isStaff } from './places';
import { changedBy, registrationChange } from './views';

type Body = z.output<typeof RegisterBody>;

/** Refuses an event that does not take registrations now (400, as the Api answers). */
function checkOpen(event: EventRow, now: Date): void {
  if (!event.registrationEnabled) throw badRequest('eventId', 'Registration is not enabled for this event');
  if (event.registrationOpenDate && event.registrationOpenDate > now) throw badRequest('eventId', 'Registration has not opened yet');
  if (event.registrationCloseDate && event.registrationCloseDate < now) throw badRequest('eventId', 'Registration has closed');
}

/**
 * Who registers: a token's own person, or (staff only) another person of the church; without a token, the
 * person the public wizard names (B1App posts it anonymously) or a guest by name and email. The person named and
 * the people the members name are the church's (the shared reference check: another church's person is a 400
 * naming the field, `personId` or `members[i].personId`); membership then gives the registrant's household and email.
 */
async function registrant(deps: Pick<ContentDeps, 'db' | 'internal'>, actor: Actor | null, churchId: string, body: Body) {
  const own = actor?.personId ?? null;
  const personId = body.personId ?? (body.guestInfo ? null : own);
  if (!personId && !body.guestInfo) throw badRequest('guestInfo', 'guestInfo is required without a person');
  if (personId && actor && personId !== own && !isStaff(actor)) throw unauthorized('Missing permission: Content.Edit (to register someone else)');
  await assertReferences(deps, churchId, [body], { personId: REMOTE.people, formSubmissionId: REMOTE.formSubmissions }, (_i, field) => field);
  await checkMembersOfChurch(deps, churchId, body.members);
  if (!personId) {
    const g = body.guestInfo!;
    return { personId: null, householdId: null, email: g.email, name: `${g.firstName} ${g.lastName}`, guest: g };
  }
  const person = await personFacts(deps.internal, churchId, personId);
  if (!person) throw badRequest('personId', 'is not a person of this church');
  const name = [person.firstName, person.lastName].filter(Boolean).join(' ') || person.displayName;
  return { personId, householdId: person.householdId, email: person.email, name, guest: null };
}

/** Every person the members name must be one of the church's (`members[i].personId`; asked before any transaction). */
export async function checkMembersOfChurch(deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, members: Body['members']): Promise<void> {
  await checkNested(deps, churchId, members, { personId: REMOTE.people }, 'members');
}

/**
 * Registers people for an event in one transaction that holds the event's lock: the event must take
 * registrations, types and extras must be the event's active ones, a person registers once, the price is
 * computed here (the client sends only ids and quantities), and places are counted after the lock, so at most
 * `capacity` registrations are pending or confirmed however many arrive at once. A full event puts the
 * registration on its wait list when it has one, else answers 409. Reported as `registration.created`, made by
 * the caller (`actor`, null when signed out: then by the request's address `ip`).
 */
export async function register(deps: RegistrationDeps & Pick<ContentDeps, 'internal'>, actor: Actor | null, body: Body, ip: string) {
  const churchId = actor?.churchId ?? body.churchId;
  if (!churchId) throw badRequest('churchId', 'churchId is required');
  const who = await registrant(deps, actor, churchId, body);
  const members = body.members ?? [];
  const choices = body.selections ?? [];
  const now = new Date();

  return deps.queue.transaction(deps.db, async (tx) => {
    const event = await lockEvent(tx, churchId, body.eventId);
    if (!event) throw notFound('Event');
    checkOpen(event, now);
    const changes: ChangeInput[] = [];
    await releaseHolds(deps, tx, event, changes, now);
    const types = await activeTypes(tx, churchId, event.id);
    const selections = await activeSelections(tx, churchId, event.id);
    const typeOf = new Map(types.map((t) => [t.id, t]));
    const selectionOf = new Map(selections.map((s) => [s.id, s]));
    checkMemberTypes(types, members);
    choices.forEach((c, i) => {
      const selection = selectionOf.get(c.selectionId);
      if (!selection) throw badRequest(`selections[${i}].selectionId`, 'is not a selection of this event');
      if (selection.maxQuantity !== null && c.quantity > selection.maxQuantity) throw badRequest(`selections[${i}].quantity`, `must be at most ${selection.maxQuantity}`);
    });
    if (who.personId && (await liveRegistrationOf(tx, churchId, event.id, who.personId))) throw conflict('Already registered for this event', 'personId');

    let total = totalCents(types, selections, members, choices);
    let couponId: string | null = null;
    if (body.couponCode) {
      const coupon = await couponByCode(tx, churchId, event.id, body.couponCode);
      const check = checkCoupon(coupon, members.length || 1, coupon ? ((await couponUses(tx, churchId, [coupon.id])).get(coupon.id) ?? 0) : 0, now);
      if (!check.valid) throw badRequest('couponCode', `Coupon not valid: ${check.reason}`);
      total = discounted(total, coupon!);
      couponId = coupon!.id;
    }

    const full = event.capacity !== null && (await countActive(tx, churchId, event.id)) >= event.capacity;
    if (full && !event.waitlistEnabled) throw conflict('Event is at capacity');
    if (!full) await checkPlaces(tx, churchId, event.id, members, choices, typeOf, selectionOf);

    const saved = await insertRegistration(
      tx,
      {
        churchId,
        eventId: event.id,
        personId: who.personId,
        householdId: who.householdId,
        // nothing priced is confirmed before it is paid; an unpaid sign-up holds its place for a while
        status: full ? 'waitlisted' : total > 0 ? 'pending' : 'confirmed',
        holdUntil: !full && total > 0 && !isStaff(actor) ? holdUntil(deps, now) : null,
        formSubmissionId: body.formSubmissionId ?? null,
        guestFirstName: who.guest?.firstName ?? null,
        guestLastName: who.guest?.lastName ?? null,
        guestEmail: who.guest?.email ?? null,
        guestPhone: who.guest?.phone || null,
        registeredDate: now,
        totalAmount: centsText(total),
        couponId,
      },
      members.map((m) => ({ personId: m.personId ?? null, firstName: m.firstName, lastName: m.lastName || null, registrationTypeId: m.registrationTypeId ?? null })),
      // A choice's member is named by the client before the member exists: kept for the registration as a whole.
      choices.map((c) => ({ selectionId: c.selectionId, quantity: c.quantity })),
    );
    await reportChanges(deps, [...changes, registrationChange('created', undefined, saved.registration, saved.members)], { req: changedBy(actor, churchId, ip), tx });
    return { ...saved, payer: { personId: who.personId, email: who.email, name: who.name } };
  });
}
