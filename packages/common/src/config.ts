import { z } from 'zod';

/** The seven modules, each its own deployable with its own database. */
export const MODULES = ['membership', 'attendance', 'giving', 'messaging', 'content', 'doing', 'reporting'] as const;
export type ModuleName = (typeof MODULES)[number];

/** Default listening ports; the embedded fleet uses ephemeral ports instead. */
export const DEFAULT_PORTS: Record<ModuleName | 'gateway', number> = {
  gateway: 8080,
  membership: 8101,
  attendance: 8102,
  giving: 8103,
  messaging: 8104,
  content: 8105,
  doing: 8106,
  reporting: 8107,
};

/** `<MODULE>_URL`: where each module answers (services call each other; the gateway forwards to them). */
export const serviceUrlFields = z.object({
  MEMBERSHIP_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.membership}`),
  ATTENDANCE_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.attendance}`),
  GIVING_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.giving}`),
  MESSAGING_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.messaging}`),
  CONTENT_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.content}`),
  DOING_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.doing}`),
  REPORTING_URL: z.string().default(`http://127.0.0.1:${DEFAULT_PORTS.reporting}`),
});

/** Base addresses of the modules from the `<MODULE>_URL` fields. */
export function serviceUrls(config: z.output<typeof serviceUrlFields>): Record<ModuleName, string> {
  return Object.fromEntries(MODULES.map((m) => [m, config[`${m.toUpperCase()}_URL` as keyof typeof config]])) as Record<ModuleName, string>;
}

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** Environment every service reads; a module extends it with `baseConfig.extend({...})`. */
export const baseConfig = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('.data'),
  /** PostgreSQL for this module; PGlite under DATA_DIR when unset */
  DATABASE_URL: optional,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** BullMQ on Redis; in-process jobs when unset */
  REDIS_URL: optional,
  /** apply migrations at start; by default only on the embedded PGlite (the real fleet runs a migrate Job) */
  MIGRATE_ON_START: z.enum(['true', 'false', 'auto']).default('auto'),
  /** the longest wait between two attempts of a job run in-process (the embedded default) */
  JOB_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).default(300_000),
  /** run this deployable's queue worker inside the API process (off when a worker Deployment runs it) */
  RUN_WORKER: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  INTERNAL_SECRET: z.string().min(32, 'INTERNAL_SECRET must be at least 32 characters'),
  ENCRYPTION_KEY: z.string().min(32, 'ENCRYPTION_KEY must be at least 32 characters'),
  BODY_LIMIT: z.coerce.number().int().positive().default(10 * 1024 * 1024),
  /** memory for whole-church list snapshots per process (0 turns them off) */
  SNAPSHOT_CACHE_MB: z.coerce.number().min(0).default(64),
  /** how often (ms) a service asks membership for new token revocations; 0 turns it off (Redis pushes them too) */
  REVOCATION_POLL_MS: z.coerce.number().int().min(0).default(2_000),
  /** the revision of the running code (the image sets it); part of every snapshot ETag */
  BUILD_ID: z.string().default(''),
  SENDGRID_API_KEY: optional,
  /** overridable so tests drive the real SDK against a fake on loopback */
  SENDGRID_BASE_URL: optional,
  MAIL_FROM: z.string().default('no-reply@church.local'),
  S3_BUCKET: optional,
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: optional,
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,
  /** public base address of stored files (a CDN, the bucket, or the gateway's /files in development) */
  FILES_BASE_URL: optional,
  ...serviceUrlFields.shape,
});
export type BaseConfig = z.output<typeof baseConfig>;

/** Parses the environment once, at start; a bad value stops the process with every problem listed. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`invalid configuration:\n${lines}`);
  }
  return result.data;
}

/**
 * A module's config from one that may lack the module's own settings, or hold them as text (the test harness
 * parses the shared base only): the settings parsed over it, so their defaults and coercions apply. A config
 * loaded from the module's whole schema comes back with the same values.
 */
export function withSettings<S extends z.ZodObject>(settings: S, config: BaseConfig & Record<string, unknown>): BaseConfig & z.output<S> {
  return { ...config, ...settings.parse(config) };
}
