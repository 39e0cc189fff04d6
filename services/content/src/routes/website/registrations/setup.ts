import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { REMOTE, crud, notFound, type ZodTypeProvider } from '@church/common';
import { events } from '../../../db/website';
import { registrationCoupons, registrationSelections, registrationTypes } from '../../../db/registrations';
import { centsText, moneyOut, toCents } from '../../../domain/registrations/pricing';
import { activeSelections, activeTypes, couponsOfEvent, couponUses, findEvent, selectionUsage, typeUsage, type CouponRow, type SelectionRow, type TypeRow } from '../../../repos/registrations';
import {
  ChurchQuery,
  EventParams,
  RegistrationCoupon,
  RegistrationCouponSave,
  RegistrationSelection,
  RegistrationSelectionSave,
  RegistrationType,
  RegistrationTypeSave,
} from '../../../schemas/registrations';

const base = '/content/registrations';
// B1Admin's registration screens are behind Content.Edit (RegistrationsPage.tsx, RegistrationDetailsPage.tsx).
const staff = requires('Content.Edit');

/** An amount the staff app sent (a number of two decimals) as numeric text, through decimal text only. */
const moneyIn = (value: number | null | undefined) => (value === undefined ? undefined : value === null ? null : centsText(toCents(value)));
const typeOut = (row: TypeRow) => ({ ...row, price: moneyOut(row.price) });
const selectionOut = (row: SelectionRow) => ({ ...row, price: moneyOut(row.price) });
const couponOut = (row: CouponRow) => ({ ...row, value: moneyOut(row.value)! });
const remaining = (capacity: number | null, used: number | undefined) => (capacity === null ? null : Math.max(0, capacity - (used ?? 0)));

/** An event's attendee types, extras and discount codes: saved by staff, the active ones read by the wizard. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Public with `?churchId=` (B1App's wizard runs signed out; B1Admin's editors load the same route): the
  // active ones, with the places left.
  app.get(`${base}/types/event/:eventId`, { config: { access: 'public' }, schema: { params: EventParams, querystring: ChurchQuery, response: { 200: z.array(RegistrationType) } } }, async (req) => {
    const { churchId } = req.query;
    if (!(await findEvent(app.db, churchId, req.params.eventId))) throw notFound('Event');
    const used = await typeUsage(app.db, churchId, req.params.eventId);
    return (await activeTypes(app.db, churchId, req.params.eventId)).map((t) => ({ ...typeOut(t), remainingCapacity: remaining(t.capacity, used.get(t.id)) }));
  });
  app.get(`${base}/selections/event/:eventId`, { config: { access: 'public' }, schema: { params: EventParams, querystring: ChurchQuery, response: { 200: z.array(RegistrationSelection) } } }, async (req) => {
    const { churchId } = req.query;
    if (!(await findEvent(app.db, churchId, req.params.eventId))) throw notFound('Event');
    const used = await selectionUsage(app.db, churchId, req.params.eventId);
    return (await activeSelections(app.db, churchId, req.params.eventId)).map((s) => ({ ...selectionOut(s), remainingCapacity: remaining(s.capacity, used.get(s.id)) }));
  });
  // Codes are the church's to see: staff only, each with its uses.
  app.get(`${base}/coupons/event/:eventId`, { config: { access: staff }, schema: { params: EventParams, response: { 200: z.array(RegistrationCoupon) } } }, async (req) => {
    const { churchId } = req.auth;
    if (!(await findEvent(app.db, churchId, req.params.eventId))) throw notFound('Event');
    const coupons = await couponsOfEvent(app.db, churchId, req.params.eventId);
    const uses = await couponUses(app.db, churchId, coupons.map((c) => c.id));
    return coupons.map((c) => ({ ...couponOut(c), uses: uses.get(c.id) ?? 0 }));
  });

  // Batch saves (B1Admin's useEditableRowList posts the whole list) and deletes, reported to the audit log.
  crud(app, {
    path: `${base}/types`,
    name: 'Registration type',
    table: registrationTypes,
    item: RegistrationType,
    save: RegistrationTypeSave,
    view: staff,
    edit: staff,
    only: ['save', 'delete'],
    // the event, and the form its registrants fill in (membership's)
    references: { eventId: events, formId: REMOTE.forms },
    requiredOnCreate: ['eventId', 'name'],
    toRow: (input) => ({ ...input, price: moneyIn(input.price) }),
    toItem: typeOut,
    changes: { entityType: 'registrationType' },
  });
  crud(app, {
    path: `${base}/selections`,
    name: 'Registration selection',
    table: registrationSelections,
    item: RegistrationSelection,
    save: RegistrationSelectionSave,
    view: staff,
    edit: staff,
    only: ['save', 'delete'],
    references: { eventId: events },
    requiredOnCreate: ['eventId', 'name'],
    toRow: (input) => ({ ...input, price: moneyIn(input.price) }),
    toItem: selectionOut,
    changes: { entityType: 'registrationSelection' },
  });
  crud(app, {
    path: `${base}/coupons`,
    name: 'Coupon',
    table: registrationCoupons,
    item: RegistrationCoupon,
    save: RegistrationCouponSave,
    view: staff,
    edit: staff,
    only: ['save', 'delete'],
    references: { eventId: events },
    requiredOnCreate: ['eventId', 'code'],
    toRow: (input) => ({ ...input, value: moneyIn(input.value) ?? undefined }),
    toItem: couponOut,
    changes: { entityType: 'registrationCoupon' },
  });
}
