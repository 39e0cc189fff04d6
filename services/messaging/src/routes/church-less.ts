import type { FastifyInstance } from 'fastify';
import { badRequest, notFound, unauthorized } from '@church/common';
import { NO_CHURCH_ID, noChurchIn } from '../domain/church-less';

/**
 * A user without a church owns nothing shared: membership gives every such user a token of the same placeholder
 * church (`NO_CHURCH_ID`), so a conversation, notification or device kept under it would be every such user's (and,
 * through the public routes, anyone's). A JWT route answers such a token 401; a public route treats it as no token;
 * and no request may name that church (404 in the path, 400 in a query or body). Its hooks reach every route of the
 * module (registered first, outside encapsulation, as `fastify-plugin` would).
 */
async function churchLess(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (req) => {
    const access = req.routeOptions.config?.access;
    if (!access || access === 'internal' || req.auth?.churchId !== NO_CHURCH_ID) return;
    if (access !== 'public') throw unauthorized('Select a church first: a user without a church has no messaging data');
    Reflect.deleteProperty(req, 'auth');
  });
  app.addHook('preHandler', async (req) => {
    const access = req.routeOptions.config?.access;
    if (!access || access === 'internal') return;
    const named = noChurchIn(req);
    if (!named) return;
    if (named.location === 'params') throw notFound('Church');
    throw badRequest(named.param, 'No church has this id', named.location);
  });
}
Object.assign(churchLess, { [Symbol.for('skip-override')]: true });

export default churchLess;
