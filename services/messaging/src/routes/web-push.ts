import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { badRequest, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { checkEndpoint } from '../domain/web-push';
import { removeByEndpoint, saveSubscription, trimSubscriptions } from '../repos/web-push';
import { PublicKey, Subscribe, Subscribed, Unsubscribe, Unsubscribed } from '../schemas/web-push';

const base = '/messaging/webpush';
/** browsers kept per person: enough for every browser one uses, and a bound on the addresses one login can make us post to */
const MAX_BROWSERS = 20;

/** `/messaging/webpush`: B1App's installed web app enrolls its browser for pushes (Web Push, VAPID). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  // The VAPID public key is public by nature (every browser subscribing receives it), as the open-source server serves it.
  app.get(`${base}/publicKey`, { config: { access: 'public' }, schema: { response: { 200: PublicKey } } }, async () => ({ publicKey: deps.providers.webPush.publicKey(), enabled: true }));

  app.post(`${base}/subscribe`, { config: { access: anyUser }, schema: { body: Subscribe, response: { 200: Subscribed } } }, async (req) => {
    deps.providers.webPush.publicKey(); // 400 naming the missing settings before anything is stored
    const personId = req.auth.personId;
    if (!personId) throw badRequest('personId', 'the token has no person: pushes go to a person of the church', 'header');
    const { subscription, appName, deviceInfo } = req.body;
    const endpoint = checkEndpoint(subscription.endpoint, deps.config.OUTBOUND_ALLOW_PRIVATE);
    const row = await app.db.transaction(async (tx) => {
      const saved = await saveSubscription(tx, { churchId: req.auth.churchId, personId, endpoint, ...subscription.keys, appName: appName || 'B1AppPwa', deviceInfo: deviceInfo ?? null });
      await trimSubscriptions(tx, req.auth.churchId, personId, MAX_BROWSERS);
      return saved;
    });
    return { success: true as const, id: row.id };
  });

  // Only the caller's church's subscription goes; any of its people may end it, since only the browser knows its endpoint.
  app.post(`${base}/unsubscribe`, { config: { access: anyUser }, schema: { body: Unsubscribe, response: { 200: Unsubscribed } } }, async (req) => ({
    success: true as const,
    removed: await removeByEndpoint(app.db, req.auth.churchId, req.body.endpoint),
  }));
}
