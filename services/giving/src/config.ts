import { z } from 'zod';
import { baseConfig } from '@church/common';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** The giving module's own settings: the payment providers' addresses, timeouts and the captcha verifier. */
export const givingFields = z.object({
  /**
   * The public base address the payment providers reach this service at (`https://api.example.org`): saving a
   * gateway provisions its webhook at `<base>/giving/donate/webhook/<provider>?churchId=`. Unset: no provisioning.
   */
  GIVING_PUBLIC_URL: optional,
  /** Stripe API address (tests point the real SDK at a loopback fake); default api.stripe.com */
  STRIPE_API_BASE: optional,
  /** PayPal REST address; default the sandbox or live host by PAYPAL_ENVIRONMENT */
  PAYPAL_API_BASE: optional,
  PAYPAL_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  /** milliseconds before a provider call counts as failed (502) */
  PAYMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  /** retries of a failed Stripe call (the SDK sends idempotency keys, so a retry never doubles a charge) */
  STRIPE_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** captcha verification for the anonymous flows: `recaptcha` or `turnstile`, its secret and overridable URL */
  CAPTCHA_PROVIDER: z.enum(['recaptcha', 'turnstile']).optional(),
  CAPTCHA_SECRET: optional,
  CAPTCHA_VERIFY_URL: optional,
  /** how long a manually entered donation's receipt waits for its fund allocations (ms) */
  RECEIPT_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** where `GET /giving/donations/testEmail` sends its message */
  GIVING_TEST_EMAIL: optional,
});

/** The giving deployable's environment: the shared base plus its own settings. */
export const configSchema = baseConfig.extend(givingFields.shape);
export type Config = z.output<typeof configSchema>;
