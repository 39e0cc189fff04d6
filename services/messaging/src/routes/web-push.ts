import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { actorOf, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { subscribe } from '../domain/web-push';
import { removeByEndpoint } from '../repos/web-push';
import { PublicKey, Subscribe, Subscribed, Unsubscribe, Unsubscribed } from '../schemas/web-push';

const base = '/messaging/webpush';

/** `/messaging/webpush`: B1App's installed web app enrolls its browser for pushes (Web Push, VAPID). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  // The VAPID public key is public by nature (every browser subscribing receives it), as the open-source server serves it.
  app.get(`${base}/publicKey`, { config: { access: 'public' }, schema: { response: { 200: PublicKey } } }, async () => ({ publicKey: deps.providers.webPush.publicKey(), enabled: true }));

  app.post(`${base}/subscribe`, { config: { access: anyUser }, schema: { body: Subscribe, response: { 200: Subscribed } } }, async (req) => ({
    success: true as const,
    id: await subscribe(deps, actorOf(req), req.body),
  }));

  // Only the caller's church's subscription goes; any of its people may end it, since only the browser knows its endpoint.
  app.post(`${base}/unsubscribe`, { config: { access: anyUser }, schema: { body: Unsubscribe, response: { 200: Unsubscribed } } }, async (req) => ({
    success: true as const,
    removed: await removeByEndpoint(app.db, req.auth.churchId, req.body.endpoint),
  }));
}
