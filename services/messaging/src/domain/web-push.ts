import { badRequest } from '@church/common';
import { refusedEndpoint } from '../providers/web-push';

/**
 * A subscription's endpoint is an address the caller gives and the server later posts to: checked on save by the
 * rule every push checks it with again (`refusedEndpoint`), a 400 naming `subscription.endpoint` when refused.
 */
export function checkEndpoint(endpoint: string, allowPrivate: boolean): string {
  const refused = refusedEndpoint(endpoint, allowPrivate);
  if (refused) throw badRequest('subscription.endpoint', refused);
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
