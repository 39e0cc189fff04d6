import type { FastifyInstance } from 'fastify';
import clients from './clients';
import grants from './grants';
import device from './device';
import apps from './apps';

/** OAuth (`/membership/oauth`): clients, the code flow, the device flow and the token endpoint. */
export default async function routes(app: FastifyInstance): Promise<void> {
  // RFC 6749 clients post the token endpoint as a form; JSON works too. Scoped to these routes.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  await app.register(clients);
  await app.register(grants);
  await app.register(device);
  await app.register(apps);
}
