import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { badRequest, callInternal, conflict, membershipInternal, notFound, reportChanges, unauthorized } from '@church/common';
import {
  activeSelections,
  activeTypes,
  countActive,
  couponByCode,
  couponUses,
  insertRegistration,
  liveRegistrationOf,
  lockEvent,
  selectionUsage,
  typeUsage,
  type EventRow,
} from '../../repos/registrations';
import type { RegisterBody } from '../../schemas/registrations';
import { centsText, checkCoupon, discounted, totalCents } from './pricing';
import { registrationChange } from './views';

type Body = z.output<typeof RegisterBody>;

/** Whether the caller edits the church's website (B1Admin's registrations screens check Content.Edit). */
export const isStaff = (req: FastifyRequest) => Boolean(req.auth) && hasPermission(req.auth, 'Content.Edit', 'ContentApi');

/** Refuses an event that does not take registrations now (400, as the Api answers). */
function checkOpen(event: EventRow, now: Date): void {
  if (!event.registrationEnabled) throw badRequest('eventId', 'Registration is not enabled for this event');
  if (event.registrationOpenDate && event.registrationOpenDate > now) throw badRequest('eventId', 'Registration has not opened yet');
  if (event.registrationCloseDate && event.registrationCloseDate < now) throw badRequest('eventId', 'Registration has closed');
}

/**
 * Who registers: a token's own person, or (staff only) another person of the church; without a token, the
 * person the public wizard names (B1App posts it anonymously) or a guest by name and email. A named person is
 * checked with membership, which also gives their household and email.
 */
async function registrant(app: FastifyInstance, req: FastifyRequest, churchId: string, body: Body) {
  const own = req.auth?.personId ?? null;
  const personId = body.personId ?? (body.guestInfo ? null : own);
  if (!personId) {
    if (!body.guestInfo) throw badRequest('guestInfo', 'guestInfo is required without a person');
    const g = body.guestInfo;
    return { personId: null, householdId: null, email: g.email, name: `${g.firstName} ${g.lastName}`, guest: g };
  }
  if (req.auth && personId !== own && !isStaff(req)) throw unauthorized('Missing permission: Content.Edit (to register someone else)');
  const [person] = await callInternal(app.deps.internal, membershipInternal.peopleFacts, { churchId, ids: [personId] });
  if (!person) throw badRequest('personId', 'is not a person of this church');
  const name = [person.firstName, person.lastName].filter(Boolean).join(' ') || person.displayName;
  return { personId, householdId: person.householdId, email: person.email, name, guest: null };
}

/**
 * Registers people for an event in one transaction that holds the event's lock: the event must take
 * registrations, types and extras must be the event's active ones, a person registers once, the price is
 * computed here (the client sends only ids and quantities), and places are counted after the lock, so at most
 * `capacity` registrations are pending or confirmed however many arrive at once. A full event puts the
 * registration on its wait list when it has one, else answers 409. Reported as `registration.created`.
 */
export async function register(app: FastifyInstance, req: FastifyRequest, body: Body) {
  const churchId = req.auth?.churchId ?? body.churchId;
  if (!churchId) throw badRequest('churchId', 'churchId is required');
  const who = await registrant(app, req, churchId, body);
  const members = body.members ?? [];
  const choices = body.selections ?? [];
  const now = new Date();

  return app.deps.queue.transaction(app.db, async (tx) => {
    const event = await lockEvent(tx, churchId, body.eventId);
    if (!event) throw notFound('Event');
    checkOpen(event, now);
    const types = await activeTypes(tx, churchId, event.id);
    const selections = await activeSelections(tx, churchId, event.id);
    const typeOf = new Map(types.map((t) => [t.id, t]));
    const selectionOf = new Map(selections.map((s) => [s.id, s]));
    members.forEach((m, i) => {
      if (m.registrationTypeId && !typeOf.has(m.registrationTypeId)) throw badRequest(`members[${i}].registrationTypeId`, 'is not an attendee type of this event');
    });
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
        status: full ? 'waitlisted' : total > 0 ? 'pending' : 'confirmed',
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
    await reportChanges(app.deps, [registrationChange('created', undefined, saved.registration, saved.members)], { req, tx });
    return { ...saved, payer: { personId: who.personId, email: who.email, name: who.name } };
  });
}

/** Per-type and per-extra capacities, counted under the event's lock (409 naming which is full). */
export async function checkPlaces(
  tx: Parameters<typeof countActive>[0],
  churchId: string,
  eventId: string,
  members: Array<{ registrationTypeId?: string | null }>,
  choices: Array<{ selectionId: string; quantity: number }>,
  typeOf: Map<string, { capacity: number | null }>,
  selectionOf: Map<string, { capacity: number | null }>,
): Promise<void> {
  const wanted = new Map<string, number>();
  for (const m of members) if (m.registrationTypeId) wanted.set(m.registrationTypeId, (wanted.get(m.registrationTypeId) ?? 0) + 1);
  if ([...wanted.keys()].some((id) => typeOf.get(id)?.capacity !== null)) {
    const used = await typeUsage(tx, churchId, eventId);
    for (const [id, n] of wanted) {
      const capacity = typeOf.get(id)!.capacity;
      if (capacity !== null && (used.get(id) ?? 0) + n > capacity) throw conflict('Attendee type is at capacity', 'members');
    }
  }
  const quantities = new Map<string, number>();
  for (const c of choices) quantities.set(c.selectionId, (quantities.get(c.selectionId) ?? 0) + c.quantity);
  if ([...quantities.keys()].some((id) => selectionOf.get(id)?.capacity !== null)) {
    const used = await selectionUsage(tx, churchId, eventId);
    for (const [id, n] of quantities) {
      const capacity = selectionOf.get(id)!.capacity;
      if (capacity !== null && (used.get(id) ?? 0) + n > capacity) throw conflict('Selection is at capacity', 'selections');
    }
  }
}
