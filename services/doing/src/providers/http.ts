import { fetchJson, providerFailed } from '@church/common';
import { ProviderUnauthorized } from './content-provider';

/**
 * One JSON call to a provider's HTTP API with a timeout. A 401 is its own error (the proxy refreshes and
 * retries); any other failure, a timeout or a non-JSON answer is a 502 naming the provider.
 */
export async function providerJson<T>(
  what: string,
  url: string,
  init: { method?: string; token?: string | null; form?: Record<string, string>; timeoutMs: number; /** a 400 of the provider as the caller's own mistake */ onBadRequest?: () => Error },
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetchJson<T>(what, url, { method: init.method ?? 'GET', headers, body, timeoutMs: init.timeoutMs, pass: [400, 401] });
  if (res.status === 401) throw new ProviderUnauthorized(`${what} refused the token`);
  if (res.status === 400) throw init.onBadRequest?.() ?? providerFailed(what, 'answered 400');
  if (!res.json) throw providerFailed(what, 'answered something that is not JSON');
  return res.data;
}
