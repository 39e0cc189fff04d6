import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { GatewayConfig } from './config';

declare module 'fastify' {
  interface FastifyRequest {
    /** the path as the services' router matches it (`routePath`), set on every request before anything else */
    routePath: string;
  }
}

/** Public identity and token routes (NOTES.md), matched on `routePath`: limited per client address. */
const LIMITED =
  /^\/membership\/(users\/(login|register|forgot|setpasswordguid|verifycredentials|verifycode|checkemail|sendinviteemail)|people\/guest-register|apikeys\/token|oauth\/(token|device\/authorize|relay\/sessions\/[^/]+))$/;
/** The limited routes whose JSON body names an account, and the field that does: limited per address as well. */
const EMAIL_FIELD = new Map([
  ['/membership/users/login', 'email'],
  ['/membership/users/register', 'email'],
  ['/membership/users/verifycredentials', 'email'],
  ['/membership/users/forgot', 'userEmail'],
  ['/membership/users/verifycode', 'email'],
]);

/**
 * The path a request reaches at its service, however it is spelled: what find-my-way matches with the
 * services' router options (`caseSensitive: false`, `ignoreTrailingSlash: true`). The path of an absolute-form
 * target, up to `?` or `#`, decoded as `decodeURI` does (`%2F` and the other reserved escapes stay, `%25` is
 * decoded once), without one trailing slash, lower-cased. Undefined for a malformed escape, which the router
 * refuses as well.
 */
export function routePath(url: string): string | undefined {
  let path = url.charCodeAt(0) === 47 ? url : originForm(url);
  const end = path.search(/[?#]/);
  if (end !== -1) path = path.slice(0, end);
  if (path.includes('%')) {
    try {
      path = decodeURI(path.replace(/%25/g, '%2525'));
    } catch {
      return undefined;
    }
  }
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.toLowerCase();
}

/** `http://host/path?query` → `/path?query`, as find-my-way reads an absolute-form request target. */
function originForm(url: string): string {
  const scheme = /^https?:\/\//i.exec(url);
  if (!scheme) return url;
  const rest = url.slice(scheme[0].length);
  const at = rest.search(/[/?#]/);
  if (at === -1) return '/';
  return rest[at] === '/' ? rest.slice(at) : `/${rest.slice(at)}`;
}

const tooMany = (seconds: number) => Object.assign(new Error(`Too many requests, retry in ${seconds} s`), { statusCode: 429 });

/** The address an email-limited route's body names (trimmed, lower-cased, as the service reads it), if any. */
function emailIn(body: Buffer, field: string): string | undefined {
  let parsed: unknown;
  try {
    // The service's JSON parser (secure-json-parse) skips a byte order mark: so must this, or one would slip past.
    parsed = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  const value = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value.trim().toLowerCase() || undefined : undefined;
}

/**
 * The proxy's body parser: every body is read here before an upstream connection is taken for it, so a client
 * that sends slowly holds only its own socket, never one of the pool's connections to a service. Up to
 * BODY_LIMIT (413 beyond it, also for a chunked body with no length) and within BODY_TIMEOUT_MS of the headers
 * (408 after it); either way the connection is closed, since the rest of the body is never read. The bytes are
 * forwarded unchanged.
 */
export function gatewayBodyParser(config: GatewayConfig) {
  return (_req: FastifyRequest, payload: IncomingMessage, done: (err: Error | null, body?: Buffer) => void) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (statusCode: number, message: string) => {
      stop();
      done(Object.assign(new Error(message), { statusCode }));
    };
    const timer = setTimeout(() => fail(408, 'The request body did not arrive in time'), config.BODY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= config.BODY_LIMIT) return void chunks.push(chunk);
      fail(413, 'Body is too large');
    };
    const onEnd = (err?: Error) => {
      stop();
      if (err) done(Object.assign(err, { statusCode: 400 }));
      else done(null, Buffer.concat(chunks, size));
    };
    const stop = () => {
      clearTimeout(timer);
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
  };
}

/** The routes that try a password: only their failed attempts count against an account. */
/**
 * Routes that try a secret for an account, and the status the service gives a wrong one: only failed tries count
 * against the account (a password: 401; the emailed 6-digit code: 400).
 */
const PASSWORD_ROUTES = new Map([
  ['/membership/users/login', 401],
  ['/membership/users/verifycredentials', 401],
  ['/membership/users/verifycode', 400],
]);

/**
 * Failed password attempts by key within a window (in memory, per gateway replica). A key is an email, or an
 * email and a client address.
 */
class FailureCounter {
  private readonly failures = new Map<string, number[]>();
  constructor(private readonly windowMs: number) {}
  count(key: string, now = Date.now()): number {
    const list = this.failures.get(key);
    if (!list) return 0;
    while (list.length && list[0]! <= now - this.windowMs) list.shift();
    if (!list.length) this.failures.delete(key);
    return list.length;
  }
  add(key: string, now = Date.now()): void {
    const list = this.failures.get(key) ?? [];
    list.push(now);
    this.failures.set(key, list);
    if (this.failures.size > 100_000) this.failures.delete(this.failures.keys().next().value!);
  }
  retryAfter(key: string, now = Date.now()): number {
    const first = this.failures.get(key)?.[0] ?? now;
    return Math.max(1, Math.ceil((first + this.windowMs - now) / 1000));
  }
}

/** The wait before a password attempt from an address that has already failed `failures` times for the account. */
export function progressiveDelayMs(failures: number): number {
  return failures < 3 ? 0 : Math.min(250 * 2 ** (failures - 3), 4000);
}

/**
 * Rate limits on the public identity and token routes (NOTES.md), answering 429 with Retry-After, all keyed on
 * `routePath` so that no spelling of a route (case, trailing slash, escapes) has a counter of its own:
 *
 * - per client address and route, every request (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS), before the body is read;
 * - login, verifyCredentials and verifyCode: only FAILED attempts (a wrong password or code) count against an account. An
 *   address that has failed for an email waits progressively longer before each further try (250 ms after the
 *   third failure, doubling, at most 4 s) and is refused after RATE_LIMIT_EMAIL_MAX failures in
 *   RATE_LIMIT_EMAIL_WINDOW_MS. Once the account has that many failures from all addresses together, every
 *   address that has failed for it is refused too. An address with no failure for the account is never held
 *   back, so the real owner, from their own device, still signs in while someone guesses elsewhere;
 * - register and forgot (they send mail): every request counts per email, from any address, so an inbox cannot be flooded.
 */
export async function registerRateLimits(app: FastifyInstance, config: GatewayConfig): Promise<void> {
  if (!config.RATE_LIMIT_ENABLED) return;
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    allowList: (req) => req.method === 'OPTIONS' || !LIMITED.test(req.routePath),
    keyGenerator: (req) => `${req.ip}|${req.routePath}`,
    // Thrown, so the error handler shapes it like every other error body.
    errorResponseBuilder: (_req, ctx) => tooMany(Math.ceil(ctx.ttl / 1000)),
  });

  // Mail-sending routes: one counter per address, shared by register and forgot.
  const emails = new WeakMap<FastifyRequest, string>();
  const countEmail = app.createRateLimit({
    max: config.RATE_LIMIT_EMAIL_MAX,
    timeWindow: config.RATE_LIMIT_EMAIL_WINDOW_MS,
    allowList: () => false,
    keyGenerator: (req) => emails.get(req)!,
  });
  const failures = new FailureCounter(config.RATE_LIMIT_EMAIL_WINDOW_MS);
  const refuse = (reply: FastifyReply, seconds: number) => {
    reply.header('retry-after', seconds);
    return tooMany(seconds);
  };

  app.addHook('preHandler', async (req, reply) => {
    const field = EMAIL_FIELD.get(req.routePath);
    // A body that is not JSON or names no one goes on as it is: the service answers it with its own 400.
    const email = field && Buffer.isBuffer(req.body) ? emailIn(req.body, field) : undefined;
    if (!email) return;
    if (!PASSWORD_ROUTES.has(req.routePath)) {
      emails.set(req, email);
      const count = await countEmail(req);
      if (count.isAllowed || !count.isExceeded) return;
      throw refuse(reply, count.ttlInSeconds);
    }
    const mine = `${email}|${req.ip}`;
    const own = failures.count(mine);
    if (own >= config.RATE_LIMIT_EMAIL_MAX) throw refuse(reply, failures.retryAfter(mine));
    if (own > 0 && failures.count(email) >= config.RATE_LIMIT_EMAIL_MAX) throw refuse(reply, failures.retryAfter(email));
    const wait = progressiveDelayMs(own);
    if (wait) await new Promise((r) => setTimeout(r, wait));
    // The service's answer decides whether this attempt failed (the reply is streamed from the service).
    reply.raw.once('finish', () => {
      if (reply.raw.statusCode === PASSWORD_ROUTES.get(req.routePath)) {
        failures.add(mine);
        failures.add(email);
      }
    });
  });
}
