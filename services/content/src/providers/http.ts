import { providerFailed } from '@church/common';

/** Joins a configured base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * One call to a provider's documented HTTP API with a timeout; a non-2xx answer or an outage becomes a 502
 * naming the provider (`providerFailed`), except a 404, which the caller may turn into its own 404.
 */
export async function fetchJson<T = unknown>(
  what: string,
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<{ status: number; data: T }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 15_000) });
  } catch (err) {
    throw providerFailed(what, err instanceof Error ? err.message : 'unreachable');
  }
  const text = await res.text();
  let data: unknown = text;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  if (res.status === 404) return { status: 404, data: data as T };
  if (!res.ok) {
    const detail = typeof data === 'object' && data ? JSON.stringify(data).slice(0, 200) : String(text).slice(0, 200);
    throw providerFailed(what, `HTTP ${res.status} ${detail}`);
  }
  return { status: res.status, data: data as T };
}
