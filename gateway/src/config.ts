import { z } from 'zod';
import { DEFAULT_PORTS, serviceUrlFields } from '@church/common';

const flag = (fallback: 'true' | 'false') => z.enum(['true', 'false']).default(fallback).transform((v) => v === 'true');

/** The gateway's environment. It holds no secrets: every request's auth is checked by the service that owns it. */
export const gatewayConfig = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.gateway),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** where `/metrics` (event-loop lag, request durations) is served, apart from the public port; 0 turns it off */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9080),
  /**
   * comma-separated origins whose browsers may call the API with credentials (cookies, auth headers they hold);
   * `*` lets any origin call it without credentials (bearer tokens set by the app itself still work)
   */
  CORS_ORIGINS: z.string().default('*'),
  BODY_LIMIT: z.coerce.number().int().positive().default(10 * 1024 * 1024),
  /** a request body must arrive within this many milliseconds of its headers (408 and closed after) */
  BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** the headers must arrive within this many milliseconds of the connection's request start */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** requests per window per client address on the public identity and token routes */
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(30),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** requests per window per email (from any address) on the identity routes whose body names one */
  RATE_LIMIT_EMAIL_MAX: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_EMAIL_WINDOW_MS: z.coerce.number().int().positive().default(15 * 60_000),
  /** a benchmark lifts the limits (per address and per email) with RATE_LIMIT_ENABLED=false */
  RATE_LIMIT_ENABLED: flag('true'),
  /** trust X-Forwarded-For from a load balancer in front (else a client could pick its own rate-limit key) */
  TRUST_PROXY: flag('false'),
  /** serve $FILES_DIR at /files (the embedded default's local file store) */
  FILES_DIR: z.string().optional(),
  ...serviceUrlFields.shape,
});
export type GatewayConfig = z.output<typeof gatewayConfig>;
