import { badRequest, isPublicAddress } from '@church/common';

/**
 * A subscription's endpoint is an address the caller gives and the server later posts to: it must be an https
 * address of a public host (a literal address must be public; a name is checked again, on every address it
 * resolves to, when the push is sent). With `allowPrivate` (development, tests) any http(s) address passes.
 */
export function checkEndpoint(endpoint: string, allowPrivate: boolean): string {
  const param = 'subscription.endpoint';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw badRequest(param, 'must be an https address');
  }
  if (url.username || url.password) throw badRequest(param, 'must be an https address without credentials');
  if (allowPrivate) {
    if (!/^https?:$/.test(url.protocol)) throw badRequest(param, 'must be an http(s) address');
    return endpoint;
  }
  if (url.protocol !== 'https:') throw badRequest(param, 'must be an https address');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const literal = /^[\d.]+$/.test(host) || host.includes(':');
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.') || (literal && !isPublicAddress(host))) throw badRequest(param, 'must be a public address');
  // kept as the browser wrote it: its unsubscribe sends the same text back
  return endpoint;
}

/** What a push service accepts in one message is about 4 KB once encrypted; the text is cut to stay well inside. */
const MAX_PAYLOAD_BYTES = 3000;

/**
 * The push's JSON as B1App's service worker reads it (`public/sw.js`): `title` and `body` shown, `type` and
 * `contentId` (or `link`) choosing the page a tap opens, the notification's id for the app.
 */
export function webPushPayload(msg: { title: string; body: string; data?: Record<string, string> }): string {
  const { contentType, ...data } = msg.data ?? {};
  const build = (body: string) => JSON.stringify({ title: msg.title.slice(0, 200), body, type: contentType ?? 'notification', ...data });
  let body = msg.body.slice(0, 1000);
  let json = build(body);
  while (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES && body.length) {
    body = body.slice(0, Math.floor(body.length * 0.8));
    json = build(body);
  }
  return json;
}

/** How a subscription appears in delivery logs: its push service, never the endpoint (a capability to push to the browser). */
export function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'webpush';
  }
}
