import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ModuleName } from './config';
import { Agent, request, type Dispatcher } from 'undici';
import { HttpError } from './errors';

/** Signed requests older or newer than this are refused, so a captured request cannot be replayed later. */
export const INTERNAL_MAX_SKEW_MS = 5 * 60 * 1000;
export const SIGNATURE_HEADER = 'x-internal-signature';
export const TIMESTAMP_HEADER = 'x-internal-timestamp';

/** HMAC-SHA256 over method, path (with query), timestamp and body. */
export function signInternal(secret: string, method: string, pathWithQuery: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${body}`).digest('hex');
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
  const expected = Buffer.from(signInternal(secret, req.method, req.url, timestamp, req.rawBody ?? ''), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface InternalClient {
  /** Calls another module; throws an HttpError carrying the callee's status on a non-2xx answer. */
  request<T = unknown>(module: ModuleName, method: string, path: string, body?: unknown, opts?: { requestId?: string }): Promise<T>;
  get<T = unknown>(module: ModuleName, path: string, opts?: { requestId?: string }): Promise<T>;
  post<T = unknown>(module: ModuleName, path: string, body: unknown, opts?: { requestId?: string }): Promise<T>;
  /** closes the pooled connections (test fakes need not) */
  close?(): Promise<void>;
}

/**
 * The typed client for service-to-service calls. Base addresses are resolved per call, so the embedded
 * fleet can fill them in after its services have picked ephemeral ports.
 */
export function createInternalClient(secret: string, baseUrls: () => Record<ModuleName, string>, timeoutMs = 10_000): InternalClient {
  // One keep-alive pool per client; undici's request() skips the WHATWG layers of fetch on this hot path.
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const call = async <T>(module: ModuleName, method: string, path: string, body?: unknown, opts?: { requestId?: string }) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const timestamp = String(Date.now());
    const headers: Record<string, string> = {
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signInternal(secret, method, path, timestamp, payload),
    };
    if (payload) headers['content-type'] = 'application/json';
    if (opts?.requestId) headers['x-request-id'] = opts.requestId;
    const res = await request(baseUrls()[module] + path, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body: payload || undefined,
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    const data = text ? JSON.parse(text) : undefined;
    if (res.statusCode >= 400) {
      throw new HttpError(res.statusCode >= 500 ? 502 : res.statusCode, data?.errors ?? [{ msg: `${module} answered ${res.statusCode}` }]);
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
