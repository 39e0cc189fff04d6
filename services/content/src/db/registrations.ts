// Event registrations (the website half's migrations): who signed up for an event, the attendee types and
// extras they chose, discount codes, and the payments giving charged for them. Every index that serves a
// query leads with church_id.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';
import { events } from './website';

/** Money as numeric(12,2): text in code, integer cents in arithmetic (domain/registrations/money.ts). */
const money = (name: string) => numeric(name, { precision: 12, scale: 2 });

/** An attendee type of an event (adult, child) with its price and places. */
export const registrationTypes = pgTable(
  'registration_types',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    price: money('price'),
    capacity: integer('capacity'),
    minAgeYears: integer('min_age_years'),
    maxAgeYears: integer('max_age_years'),
    formId: uuid('form_id'),
    sort: integer('sort'),
    active: boolean('active').notNull().default(true),
  },
  (t) => [index('registration_types_church_event_idx').on(t.churchId, t.eventId, t.sort)],
);

/** An extra of an event (a T-shirt, a meal) bought in quantities, with its price and stock. */
export const registrationSelections = pgTable(
  'registration_selections',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    price: money('price'),
    capacity: integer('capacity'),
    maxQuantity: integer('max_quantity'),
    sort: integer('sort'),
    active: boolean('active').notNull().default(true),
  },
  (t) => [index('registration_selections_church_event_idx').on(t.churchId, t.eventId, t.sort)],
);

/** A discount code of an event: `percent` or `amount` off the total; codes compare case-insensitively. */
export const registrationCoupons = pgTable(
  'registration_coupons',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    discountType: text('discount_type').notNull().default('percent'),
    value: money('value').notNull().default('0'),
    startDate: at('start_date'),
    endDate: at('end_date'),
    minMembers: integer('min_members'),
    maxUses: integer('max_uses'),
    active: boolean('active').notNull().default(true),
  },
  (t) => [uniqueIndex('registration_coupons_church_event_code_idx').on(t.churchId, t.eventId, sql`lower(${t.code})`)],
);

/**
 * A registration for an event: `pending` (a balance to pay), `confirmed`, `waitlisted` or `cancelled`. Pending
 * and confirmed ones hold a place. A person has at most one registration per event that is not cancelled; a
 * guest without a person record is kept by name and email.
 */
export const registrations = pgTable(
  'registrations',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    personId: uuid('person_id'),
    householdId: uuid('household_id'),
    status: text('status').notNull(),
    formSubmissionId: uuid('form_submission_id'),
    notes: text('notes'),
    guestFirstName: text('guest_first_name'),
    guestLastName: text('guest_last_name'),
    guestEmail: text('guest_email'),
    guestPhone: text('guest_phone'),
    registeredDate: at('registered_date').notNull().defaultNow(),
    cancelledDate: at('cancelled_date'),
    totalAmount: money('total_amount').notNull().default('0'),
    amountPaid: money('amount_paid').notNull().default('0'),
    couponId: uuid('coupon_id').references(() => registrationCoupons.id, { onDelete: 'set null' }),
    waitlistNotifiedDate: at('waitlist_notified_date'),
    /** the charge attempt: part of giving's idempotency key, advanced once an attempt's outcome is known */
    payAttempt: integer('pay_attempt').notNull().default(0),
    /**
     * until when an unpaid `pending` registration holds its place (a sign-up waiting for its payment); after it,
     * the place is free again and the registration is cancelled under the event's lock. Null: held until paid
     * or cancelled (staff sign-ups, wait-list promotions).
     */
    holdUntil: at('hold_until'),
    ...timestamps(),
  },
  (t) => [
    index('registrations_church_event_idx').on(t.churchId, t.eventId, t.status, t.registeredDate),
    index('registrations_church_person_idx').on(t.churchId, t.personId),
    index('registrations_church_coupon_idx').on(t.churchId, t.couponId),
    uniqueIndex('registrations_church_event_person_idx')
      .on(t.churchId, t.eventId, t.personId)
      .where(sql`${t.personId} is not null and ${t.status} <> 'cancelled'`),
  ],
);

/** A person registered by a registration (the registrant's household, or names typed in). */
export const registrationMembers = pgTable(
  'registration_members',
  {
    id: id(),
    churchId: churchId(),
    registrationId: uuid('registration_id')
      .notNull()
      .references(() => registrations.id, { onDelete: 'cascade' }),
    personId: uuid('person_id'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    registrationTypeId: uuid('registration_type_id').references(() => registrationTypes.id, { onDelete: 'set null' }),
  },
  (t) => [index('registration_members_church_registration_idx').on(t.churchId, t.registrationId), index('registration_members_type_idx').on(t.registrationTypeId)],
);

/** A quantity of an extra chosen by a registration (for one of its members, or for the whole registration). */
export const registrationSelectionChoices = pgTable(
  'registration_selection_choices',
  {
    id: id(),
    churchId: churchId(),
    registrationId: uuid('registration_id')
      .notNull()
      .references(() => registrations.id, { onDelete: 'cascade' }),
    registrationMemberId: uuid('registration_member_id').references(() => registrationMembers.id, { onDelete: 'set null' }),
    selectionId: uuid('selection_id')
      .notNull()
      .references(() => registrationSelections.id, { onDelete: 'cascade' }),
    quantity: integer('quantity').notNull().default(1),
  },
  (t) => [index('registration_choices_church_registration_idx').on(t.churchId, t.registrationId), index('registration_choices_selection_idx').on(t.selectionId)],
);

/** A payment giving charged for a registration, once per giving payment. */
export const registrationPayments = pgTable(
  'registration_payments',
  {
    id: id(),
    churchId: churchId(),
    registrationId: uuid('registration_id')
      .notNull()
      .references(() => registrations.id, { onDelete: 'cascade' }),
    givingPaymentId: text('giving_payment_id').notNull(),
    provider: text('provider'),
    transactionId: text('transaction_id'),
    method: text('method'),
    amount: money('amount').notNull(),
    currency: text('currency'),
    kind: text('kind').notNull().default('charge'),
    status: text('status').notNull(),
    personId: uuid('person_id'),
    createdDate: at('created_date').notNull().defaultNow(),
  },
  (t) => [
    index('registration_payments_church_registration_idx').on(t.churchId, t.registrationId, t.createdDate),
    uniqueIndex('registration_payments_church_giving_idx').on(t.churchId, t.givingPaymentId),
  ],
);
