import { hasPermission } from '@church/auth';
import { badRequest, conflict, type Actor } from '@church/common';
import { countActive, selectionUsage, typeUsage } from '../../repos/registrations';
import { toCents } from './pricing';

/** Whether the caller edits the church's website (B1Admin's registrations screens check Content.Edit). */
export const isStaff = (actor: Actor | null) => actor !== null && hasPermission(actor, 'Content.Edit', 'ContentApi');

/**
 * The members' attendee types: each must be one of the event's active types, and an event with a priced type
 * takes each attendee as a member with a type (400 otherwise: a member without one, or none at all, used to
 * register for nothing and be confirmed at $0).
 */
export function checkMemberTypes(types: Array<{ id: string; price: string | null }>, members: Array<{ registrationTypeId?: string | null }>): void {
  const ids = new Set(types.map((t) => t.id));
  members.forEach((m, i) => {
    if (m.registrationTypeId && !ids.has(m.registrationTypeId)) throw badRequest(`members[${i}].registrationTypeId`, 'is not an attendee type of this event');
  });
  if (!types.some((t) => toCents(t.price) > 0)) return;
  if (!members.length) throw badRequest('members', 'the event has priced attendee types: list each attendee with their registrationTypeId');
  members.forEach((m, i) => {
    if (!m.registrationTypeId) throw badRequest(`members[${i}].registrationTypeId`, 'is required: the event has priced attendee types');
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
