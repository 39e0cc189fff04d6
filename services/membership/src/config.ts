import { z } from 'zod';
import { baseConfig } from '@church/common';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** Membership's own settings (all optional: each has a default or a fallback where it is read). */
export const membershipSettings = z.object({
  /** an OpenAI-compatible API base (`https://api.openai.com/v1`); with the key, `query/members` may ask it first */
  OPENAI_API_URL: optional,
  OPENAI_API_KEY: optional,
  OPENAI_MODEL: z.string().default('gpt-4o-mini'),
  /** the app page where people enter OAuth device codes (RFC 8628 verification_uri) */
  DEVICE_VERIFICATION_URI: optional,
  /** the default app address: links in welcome, reset and email-confirmation messages fall back to it */
  APP_URL: optional.pipe(z.url().optional()),
  /** more app origins links may point at (comma-separated, `https://admin.example.org,https://app.example.org`) */
  ALLOWED_APP_ORIGINS: optional,
  /** where `membership.proxyConfig` POSTs the full custom-domain list after a domain change; unset → logged and skipped */
  PROXY_CONFIG_URL: optional.pipe(z.url().optional()),
  /**
   * The public address of membership through the gateway (`https://api.example.org/membership`): OAuth relay
   * sessions send providers back to `<it>/oauth/relay/callback`. Default: the gateway on this machine.
   */
  MEMBERSHIP_PUBLIC_URL: z.string().default('http://localhost:8080/membership'),
  /**
   * `true` lets webhook deliveries reach private and loopback addresses (development, tests against a receiver on
   * loopback). Off by default: a church's webhook URL must be a public address, like every caller-given fetch.
   */
  OUTBOUND_ALLOW_PRIVATE: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .default(false)
    .transform((v) => v === true || v === 'true'),
  /** how long a token minted from an API key lives (seconds); revoking the key refuses it at once anyway */
  API_KEY_TOKEN_SECONDS: z.coerce.number().int().min(60).max(24 * 3600).default(3600),
  /** the longest wait between two webhook delivery attempts (ms); attempts back off exponentially up to it */
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).default(3_600_000),
});

/** The membership deployable's environment: the shared base (see packages/common/src/config.ts) plus its own. */
export const configSchema = baseConfig.extend(membershipSettings.shape);
export type Config = z.output<typeof configSchema>;
