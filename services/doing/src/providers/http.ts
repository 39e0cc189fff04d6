import { providerFailed } from '@church/common';
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
  let res: Response;
  try {
    res = await fetch(url, { method: init.method ?? 'GET', headers, body, signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    const name = (err as Error).name;
    throw providerFailed(what, name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : 'unreachable');
  }
  const text = await res.text();
  if (res.status === 401) throw new ProviderUnauthorized(`${what} refused the token`);
  if (res.status === 400 && init.onBadRequest) throw init.onBadRequest();
  if (!res.ok) throw providerFailed(what, `answered ${res.status}`);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw providerFailed(what, 'answered something that is not JSON');
  }
}
