import type { FastifyInstance } from 'fastify';
import { IdParams, notFound, optionalActorOf, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../../deps';
import { payRegistration, registerAndPay } from '../../../domain/registrations/payments';
import { checkCoupon } from '../../../domain/registrations/pricing';
import { couponByCode, couponUses, findEvent } from '../../../repos/registrations';
import { CouponValidateBody, CouponValidation, PayBody, PaymentUnavailable, RegisterBody, Registration } from '../../../schemas/registrations';

const base = '/content/registrations';

/** Signing up and paying: the public wizard's register and coupon check, and the balance's payment. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  // Public: B1App's wizard posts it without a token (a guest, or the signed-in person it names); B1Admin's
  // staff send theirs. A paid registration with payment details is charged at once, after the sign-up has
  // committed (no call to giving inside a transaction); one the gateway refuses is removed again (its place
  // freed) and giving's 4xx answered; giving unreachable is a 503 with the registration to pay again.
  app.post(`${base}/register`, { config: { access: 'public' }, schema: { body: RegisterBody, response: { 200: Registration, 503: PaymentUnavailable } } }, async (req, reply) => {
    const out = await registerAndPay(deps, optionalActorOf(req), req.body, req.ip);
    return out.unavailable ? reply.code(503).headers(out.unavailable.headers).send(out.unavailable.body) : out.answer;
  });

  // The registrant or staff pay the balance (after a wait list promotion, a staff sign-up without payment, or a
  // payment giving could not take); signed out, with the `payKey` the held sign-up was answered with. A held
  // place is renewed first (409 when it ran out and is taken), then charged after that has committed.
  app.post(`${base}/:id/pay`, { config: { access: 'public' }, schema: { params: IdParams, body: PayBody, response: { 200: Registration, 503: PaymentUnavailable } } }, async (req, reply) => {
    const out = await payRegistration(deps, optionalActorOf(req), req.params.id, req.body, req.ip);
    return out.unavailable ? reply.code(503).headers(out.unavailable.headers).send(out.unavailable.body) : out.answer;
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
