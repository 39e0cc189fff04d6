import type { z } from 'zod';
import { badRequest, type Actor } from '@church/common';
import type { MessagingDeps } from '../deps';
import { refusedEndpoint } from '../providers/web-push';
import { saveSubscription, trimSubscriptions } from '../repos/web-push';
import type { Subscribe } from '../schemas/web-push';

/** browsers kept per person: enough for every browser one uses, and a bound on the addresses one login can make us post to */
const MAX_BROWSERS = 20;

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

/**
 * Enrolls the caller's browser for pushes: 400 naming the missing VAPID settings before anything is stored, or a
 * token without a person, or an endpoint the push rule refuses; the person keeps their newest `MAX_BROWSERS`.
 * Answers the subscription's id.
 */
export async function subscribe(deps: Pick<MessagingDeps, 'db' | 'providers' | 'config'>, actor: Actor, body: z.output<typeof Subscribe>): Promise<string> {
  deps.providers.webPush.publicKey(); // 400 naming the missing settings before anything is stored
  const personId = actor.personId;
  if (!personId) throw badRequest('personId', 'the token has no person: pushes go to a person of the church', 'header');
  const { subscription, appName, deviceInfo } = body;
  const endpoint = checkEndpoint(subscription.endpoint, deps.config.OUTBOUND_ALLOW_PRIVATE);
  const row = await deps.db.transaction(async (tx) => {
    const saved = await saveSubscription(tx, { churchId: actor.churchId, personId, endpoint, ...subscription.keys, appName: appName || 'B1AppPwa', deviceInfo: deviceInfo ?? null });
    await trimSubscriptions(tx, actor.churchId, personId, MAX_BROWSERS);
    return saved;
  });
  return row.id;
}
