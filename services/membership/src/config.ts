import { z } from 'zod';
import { baseConfig, type BaseConfig } from '@church/common';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** The membership deployable's environment: the shared base (see packages/common/src/config.ts) plus its own. */
export const configSchema = baseConfig.extend({
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
});
/**
 * The parsed environment. Membership's own settings are all optional (each has a fallback where it is
 * read), so tests and the embedded fleet may build the app from the shared base config alone.
 */
export type Config = BaseConfig & Partial<Omit<z.output<typeof configSchema>, keyof BaseConfig>>;
