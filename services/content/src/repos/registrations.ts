import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, gt, inArray, isNull, lte, or, sql, sum } from 'drizzle-orm';
import { findRow, rowsByIds, type DbOrTx } from '@church/common';
import { events } from '../db/website';
import { registrationCoupons, registrationMembers, registrationPayments, registrations, registrationSelectionChoices, registrationSelections, registrationTypes } from '../db/registrations';
import type { EventRow } from './website/events';

export type { EventRow };
export type RegistrationRow = typeof registrations.$inferSelect;
export type MemberRow = typeof registrationMembers.$inferSelect;
export type ChoiceRow = typeof registrationSelectionChoices.$inferSelect;
export type PaymentRow = typeof registrationPayments.$inferSelect;
export type TypeRow = typeof registrationTypes.$inferSelect;
export type SelectionRow = typeof registrationSelections.$inferSelect;
export type CouponRow = typeof registrationCoupons.$inferSelect;

/**
 * Registrations that hold a place (and count against capacities and coupon uses): pending and confirmed, but not
 * an unpaid sign-up whose hold has run out (`hold_until` past), even before it is released.
 */
export const ACTIVE = ['pending', 'confirmed'];
// the database's clock (`now()`, the transaction's start), so every count of one transaction sees the same holds
const active = and(inArray(registrations.status, ACTIVE), or(isNull(registrations.holdUntil), gt(registrations.holdUntil, sql`now()`)));

/**
 * Cancels the event's unpaid sign-ups whose hold ran out (called under the event's lock, before places are
 * counted; by the database's clock, as `active` reads it), answering them as they were and as they are now.
 */
export async function releaseExpiredHolds(tx: DbOrTx, churchId: string, eventId: string, now: Date): Promise<Array<{ before: RegistrationRow; after: RegistrationRow }>> {
  const expired = await tx
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), eq(registrations.status, 'pending'), lte(registrations.holdUntil, sql`now()`)));
  if (!expired.length) return [];
  const after = await tx
    .update(registrations)
    .set({ status: 'cancelled', cancelledDate: now, holdUntil: null, updatedAt: now })
    .where(and(eq(registrations.churchId, churchId), inArray(registrations.id, expired.map((r) => r.id))))
    .returning();
  const byId = new Map(after.map((r) => [r.id, r]));
  return expired.map((before) => ({ before, after: byId.get(before.id)! }));
}

export const findEvent = (db: DbOrTx, churchId: string, eventId: string): Promise<EventRow | undefined> => findRow(db, events, churchId, eventId);

/**
 * The event locked for the rest of the transaction: every registration of an event takes this lock before it
 * counts places, so concurrent sign-ups are counted one after another and a capacity is never oversold.
 */
export async function lockEvent(tx: DbOrTx, churchId: string, eventId: string): Promise<EventRow | undefined> {
  const [row] = await tx
    .select()
    .from(events)
    .where(and(eq(events.churchId, churchId), eq(events.id, eventId)))
    .for('update');
  return row;
}

export const eventsByIds = (db: DbOrTx, churchId: string, ids: string[]): Promise<EventRow[]> => rowsByIds(db, events, churchId, [...new Set(ids)]);

export function activeTypes(db: DbOrTx, churchId: string, eventId: string): Promise<TypeRow[]> {
  return db
    .select()
    .from(registrationTypes)
    .where(and(eq(registrationTypes.churchId, churchId), eq(registrationTypes.eventId, eventId), eq(registrationTypes.active, true)))
    .orderBy(asc(registrationTypes.sort), asc(registrationTypes.name));
}

export function activeSelections(db: DbOrTx, churchId: string, eventId: string): Promise<SelectionRow[]> {
  return db
    .select()
    .from(registrationSelections)
    .where(and(eq(registrationSelections.churchId, churchId), eq(registrationSelections.eventId, eventId), eq(registrationSelections.active, true)))
    .orderBy(asc(registrationSelections.sort), asc(registrationSelections.name));
}

/** Members of the event's pending and confirmed registrations, by attendee type. */
export async function typeUsage(db: DbOrTx, churchId: string, eventId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ typeId: registrationMembers.registrationTypeId, used: count() })
    .from(registrationMembers)
    .innerJoin(registrations, eq(registrations.id, registrationMembers.registrationId))
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), active))
    .groupBy(registrationMembers.registrationTypeId);
  return new Map(rows.flatMap((r) => (r.typeId ? [[r.typeId, r.used] as const] : [])));
}

/** Quantities of each extra on the event's pending and confirmed registrations. */
export async function selectionUsage(db: DbOrTx, churchId: string, eventId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ selectionId: registrationSelectionChoices.selectionId, used: sum(registrationSelectionChoices.quantity).mapWith(Number) })
    .from(registrationSelectionChoices)
    .innerJoin(registrations, eq(registrations.id, registrationSelectionChoices.registrationId))
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), active))
    .groupBy(registrationSelectionChoices.selectionId);
  return new Map(rows.map((r) => [r.selectionId, r.used ?? 0]));
}

export async function countActive(db: DbOrTx, churchId: string, eventId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), active));
  return row?.n ?? 0;
}

export async function couponByCode(db: DbOrTx, churchId: string, eventId: string, code: string): Promise<CouponRow | undefined> {
  const [row] = await db
    .select()
    .from(registrationCoupons)
    .where(and(eq(registrationCoupons.churchId, churchId), eq(registrationCoupons.eventId, eventId), sql`lower(${registrationCoupons.code}) = lower(${code})`));
  return row;
}

/** Pending and confirmed registrations that used each coupon. */
export async function couponUses(db: DbOrTx, churchId: string, couponIds: string[]): Promise<Map<string, number>> {
  if (!couponIds.length) return new Map();
  const rows = await db
    .select({ couponId: registrations.couponId, n: count() })
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), inArray(registrations.couponId, couponIds), active))
    .groupBy(registrations.couponId);
  return new Map(rows.map((r) => [r.couponId!, r.n]));
}

export function couponsOfEvent(db: DbOrTx, churchId: string, eventId: string): Promise<CouponRow[]> {
  return db
    .select()
    .from(registrationCoupons)
    .where(and(eq(registrationCoupons.churchId, churchId), eq(registrationCoupons.eventId, eventId)))
    .orderBy(asc(registrationCoupons.code));
}

/** The person's registration of the event that is not cancelled, if any. */
export async function liveRegistrationOf(db: DbOrTx, churchId: string, eventId: string, personId: string): Promise<RegistrationRow | undefined> {
  const [row] = await db
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), eq(registrations.personId, personId), sql`${registrations.status} <> 'cancelled'`));
  return row;
}

export async function insertRegistration(
  tx: DbOrTx,
  row: Omit<typeof registrations.$inferInsert, 'id'>,
  members: Array<Omit<typeof registrationMembers.$inferInsert, 'id' | 'registrationId' | 'churchId'>>,
  choices: Array<Omit<typeof registrationSelectionChoices.$inferInsert, 'id' | 'registrationId' | 'churchId'>>,
): Promise<{ registration: RegistrationRow; members: MemberRow[]; choices: ChoiceRow[] }> {
  const [registration] = await tx.insert(registrations).values({ ...row, id: randomUUID() }).returning();
  const { churchId, id: registrationId } = registration!;
  const savedMembers = members.length ? await tx.insert(registrationMembers).values(members.map((m) => ({ ...m, id: randomUUID(), churchId, registrationId }))).returning() : [];
  const savedChoices = choices.length ? await tx.insert(registrationSelectionChoices).values(choices.map((c) => ({ ...c, id: randomUUID(), churchId, registrationId }))).returning() : [];
  return { registration: registration!, members: savedMembers, choices: savedChoices };
}

export async function findRegistration(db: DbOrTx, churchId: string, id: string, lock = false): Promise<RegistrationRow | undefined> {
  const query = db
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function updateRegistration(tx: DbOrTx, churchId: string, id: string, set: Partial<typeof registrations.$inferInsert>): Promise<RegistrationRow> {
  const [row] = await tx
    .update(registrations)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(registrations.churchId, churchId), eq(registrations.id, id)))
    .returning();
  return row!;
}

/** Removes a registration with its members, choices and payment records (foreign keys cascade). */
export async function deleteRegistration(tx: DbOrTx, churchId: string, id: string): Promise<void> {
  await tx.delete(registrations).where(and(eq(registrations.churchId, churchId), eq(registrations.id, id)));
}

/** The event's wait list, earliest registered first (the first `limit`). */
export function waitlistOf(tx: DbOrTx, churchId: string, eventId: string, limit = 50): Promise<RegistrationRow[]> {
  return tx
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), eq(registrations.status, 'waitlisted')))
    .orderBy(asc(registrations.registeredDate), asc(registrations.id))
    .limit(limit);
}

export function registrationsOfEvent(db: DbOrTx, churchId: string, eventId: string): Promise<RegistrationRow[]> {
  return db
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId)))
    .orderBy(asc(registrations.registeredDate), asc(registrations.id));
}

export function registrationsOfPerson(db: DbOrTx, churchId: string, personId: string): Promise<RegistrationRow[]> {
  return db
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.personId, personId)))
    .orderBy(desc(registrations.registeredDate), asc(registrations.id));
}

export function membersOf(db: DbOrTx, churchId: string, registrationIds: string[]): Promise<MemberRow[]> {
  if (!registrationIds.length) return Promise.resolve([]);
  return db
    .select()
    .from(registrationMembers)
    .where(and(eq(registrationMembers.churchId, churchId), inArray(registrationMembers.registrationId, registrationIds)))
    .orderBy(asc(registrationMembers.lastName), asc(registrationMembers.firstName), asc(registrationMembers.id));
}

/** One registration's chosen extras (the event's totals: `selectionUsage`). */
export function choicesOf(db: DbOrTx, churchId: string, registrationId: string): Promise<ChoiceRow[]> {
  return db
    .select()
    .from(registrationSelectionChoices)
    .where(and(eq(registrationSelectionChoices.churchId, churchId), eq(registrationSelectionChoices.registrationId, registrationId)));
}

export function paymentsOf(db: DbOrTx, churchId: string, registrationId: string): Promise<PaymentRow[]> {
  return db
    .select()
    .from(registrationPayments)
    .where(and(eq(registrationPayments.churchId, churchId), eq(registrationPayments.registrationId, registrationId)))
    .orderBy(asc(registrationPayments.createdDate));
}

/** Records giving's payment once: a second answer for the same giving payment (a retried charge) adds nothing. */
export async function insertPayment(tx: DbOrTx, row: Omit<typeof registrationPayments.$inferInsert, 'id'>): Promise<PaymentRow | undefined> {
  const [saved] = await tx
    .insert(registrationPayments)
    .values({ ...row, id: randomUUID() })
    .onConflictDoNothing({ target: [registrationPayments.churchId, registrationPayments.givingPaymentId] })
    .returning();
  return saved;
}

/** The people of the event's pending and confirmed registrations, with their members (messaging's reminders). */
export async function activeAttendance(db: DbOrTx, churchId: string, eventId: string): Promise<{ registrations: RegistrationRow[]; members: MemberRow[] }> {
  const regs = await db
    .select()
    .from(registrations)
    .where(and(eq(registrations.churchId, churchId), eq(registrations.eventId, eventId), active));
  return { registrations: regs, members: await membersOf(db, churchId, regs.map((r) => r.id)) };
}

export const findCoupon = (db: DbOrTx, churchId: string, id: string): Promise<CouponRow | undefined> => findRow(db, registrationCoupons, churchId, id);

/**
 * Replaces a registration's members and/or chosen extras (those given), answering what it holds afterwards;
 * `check` runs between the removal of the old ones and the insert of the new (places counted without the old).
 */
export async function replaceParts(
  tx: DbOrTx,
  churchId: string,
  registrationId: string,
  members: Array<Omit<typeof registrationMembers.$inferInsert, 'id' | 'registrationId' | 'churchId'>> | undefined,
  choices: Array<Omit<typeof registrationSelectionChoices.$inferInsert, 'id' | 'registrationId' | 'churchId'>> | undefined,
  check: () => Promise<void>,
): Promise<{ members: MemberRow[]; choices: ChoiceRow[] }> {
  const mine = (table: typeof registrationMembers | typeof registrationSelectionChoices) => and(eq(table.churchId, churchId), eq(table.registrationId, registrationId));
  if (members) await tx.delete(registrationMembers).where(mine(registrationMembers));
  if (choices) await tx.delete(registrationSelectionChoices).where(mine(registrationSelectionChoices));
  await check();
  if (members) {
    if (members.length) await tx.insert(registrationMembers).values(members.map((m) => ({ ...m, id: randomUUID(), churchId, registrationId })));
  }
  if (choices) {
    if (choices.length) await tx.insert(registrationSelectionChoices).values(choices.map((c) => ({ ...c, id: randomUUID(), churchId, registrationId })));
  }
  return { members: await membersOf(tx, churchId, [registrationId]), choices: await choicesOf(tx, churchId, registrationId) };
}
