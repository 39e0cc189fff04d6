/** A JSON call to a running fleet's gateway, as the apps make it: `{status, body}` with the body parsed. */
export function gatewayCaller(base: () => string) {
  // the answer's shape is what each test reads of it, as the apps do
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${base()}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}
