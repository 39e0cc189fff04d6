import { z } from 'zod';
import { baseConfig } from '@church/common';

const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/**
 * Reporting's own settings: one `<MODULE>_DATABASE_URL` per module whose database reporting reads directly
 * (ideally as a read-only role). A module without one is read through its owner's signed
 * `POST /<module>/internal/query`, as in the embedded default.
 */
export const reportingFields = z.object({
  MEMBERSHIP_DATABASE_URL: optionalUrl,
  ATTENDANCE_DATABASE_URL: optionalUrl,
  GIVING_DATABASE_URL: optionalUrl,
  MESSAGING_DATABASE_URL: optionalUrl,
  CONTENT_DATABASE_URL: optionalUrl,
  DOING_DATABASE_URL: optionalUrl,
  /**
   * the statement timeout of a report query unless its definition says otherwise; below the internal client's
   * 10 s HTTP limit, so through an owner the database's cancellation answers before the call is cut
   */
  REPORT_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(8_000),
  /** connections per directly read module database */
  REPORT_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(4),
});

/** The reporting deployable's environment: the shared base and reporting's own settings. */
export const configSchema = baseConfig.extend(reportingFields.shape);
export type Config = typeof configSchema._output;

/** The module databases reporting reads directly, by module; the others are read through their owners. */
export function sourceDatabaseUrls(config: Config) {
  return {
    membership: config.MEMBERSHIP_DATABASE_URL,
    attendance: config.ATTENDANCE_DATABASE_URL,
    giving: config.GIVING_DATABASE_URL,
    messaging: config.MESSAGING_DATABASE_URL,
    content: config.CONTENT_DATABASE_URL,
    doing: config.DOING_DATABASE_URL,
  };
}
