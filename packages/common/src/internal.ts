import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ModuleName } from './config';
import { Agent, request, type Dispatcher } from 'undici';
import { HttpError, errorItems } from './errors';

/** Signed requests older or newer than this are refused, so a captured request cannot be replayed later. */
export const INTERNAL_MAX_SKEW_MS = 5 * 60 * 1000;
export const SIGNATURE_HEADER = 'x-internal-signature';
export const TIMESTAMP_HEADER = 'x-internal-timestamp';
/** A random value per request, signed with it: two identical calls in the same millisecond still differ. */
export const NONCE_HEADER = 'x-internal-nonce';

/** HMAC-SHA256 over method, path (with query), timestamp, body and (when sent) the nonce. */
export function signInternal(secret: string, method: string, pathWithQuery: string, timestamp: string, body: string, nonce?: string): string {
  const mac = createHmac('sha256', secret).update(`${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${body}`);
  if (nonce) mac.update(`\n${nonce}`);
  return mac.digest('hex');
}

/**
 * Remembers the signatures accepted within the skew window, so a captured signed request is accepted once:
 * a replay inside the window is refused as surely as a stale one after it. Per process; a replica that has
 * not seen the request would accept it once more, which the short window and the nonce keep to one copy.
 */
export function createReplayGuard(windowMs = 2 * INTERNAL_MAX_SKEW_MS, max = 200_000) {
  const seen = new Map<string, number>();
  return {
    /** true the first time a signature is presented, false on every repeat */
    first(signature: string, now = Date.now()): boolean {
      if (seen.has(signature)) return false;
      if (seen.size >= max) {
        for (const [key, at] of seen) {
          if (now - at < windowMs && seen.size < max) break;
          seen.delete(key);
        }
      }
      seen.set(signature, now);
      return true;
    },
  };
}

/** True only for a fresh, untampered signature. */
export function verifyInternal(
  secret: string,
  req: { method: string; url: string; headers: Record<string, string | string[] | undefined>; rawBody?: string },
  now = Date.now(),
): boolean {
  const signature = req.headers[SIGNATURE_HEADER];
  const timestamp = req.headers[TIMESTAMP_HEADER];
  if (typeof signature !== 'string' || typeof timestamp !== 'string' || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now - Number(timestamp)) > INTERNAL_MAX_SKEW_MS) return false;
  const nonce = req.headers[NONCE_HEADER];
  const expected = Buffer.from(signInternal(secret, req.method, req.url, timestamp, req.rawBody ?? '', typeof nonce === 'string' ? nonce : undefined), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface InternalCallOptions {
  requestId?: string;
  /**
   * keep the answer and revalidate it next time (`If-None-Match` with its ETag; 304 reuses the kept copy,
   * already parsed: callers must not change it). For answers the callee serves with an ETag (snapshots).
   */
  revalidate?: boolean;
}

export interface InternalClient {
  /** Calls another module; throws an HttpError carrying the callee's status on a non-2xx answer. */
  request<T = unknown>(module: ModuleName, method: string, path: string, body?: unknown, opts?: InternalCallOptions): Promise<T>;
  get<T = unknown>(module: ModuleName, path: string, opts?: InternalCallOptions): Promise<T>;
  post<T = unknown>(module: ModuleName, path: string, body: unknown, opts?: InternalCallOptions): Promise<T>;
  /** closes the pooled connections (test fakes need not) */
  close?(): Promise<void>;
}

/**
 * The typed client for service-to-service calls. Base addresses are resolved per call, so the embedded
 * fleet can fill them in after its services have picked ephemeral ports.
 */
export function createInternalClient(secret: string, baseUrls: () => Record<ModuleName, string>, timeoutMs = 10_000, keptAnswers = 1000): InternalClient {
  // One keep-alive pool per client; undici's request() skips the WHATWG layers of fetch on this hot path.
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  // Revalidated answers by call (module, method, path, body), least recently used first.
  const kept = new Map<string, { etag: string; data: unknown }>();
  const call = async <T>(module: ModuleName, method: string, path: string, body?: unknown, opts?: InternalCallOptions) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const key = opts?.revalidate ? `${module} ${method} ${path}\n${payload}` : undefined;
    const copy = key ? kept.get(key) : undefined;
    const timestamp = String(Date.now());
    const nonce = randomBytes(12).toString('base64url');
    const headers: Record<string, string> = {
      [TIMESTAMP_HEADER]: timestamp,
      [NONCE_HEADER]: nonce,
      [SIGNATURE_HEADER]: signInternal(secret, method, path, timestamp, payload, nonce),
    };
    if (payload) headers['content-type'] = 'application/json';
    if (opts?.requestId) headers['x-request-id'] = opts.requestId;
    if (copy) headers['if-none-match'] = copy.etag;
    const res = await request(baseUrls()[module] + path, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body: payload || undefined,
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode === 304 && copy) {
      kept.delete(key!);
      kept.set(key!, copy);
      return copy.data as T;
    }
    const data = text ? JSON.parse(text) : undefined;
    if (res.statusCode >= 400) {
      // A callee that is briefly away (503) is passed on as such, with its Retry-After, so callers retry; any other
      // failure of the callee is this module's 502.
      const status = res.statusCode === 503 ? 503 : res.statusCode >= 500 ? 502 : res.statusCode;
      const retryAfter = status === 503 ? { 'retry-after': String(res.headers['retry-after'] ?? '1') } : undefined;
      throw new HttpError(status, errorItems(data?.errors) ?? [{ msg: `${module} answered ${res.statusCode}` }], retryAfter);
    }
    const etag = res.headers.etag;
    if (key) {
      kept.delete(key);
      if (typeof etag === 'string' && res.statusCode === 200) {
        kept.set(key, { etag, data });
        if (kept.size > keptAnswers) kept.delete(kept.keys().next().value!);
      }
    }
    return data as T;
  };
  return {
    request: call,
    get: (module, path, opts) => call(module, 'GET', path, undefined, opts),
    post: (module, path, body, opts) => call(module, 'POST', path, body, opts),
    close: () => agent.destroy(),
  };
}
