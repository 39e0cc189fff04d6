import { badRequest, conflict, notFound, notifyPeople, reportChanges, unauthorized, type Actor, type ChangeInput, type Tx } from '@church/common';
import {
  activeSelections,
  activeTypes,
  choicesOf,
  countActive,
  deleteRegistration,
  findRegistration,
  lockEvent,
  membersOf,
  updateRegistration,
  releaseExpiredHolds,
  waitlistOf,
  type EventRow,
  type RegistrationRow,
} from '../../repos/registrations';
import { toCents } from './pricing';
import { checkPlaces, isStaff } from './places';
import { registrationChange } from './views';
import type { ContentDeps } from '../../deps';
import { websiteSettings } from '../../config/website';

/** What registrations read and write: the database, the outbox (jobs and reported changes), the config. */
export type RegistrationDeps = Pick<ContentDeps, 'db' | 'queue' | 'module' | 'config'>;

/** The registration of the caller's church, refused (401) unless it is the caller's own or the caller is staff. */
export async function ownOrStaff(deps: Pick<ContentDeps, 'db'>, actor: Actor, id: string): Promise<RegistrationRow> {
  const row = await findRegistration(deps.db, actor.churchId, id);
  if (!row) throw notFound('Registration');
  if (!(row.personId && row.personId === actor.personId) && !isStaff(actor)) throw unauthorized('Missing permission: Content.Edit or own registration');
  return row;
}

/** Moves a wait-listed registration to the places: pending while it has a balance, else confirmed. */
async function promoteRow(deps: RegistrationDeps, tx: Tx, event: EventRow, row: RegistrationRow, changes: ChangeInput[]): Promise<RegistrationRow> {
  const status = toCents(row.totalAmount) > toCents(row.amountPaid) ? 'pending' : 'confirmed';
  const after = await updateRegistration(tx, row.churchId, row.id, { status, waitlistNotifiedDate: new Date() });
  changes.push(registrationChange('updated', row, after));
  if (row.personId) {
    const message = status === 'pending' ? `A place opened for ${event.title}: complete your payment to keep it.` : `A place opened for ${event.title}: your registration is confirmed.`;
    await deps.queue.enqueue(notifyPeople, { churchId: row.churchId, personIds: [row.personId], message, contentType: 'registration', contentId: row.id }, { tx });
  }
  return after;
}

const hasPlace = async (tx: Tx, event: EventRow) => event.capacity === null || (await countActive(tx, event.churchId, event.id)) < event.capacity;

/** A wait-listed registration's attendee types and extras must still have room for it (409 otherwise). */
async function checkRoomFor(tx: Tx, event: EventRow, row: RegistrationRow): Promise<void> {
  const types = new Map((await activeTypes(tx, event.churchId, event.id)).map((t) => [t.id, t]));
  const selections = new Map((await activeSelections(tx, event.churchId, event.id)).map((s) => [s.id, s]));
  // Types or extras turned off since are not counted (they no longer limit anything).
  const members = (await membersOf(tx, event.churchId, [row.id])).filter((m) => m.registrationTypeId && types.has(m.registrationTypeId));
  const choices = (await choicesOf(tx, event.churchId, row.id)).filter((c) => selections.has(c.selectionId));
  await checkPlaces(tx, event.churchId, event.id, members, choices, types, selections);
}

/** After a place is freed: the earliest wait-listed registration whose types and extras still fit takes it. */
async function promoteNext(deps: RegistrationDeps, tx: Tx, event: EventRow, changes: ChangeInput[]): Promise<void> {
  if (!(await hasPlace(tx, event))) return;
  for (const next of await waitlistOf(tx, event.churchId, event.id)) {
    const fits = await checkRoomFor(tx, event, next).then(
      () => true,
      () => false,
    );
    if (fits) return void (await promoteRow(deps, tx, event, next, changes));
  }
}

/** Until when a new unpaid sign-up holds its place (REGISTRATION_HOLD_MINUTES, 30 by default). */
export const holdUntil = (deps: Pick<ContentDeps, 'config'>, now: Date): Date => new Date(now.getTime() + websiteSettings(deps.config).holdMinutes * 60_000);

/**
 * Under the event's lock, before places are counted: cancels the unpaid sign-ups whose hold ran out (each reported)
 * and gives the places they held to the wait list.
 */
export async function releaseHolds(deps: RegistrationDeps, tx: Tx, event: EventRow, changes: ChangeInput[], now = new Date()): Promise<void> {
  const released = await releaseExpiredHolds(tx, event.churchId, event.id, now);
  for (const { before, after } of released) changes.push(registrationChange('updated', before, after));
  for (let i = 0; i < released.length; i++) await promoteNext(deps, tx, event, changes);
}

/**
 * Runs `work` on the registration under its event's lock (every change of a registration's status takes it
 * first, so places are counted one change at a time), reporting the changes it collects in the same transaction
 * as made by `by` (the caller, or a signed-out caller's `signedOut`).
 */
function underEventLock<T>(deps: RegistrationDeps, by: Actor, row: RegistrationRow, work: (tx: Tx, event: EventRow, current: RegistrationRow, changes: ChangeInput[]) => Promise<T>): Promise<T> {
  return deps.queue.transaction(deps.db, async (tx) => {
    const event = await lockEvent(tx, row.churchId, row.eventId);
    if (!event) throw notFound('Registration');
    const changes: ChangeInput[] = [];
    await releaseHolds(deps, tx, event, changes);
    const current = await findRegistration(tx, row.churchId, row.id);
    if (!current) throw notFound('Registration');
    const out = await work(tx, event, current, changes);
    await reportChanges(deps, changes, { req: by, tx });
    return out;
  });
}

/** Cancels a registration (no refund: staff refund in giving) and gives its place to the wait list. */
export function cancel(deps: RegistrationDeps, actor: Actor, row: RegistrationRow): Promise<RegistrationRow> {
  return underEventLock(deps, actor, row, async (tx, event, current, changes) => {
    if (current.status === 'cancelled') throw badRequest('id', 'Already cancelled', 'params');
    const after = await updateRegistration(tx, current.churchId, current.id, { status: 'cancelled', cancelledDate: new Date() });
    changes.push(registrationChange('updated', current, after));
    if (current.status !== 'waitlisted') await promoteNext(deps, tx, event, changes);
    return after;
  });
}

/** Deletes a registration with its members, choices and payment records, and gives its place to the wait list. */
export function remove(deps: RegistrationDeps, by: Actor, row: RegistrationRow): Promise<void> {
  return underEventLock(deps, by, row, async (tx, event, current, changes) => {
    await deleteRegistration(tx, current.churchId, current.id);
    changes.push(registrationChange('destroyed', current, undefined));
    if (current.status === 'pending' || current.status === 'confirmed') await promoteNext(deps, tx, event, changes);
  });
}

/** Staff move this wait-listed registration to the places; 409 when the event is full. */
export function promote(deps: RegistrationDeps, actor: Actor, row: RegistrationRow): Promise<RegistrationRow> {
  return underEventLock(deps, actor, row, async (tx, event, current, changes) => {
    if (current.status !== 'waitlisted') throw badRequest('id', 'Registration is not on the wait list', 'params');
    if (!(await hasPlace(tx, event))) throw conflict('No spot available to promote');
    await checkRoomFor(tx, event, current);
    return promoteRow(deps, tx, event, current, changes);
  });
}

/**
 * Before a payment is charged, under the event's lock: an unpaid sign-up's hold is renewed for the charge. One
 * whose hold ran out keeps its place only while the place is still free (it no longer counts), else 409. Nothing
 * is charged while a transaction is open: the caller charges after this commits.
 */
export function renewHold(deps: RegistrationDeps, row: RegistrationRow): Promise<RegistrationRow> {
  return deps.queue.transaction(deps.db, async (tx) => {
    const event = await lockEvent(tx, row.churchId, row.eventId);
    const current = await findRegistration(tx, row.churchId, row.id);
    if (!event || !current) throw notFound('Registration');
    // released (or moved) since it was read: nothing is charged for it
    if (current.status === 'waitlisted' || current.status === 'cancelled') throw badRequest('id', `A ${current.status} registration cannot be paid`, 'params');
    if (current.status !== 'pending' || !current.holdUntil) return current;
    const now = new Date();
    if (current.holdUntil <= now) {
      const fits = (await hasPlace(tx, event)) && (await checkRoomFor(tx, event, current).then(() => true, () => false));
      if (!fits) throw conflict('The place held for this registration has been released and is taken; register again');
    }
    return updateRegistration(tx, current.churchId, current.id, { holdUntil: holdUntil(deps, now) });
  });
}
