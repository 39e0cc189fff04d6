import type { FastifyInstance } from 'fastify';
import { badRequest, callInternal, HttpError, IdParams, membershipInternal, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { chargeBalance, hasPaymentDetails, paymentUnavailable, payKeyOf, registrationByPayKey } from '../../../domain/registrations/payments';
import { checkCoupon } from '../../../domain/registrations/pricing';
import { register } from '../../../domain/registrations/register';
import { ownOrStaff, remove, renewHold } from '../../../domain/registrations/lifecycle';
import { registrationDetail } from '../../../domain/registrations/views';
import { couponByCode, couponUses, findEvent, type RegistrationRow } from '../../../repos/registrations';
import { CouponValidateBody, CouponValidation, PayBody, PaymentUnavailable, RegisterBody, Registration } from '../../../schemas/registrations';

const base = '/content/registrations';

/** Signing up and paying: the public wizard's register and coupon check, and the balance's payment. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Public: B1App's wizard posts it without a token (a guest, or the signed-in person it names); B1Admin's
  // staff send theirs. A paid registration with payment details is charged at once, after the sign-up has
  // committed (no call to giving inside a transaction); one the gateway refuses is removed again (its place
  // freed) and giving's 4xx answered; giving unreachable is a 503 with the registration to pay again.
  app.post(`${base}/register`, { config: { access: 'public' }, schema: { body: RegisterBody, response: { 200: Registration, 503: PaymentUnavailable } } }, async (req, reply) => {
    const saved = await register(app, req, req.body);
    const held = (row: RegistrationRow) => (row.status === 'pending' && row.holdUntil ? { payKey: payKeyOf(app, row) } : {});
    const out = { ...registrationDetail(saved.registration, { members: saved.members }), ...held(saved.registration) };
    if (saved.registration.status !== 'pending' || !hasPaymentDetails(req.body)) return out;
    try {
      const paid = await chargeBalance(app, req, saved.registration, req.body, saved.payer);
      return { ...registrationDetail(paid.registration, { members: saved.members }), ...held(paid.registration), ...(paid.action ? { payment: paid.action } : {}) };
    } catch (err) {
      const down = paymentUnavailable(app, err, saved.registration);
      if (down) return reply.code(503).headers(down.headers).send(down.body);
      // Removed like a staff delete: under the event's lock, its place going to the wait list if anyone waits.
      if (err instanceof HttpError && err.statusCode < 500) await remove(app, req, saved.registration);
      throw err;
    }
  });

  // The registrant or staff pay the balance (after a wait list promotion, a staff sign-up without payment, or a
  // payment giving could not take); signed out, with the `payKey` the held sign-up was answered with. A held
  // place is renewed first (409 when it ran out and is taken), then charged after that has committed.
  app.post(`${base}/:id/pay`, { config: { access: 'public' }, schema: { params: IdParams, body: PayBody, response: { 200: Registration, 503: PaymentUnavailable } } }, async (req, reply) => {
    const keyed = req.body.payKey ? await registrationByPayKey(app, req.params.id, req.body.payKey) : undefined;
    if (!keyed && !req.auth) throw unauthorized(req.body.payKey ? 'The payKey is not this registration’s' : 'A token or the registration’s payKey is required');
    const found = keyed ?? (await ownOrStaff(app, req, req.params.id));
    if (found.status === 'waitlisted' || found.status === 'cancelled') throw badRequest('id', `A ${found.status} registration cannot be paid`, 'params');
    const row = await renewHold(app, found);
    let email: string | null = row.guestEmail;
    let name: string | null = row.guestFirstName ? `${row.guestFirstName} ${row.guestLastName ?? ''}`.trim() : null;
    if (row.personId) {
      const [person] = await callInternal(app.deps.internal, membershipInternal.contacts, { churchId: row.churchId, ids: [row.personId] });
      email = person?.email ?? null;
      name = person ? [person.firstName, person.lastName].filter(Boolean).join(' ') || person.displayName : null;
    }
    try {
      const paid = await chargeBalance(app, req, row, req.body, { personId: row.personId, email, name });
      return { ...registrationDetail(paid.registration), ...(paid.action ? { payment: paid.action } : {}) };
    } catch (err) {
      const down = paymentUnavailable(app, err, row);
      if (down) return reply.code(503).headers(down.headers).send(down.body);
      throw err;
    }
  });

  // Public (the wizard runs signed out): whether a code may be used now, with the reason the app translates.
  app.post(`${base}/coupons/validate`, { config: { access: 'public' }, schema: { body: CouponValidateBody, response: { 200: CouponValidation } } }, async (req) => {
    const { churchId, eventId, code } = req.body;
    if (!(await findEvent(app.db, churchId, eventId))) throw notFound('Event');
    const coupon = await couponByCode(app.db, churchId, eventId, code);
    const uses = coupon ? ((await couponUses(app.db, churchId, [coupon.id])).get(coupon.id) ?? 0) : 0;
    return checkCoupon(coupon, req.body.memberCount ?? 1, uses);
  });
}
