import { z } from 'zod';
import { Email, Id, IsoDate } from '@church/common';
import { Event, EventParams } from './website';
import { OptText, Stamp, Text } from './website-fields';

// What the registration routes accept and answer: the fields of the open-source Api's models that B1App's wizard
// and B1Admin's registration screens send and read. Amounts are numbers in JSON with at most two decimals.

const Amount = z.number();
/** A price or discount as the staff app sends it: at most two decimals, never negative. */
const MoneyIn = z.number().min(0).max(9_999_999_999.99).multipleOf(0.01, 'must have at most two decimals');
const Count = z.number().int().min(0).max(1_000_000);

export const ChurchQuery = z.object({ churchId: Id });
export { EventParams };
export const PersonParams = z.object({ personId: Id });
export const PublicEventParams = z.object({ churchId: Id, eventId: Id });

// ---- event setup (staff): attendee types, extras, coupons

export const RegistrationType = z.object({
  id: z.string(),
  churchId: z.string(),
  eventId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  price: Amount.nullable(),
  capacity: z.number().nullable(),
  minAgeYears: z.number().nullable(),
  maxAgeYears: z.number().nullable(),
  formId: z.string().nullable(),
  sort: z.number().nullable(),
  active: z.boolean(),
  /** places left of `capacity` (null: no limit), counted over pending and confirmed registrations */
  remainingCapacity: z.number().nullable().optional(),
});
export const RegistrationTypeSave = z.object({
  id: Id.optional(),
  eventId: Id.optional(),
  name: Text(200).min(1).optional(),
  description: OptText(2000),
  price: MoneyIn.nullish(),
  capacity: Count.nullish(),
  minAgeYears: z.number().int().min(0).max(150).nullish(),
  maxAgeYears: z.number().int().min(0).max(150).nullish(),
  formId: Id.nullish(),
  sort: z.number().int().min(-1_000_000).max(1_000_000).nullish(),
  active: z.boolean().optional(),
});

export const RegistrationSelection = z.object({
  id: z.string(),
  churchId: z.string(),
  eventId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  price: Amount.nullable(),
  capacity: z.number().nullable(),
  maxQuantity: z.number().nullable(),
  sort: z.number().nullable(),
  active: z.boolean(),
  remainingCapacity: z.number().nullable().optional(),
});
export const RegistrationSelectionSave = z.object({
  id: Id.optional(),
  eventId: Id.optional(),
  name: Text(200).min(1).optional(),
  description: OptText(2000),
  price: MoneyIn.nullish(),
  capacity: Count.nullish(),
  maxQuantity: z.number().int().min(1).max(10_000).nullish(),
  sort: z.number().int().min(-1_000_000).max(1_000_000).nullish(),
  active: z.boolean().optional(),
});

export const RegistrationCoupon = z.object({
  id: z.string(),
  churchId: z.string(),
  eventId: z.string(),
  code: z.string(),
  discountType: z.string(),
  value: Amount,
  startDate: Stamp.nullable(),
  endDate: Stamp.nullable(),
  minMembers: z.number().nullable(),
  maxUses: z.number().nullable(),
  active: z.boolean(),
  /** pending and confirmed registrations that used it */
  uses: z.number().optional(),
});
export const RegistrationCouponSave = z.object({
  id: Id.optional(),
  eventId: Id.optional(),
  code: Text(100).min(1).optional(),
  discountType: z.enum(['percent', 'amount']).optional(),
  value: MoneyIn.optional(),
  startDate: IsoDate.nullish(),
  endDate: IsoDate.nullish(),
  minMembers: Count.nullish(),
  maxUses: Count.nullish(),
  active: z.boolean().optional(),
});

export const CouponValidateBody = z.object({
  churchId: Id,
  eventId: Id,
  code: Text(100).min(1),
  memberCount: z.number().int().min(0).max(1000).optional(),
});
export const CouponValidation = z.object({ valid: z.boolean(), reason: z.string().optional(), discountType: z.string().optional(), value: Amount.optional() });

// ---- registrations

/** How a payment is made, as B1App's payment form sends it (`token` and `id` both name a one-time token). */
const PaymentFields = {
  provider: Text(50).nullish(),
  gatewayId: Id.nullish(),
  type: Text(20).nullish(),
  token: Text(255).nullish(),
  id: Text(255).nullish(),
  customerId: Text(255).nullish(),
  paymentMethodId: Text(255).nullish(),
  currency: z.string().trim().length(3).nullish(),
};
export const PayBody = z.object({
  ...PaymentFields,
  /** the key a sign-up's answer carries while its place is held: lets the signed-out wizard pay it (a guest) */
  payKey: z.string().max(500).nullish(),
});

export const RegisterBody = z.object({
  ...PaymentFields,
  /** the event's church; a token's church wins when one is sent */
  churchId: Id.nullish(),
  eventId: Id,
  personId: Id.nullish(),
  guestInfo: z.object({ firstName: Text(100).min(1), lastName: Text(100).min(1), email: Email, phone: OptText(40) }).nullish(),
  members: z
    .array(z.object({ personId: Id.nullish(), firstName: Text(100).min(1), lastName: OptText(100), registrationTypeId: Id.nullish() }))
    .max(50)
    .nullish(),
  selections: z
    .array(z.object({ selectionId: Id, quantity: z.number().int().min(1).max(1000).default(1), registrationMemberId: Id.nullish() }))
    .max(100)
    .nullish(),
  couponCode: OptText(100),
  formSubmissionId: Id.nullish(),
});

/** B1App's edit of a registration: the lists given replace the registration's. */
export const RegistrationEdit = z.object({
  notes: OptText(2000),
  formSubmissionId: Id.nullish(),
  members: RegisterBody.shape.members.unwrap().unwrap().optional(),
  selections: RegisterBody.shape.selections.unwrap().unwrap().optional(),
});

export const RegistrationMember = z.object({
  id: z.string(),
  churchId: z.string(),
  registrationId: z.string(),
  personId: z.string().nullable(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  registrationTypeId: z.string().nullable(),
});
export const SelectionChoice = z.object({
  id: z.string(),
  registrationId: z.string(),
  registrationMemberId: z.string().nullable(),
  selectionId: z.string(),
  quantity: z.number(),
});
export const RegistrationPayment = z.object({
  id: z.string(),
  registrationId: z.string(),
  givingPaymentId: z.string(),
  provider: z.string().nullable(),
  transactionId: z.string().nullable(),
  method: z.string().nullable(),
  amount: Amount,
  currency: z.string().nullable(),
  kind: z.string(),
  status: z.string(),
  personId: z.string().nullable(),
  createdDate: Stamp,
});

/** The event as a registration shows it (B1App's My registrations: title, dates). */
const RegistrationEvent = Event.pick({ id: true, groupId: true, title: true, description: true, start: true, end: true, allDay: true, capacity: true, waitlistEnabled: true, registrationEnabled: true });

export const Registration = z.object({
  id: z.string(),
  churchId: z.string(),
  eventId: z.string(),
  personId: z.string().nullable(),
  householdId: z.string().nullable(),
  status: z.string(),
  formSubmissionId: z.string().nullable(),
  notes: z.string().nullable(),
  guestFirstName: z.string().nullable(),
  guestLastName: z.string().nullable(),
  guestEmail: z.string().nullable(),
  guestPhone: z.string().nullable(),
  registeredDate: Stamp,
  cancelledDate: Stamp.nullable(),
  totalAmount: Amount,
  amountPaid: Amount,
  couponId: z.string().nullable(),
  waitlistNotifiedDate: Stamp.nullable(),
  /** until when an unpaid sign-up holds its place (null: until paid or cancelled) */
  holdUntil: Stamp.nullable(),
  /** while the place is held unpaid, the key that pays it without a token (`POST /registrations/:id/pay`) */
  payKey: z.string().optional(),
  members: z.array(RegistrationMember).optional(),
  selectionChoices: z.array(SelectionChoice).optional(),
  payments: z.array(RegistrationPayment).optional(),
  event: RegistrationEvent.nullable().optional(),
  /** a charge the browser must finish (3-D Secure): the app hands it to the gateway's SDK */
  payment: z.object({ status: z.string(), paymentId: z.string(), clientSecret: z.string().nullable() }).optional(),
});
export const Registrations = z.array(Registration);
/**
 * 503 of a payment giving could not take: the registration to pay again (its place held until `holdUntil`) and
 * the key to pay it signed out. Optional fields: the service's other 503s (the database away) carry `errors` only.
 */
export const PaymentUnavailable = z.object({
  errors: z.array(z.string()),
  registrationId: z.string().optional(),
  holdUntil: Stamp.nullable().optional(),
  payKey: z.string().optional(),
});
export const RegistrationCount = z.object({ count: z.number() });

/** The public registration page's event: what a visitor may see of a public event, nothing of its group's. */
export const PublicEvent = Event.pick({
  id: true,
  churchId: true,
  title: true,
  description: true,
  start: true,
  end: true,
  allDay: true,
  recurrenceRule: true,
  registrationEnabled: true,
  capacity: true,
  waitlistEnabled: true,
  registrationOpenDate: true,
  registrationCloseDate: true,
  tags: true,
  formId: true,
});
