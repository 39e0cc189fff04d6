import { z } from 'zod';

const Uuid = z.uuid();

/** An amount of money as decimal text with at most two places (`"25.00"`): never a float. */
const MoneyText = z.string().regex(/^\d{1,10}(\.\d{1,2})?$/, 'must be an amount such as 25.00');

/** Giving's internal routes other modules call (signed; `callInternal`). */
export const givingInternal = {
  /**
   * A registration's payment, charged by giving through the church's gateway with giving's money rules (content's
   * `POST /registrations/:id/pay` and a paid registration). Giving keeps it as a payment record of the registration
   * (never a gift to a fund), reported to the audit log, and charges once per `idempotencyKey`: asked again with
   * the same key and body it answers the first payment; with the same key and another body, 409. A refused card, an
   * unknown gateway or a church without one is giving's 400 with its sentence (call with `passClientErrors`).
   * `requires_action` carries the gateway's `clientSecret` for the browser to finish (3-D Secure).
   */
  registrationCharge: {
    module: 'giving' as const,
    path: '/giving/internal/registrations/charge',
    body: z.object({
      churchId: Uuid,
      registrationId: Uuid,
      personId: Uuid.nullable(),
      email: z.string().max(255).nullable(),
      name: z.string().max(255).nullable(),
      amount: MoneyText,
      currency: z.string().length(3).optional(),
      /** the gateway by provider name (`stripe`, `paypal`) or id; the church's first gateway when neither is given */
      provider: z.string().max(50).optional(),
      gatewayId: Uuid.optional(),
      type: z.enum(['card', 'bank']).default('card'),
      /** a saved method (`pm_…`) with its customer, or a one-time token from the browser */
      paymentMethodId: z.string().max(255).optional(),
      customerId: z.string().max(255).optional(),
      token: z.string().max(255).optional(),
      idempotencyKey: z.string().min(1).max(255),
    }),
    answer: z.object({
      status: z.enum(['succeeded', 'processing', 'requires_action']),
      /** giving's payment record */
      paymentId: z.string(),
      provider: z.string(),
      transactionId: z.string().nullable(),
      amount: MoneyText,
      currency: z.string(),
      clientSecret: z.string().nullable(),
    }),
  },
  /** who gave (to a fund, in a date range): saved lists' giving conditions */
  donors: {
    module: 'giving' as const,
    path: '/giving/internal/people/donors',
    body: z.object({ churchId: Uuid, fundId: z.string().max(100).optional(), startDate: z.string().optional(), endDate: z.string().optional() }),
    answer: z.object({ personIds: z.array(Uuid).max(100_000) }),
  },
} as const;

