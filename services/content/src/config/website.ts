import { z } from 'zod';

// Optional in the schema (the test harness passes a loose config); the defaults live in `websiteSettings`.
/** Settings of the website half. */
export const websiteConfig = z.object({
  /** the time zone of a church that has not saved a `timeZone` setting (IANA name); default UTC */
  CONTENT_DEFAULT_TIME_ZONE: z.string().optional(),
  /** page history entries older than this many days are removed by `content.cleanPageHistory`; default 30 */
  PAGE_HISTORY_DAYS: z.coerce.number().int().min(1).max(3650).optional(),
  /** `true` lets the calendar import read feeds at private and loopback addresses (development, tests); off by default */
  OUTBOUND_ALLOW_PRIVATE: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  /** minutes an unpaid sign-up of a priced event holds its place while its payment is made; default 30 */
  REGISTRATION_HOLD_MINUTES: z.coerce.number().int().min(1).max(10_080).optional(),
});

/** The website half's settings with their defaults applied. */
export function websiteSettings(config: Partial<z.output<typeof websiteConfig>>) {
  return {
    defaultTimeZone: config.CONTENT_DEFAULT_TIME_ZONE || 'UTC',
    historyDays: config.PAGE_HISTORY_DAYS ?? 30,
    holdMinutes: config.REGISTRATION_HOLD_MINUTES ?? 30,
  };
}
