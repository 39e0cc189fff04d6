import { z } from 'zod';
import { baseConfig } from '@church/common';

/** The doing deployable's environment: the shared base plus its outside content systems. */
export const doingSettings = z.object({
  /** Lessons.church API (the shipped content provider and the plan feed's lesson source); tests point it at a fake */
  LESSONS_API_BASE: z.string().url().default('https://api.lessons.church'),
  /** where the provider's OAuth token endpoint lives (`/oauth/token` under it); defaults to LESSONS_API_BASE */
  LESSONS_OAUTH_BASE: z.string().url().optional(),
  LESSONS_CLIENT_ID: z.string().optional(),
  /** sent as `client_secret` with the authorization-code exchange (B1Admin's PKCE sign-in) when set */
  LESSONS_CLIENT_SECRET: z.string().optional(),
  /** the plan feed's external lesson-content venue feed (`/venues/public/feed/:contentId` under it) */
  LESSON_FEED_BASE_URL: z.string().url().default('https://api.lessons.church'),
  /** a content provider call that takes longer fails with 502 */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * `true` lets a workflow step's `webhook` action reach private and loopback addresses (development, tests against a
   * receiver on loopback). Off by default: the URL a church typed must be a public address (`fetchOutbound`).
   */
  OUTBOUND_ALLOW_PRIVATE: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .default(false)
    .transform((v) => v === true || v === 'true'),
});
export const configSchema = baseConfig.extend(doingSettings.shape);
export type Config = z.output<typeof configSchema>;
