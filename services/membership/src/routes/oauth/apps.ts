import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, actorOf, escapeHtml, type ZodTypeProvider } from '@church/common';
import { membershipDeps } from '../../deps';
import { clock } from '../../domain/clock';
import { disconnectApp, finishRelay, openRelaySession, pollRelaySession } from '../../domain/oauth/apps';
import { liveGrantsOf } from '../../repos/oauth';
import { Connection, RelayCallbackQuery, RelayCreate, RelayParams, RelayPoll, RelaySession } from '../../schemas/oauth-apps';

/**
 * Connected apps (the caller's OAuth grants in the church: list, revoke) and relay sessions, through which an
 * app that cannot receive a redirect itself (B1Admin's pop-up sign-ins to content and storage providers, a TV)
 * gets an outside provider's authorization code.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);
  const base = '/membership/oauth';

  app.get(`${base}/connections`, { config: { access: requires('Settings.Edit') }, schema: { summary: 'The apps the caller has connected in the church', response: { 200: z.array(Connection) } } }, async (req) =>
    (await liveGrantsOf(app.db, req.auth.id, req.auth.churchId, clock.now())).map((g) => ({ ...g, clientName: g.clientName ?? g.clientId, scopes: g.scopes.join(' ') })),
  );

  // Revoking a connection ends its refresh token and, through the grant's revocation stamp, the access tokens the
  // app already holds, at once on every service.
  app.delete(`${base}/connections/:id`, { config: { access: requires('Settings.Edit') }, schema: { summary: 'Disconnect an app', params: IdParams, response: { 200: Empty } } }, async (req) => {
    await disconnectApp(deps, actorOf(req), req.params.id);
    return {};
  });

  // Opened by a signed-in app; the code is 8 readable characters (a TV shows it), the provider returns to our callback.
  app.post(`${base}/relay/sessions`, { config: { access: anyUser }, schema: { summary: 'Open a relay session for an outside provider’s sign-in', body: RelayCreate, response: { 200: RelaySession } } }, (req) =>
    openRelaySession(deps, actorOf(req), req.body.provider),
  );

  // Polled without a token (B1Admin's getAnonymous): the session code is the secret. A completed session answers its
  // code once and is gone; an unknown or expired one is a 404.
  app.get(`${base}/relay/sessions/:sessionCode`, { config: { access: 'public' }, schema: { summary: 'Poll a relay session for the provider’s code', params: RelayParams, response: { 200: RelayPoll } } }, (req) =>
    pollRelaySession(deps, req.params.sessionCode),
  );

  // Where the provider sends the person back (`?code&state=<sessionCode>`): a small page telling them to return to the app.
  app.get(`${base}/relay/callback`, { config: { access: 'public' }, schema: { summary: 'Where the provider returns the person after signing in', querystring: RelayCallbackQuery, response: { 200: z.string().describe('an HTML page the person reads') } } }, async (req, reply) => {
    const { title, message } = await finishRelay(deps, req.query);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'no-store')
      .send(
        `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
          `<style>body{font-family:system-ui,sans-serif;display:flex;justify-content:center;align-items:center;min-height:100vh;margin:0}main{max-width:26rem;text-align:center;padding:2rem}</style></head>` +
          `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`,
      );
  });
}
