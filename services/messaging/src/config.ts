import { z } from 'zod';
import { baseConfig } from '@church/common';
import { isTimeZone } from '@church/common';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** The length of a base64url text once decoded (0 when it is not base64url). */
function base64urlBytes(v: string): number {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(v) ? Buffer.from(v, 'base64url').length : 0;
}

/**
 * Messaging's own settings. Parsing is idempotent (an already parsed value parses to itself), so `buildApp`
 * can apply it to whatever config it is handed (tests build theirs from the shared base only).
 */
export const messagingConfig = z.object({
  /** Redis for the real-time fan-out and the shared connection registry; defaults to REDIS_URL (in-process without) */
  REALTIME_REDIS_URL: optional,
  /** key prefix of the registry and the bus's stream on Redis (tests isolate runs) */
  REALTIME_PREFIX: z.string().default('msg:rt:'),
  /**
   * events the bus's stream keeps (about: trimmed with `MAXLEN ~`): a replica whose connection to Redis broke reads
   * what it missed from there when it is back, if it was not trimmed away meanwhile
   */
  REALTIME_STREAM_MAXLEN: z.coerce.number().int().min(100).max(10_000_000).default(10_000),
  /** seconds between a replica's heartbeats; a replica silent for 3 beats is reaped with its connections */
  REALTIME_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
  /**
   * milliseconds pushes wait to go out together, each socket's in one write (0: the next turn of the event loop).
   * A busy chat costs a write per socket per window, and the write (a syscall, and on loopback the reader's wakeup)
   * is most of a delivery's cost: 50 rather than 20 took a replica's CPU per message to 500 sockets from 1.20 to
   * 0.83 ms, and messaging's per message of the realtime bench from 2.29 to 1.43 ms, for 15 ms more on average.
   */
  REALTIME_FLUSH_MS: z.coerce.number().int().min(0).max(1000).default(50),
  /** Expo push: access token (optional) and base URL (tests aim it at a loopback fake) */
  EXPO_ACCESS_TOKEN: optional,
  EXPO_BASE_URL: optional,
  /** Firebase Cloud Messaging (HTTP v1): a service account JSON (token from firebase-admin's credential) ... */
  FCM_SERVICE_ACCOUNT_JSON: optional,
  FCM_PROJECT_ID: optional,
  /** ... or an access token minted elsewhere; and the API's base URL (tests aim it at a loopback fake) */
  FCM_ACCESS_TOKEN: optional,
  FCM_BASE_URL: z.string().default('https://fcm.googleapis.com'),
  /** turn on real push delivery (Expo and FCM); otherwise pushes go to $DATA_DIR/outbox/push */
  PUSH_ENABLED: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).default(false),
  /**
   * Web Push (VAPID, RFC 8292) for B1App's installed web app: the key pair (base64url, as `web-push
   * generate-vapid-keys` prints it) and the contact the push services are given (`mailto:` or `https:`). Without all
   * three, `GET /webpush/publicKey` and `POST /webpush/subscribe` answer 400 naming what is missing.
   */
  WEBPUSH_PUBLIC_KEY: optional.refine((v) => v === undefined || base64urlBytes(v) === 65, 'must be an uncompressed P-256 public key, base64url (65 bytes)'),
  WEBPUSH_PRIVATE_KEY: optional.refine((v) => v === undefined || base64urlBytes(v) === 32, 'must be a P-256 private key, base64url (32 bytes)'),
  WEBPUSH_SUBJECT: optional.refine((v) => v === undefined || /^(mailto:\S+@\S+|https:\/\/\S+)$/.test(v), 'must be a mailto: or https: address'),
  /**
   * `true` lets web pushes reach private and loopback addresses, over plain http too (development, tests against a
   * push service on loopback). Off by default: a subscription's endpoint must be a public https address.
   */
  OUTBOUND_ALLOW_PRIVATE: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .default(false)
    .transform((v) => v === true || v === 'true'),
  /** Twilio's API base URL (tests aim the SDK at a loopback fake) */
  TWILIO_BASE_URL: optional,
  /** texts per second per provider account (Twilio long codes take about 1 per second) */
  SMS_RATE_PER_SECOND: z.coerce.number().min(0.1).max(1000).default(10),
  /** the public address Twilio calls (webhook signatures are computed over it) */
  PUBLIC_BASE_URL: z.string().default('http://localhost:8080'),
  /** the daily digest's cron (UTC) */
  DIGEST_CRON: z.string().default('0 14 * * *'),
  /** the link people follow from notification emails */
  APP_URL: z.string().default('https://app.church.local'),
  /** `POST /notifications/ping` and `POST /connections/tmpSendAlert` calls per church and minute (each its own count) */
  PING_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100000).default(60),
  /** `POST /notifications/create` calls per caller and minute */
  NOTIFY_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100000).default(30),
  /** how often the reminder scheduler sends what is due (cron, UTC) */
  REMINDER_SCAN_CRON: z.string().default('* * * * *'),
  /** how often every reminder is planned again from its event, plan or task (cron, UTC) */
  REMINDER_REFRESH_CRON: z.string().default('17 * * * *'),
  /**
   * the time zone of churches' reminders until membership's church contract carries the church's own (a reminder may
   * also name its zone)
   */
  REMINDER_TIME_ZONE: z
    .string()
    .default('UTC')
    .refine((tz) => isTimeZone(tz), 'must be an IANA time zone'),
});
/** The messaging deployable's environment: the shared base plus its real-time fan-out and providers. */
export const configSchema = baseConfig.extend(messagingConfig.shape);
export type Config = typeof configSchema._output;
