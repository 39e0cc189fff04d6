import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, isServerAdmin, requires } from '@church/auth';
import { Id, IdParams, actorOf, batchOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { DOMAIN_ADMINS, createChurch, selectChurch, updateOwnChurch } from '../../domain/churches/setup';
import { SelectResponse, UserOut } from '../../domain/login';
import { churchesOfUser, findChurch, findUserChurch } from '../../repos/churches';
import { roleMembershipsOf, usersInRoleNamed } from '../../repos/roles';
import { findUserById } from '../../repos/users';
import { Church, ChurchUpdate, NewChurchBody, SubDomain } from '../../schemas/churches';

export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/churches';

  /** A church the caller may read: the token's, one they are linked to, or any for server admins. */
  const readable = async (req: FastifyRequest, id: string) => {
    const church = await findChurch(app.db, id);
    const allowed = church && (id === req.auth.churchId || isServerAdmin(req.auth) || (await findUserChurch(app.db, req.auth.id, id)));
    if (!church || !allowed) throw notFound('Church');
    return church;
  };

  app.get(base, { config: { access: anyUser }, schema: { response: { 200: z.array(Church) } } }, async (req) => {
    const admin = isServerAdmin(req.auth);
    return (await churchesOfUser(app.db, req.auth.id)).filter((church) => admin || !church.archivedDate);
  });

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Church } } }, async (req) => readable(req, req.params.id));

  // Open to any linked user (the spec), but the address goes to the church's staff only: server admins and users
  // who are members of one of its roles now (anyone can link themselves to a church; they see the name alone).
  app.get(`${base}/:id/getDomainAdmin`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: UserOut.partial({ email: true }) } } }, async (req) => {
    const church = await readable(req, req.params.id);
    const [admin] = await usersInRoleNamed(app.db, church.id, DOMAIN_ADMINS);
    if (!admin) throw notFound('Domain admin');
    const staff = isServerAdmin(req.auth) || (await roleMembershipsOf(app.db, req.auth.id, [church.id])).length > 0;
    const { email, ...named } = admin;
    return staff ? { ...named, email } : named;
  });

  // Only the token's own church can be edited; a batch naming another church fails whole with 404.
  app.post(base, { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(ChurchUpdate), response: { 200: z.array(Church) } } }, (req) =>
    updateOwnChurch(app.db, actorOf(req), req.body),
  );

  app.post(`${base}/add`, { config: { access: userSession }, schema: { body: NewChurchBody, response: { 200: Church } } }, async (req) => {
    const user = await findUserById(app.db, req.auth.id);
    if (!user) throw unauthorized('User no longer exists');
    return createChurch(app.db, user, req.body);
  });

  // Switching church: a church the user has no link to is joined with the Everyone permissions and their person
  // there: the one with the account's address when the address is proved (the owner followed a link or code mailed
  // to it) and no other user holds that person, else a new guest person.
  app.post(
    `${base}/select`,
    {
      config: { access: userSession },
      schema: { body: z.object({ churchId: Id.optional(), subDomain: SubDomain.optional() }), response: { 200: SelectResponse } },
    },
    (req) => selectChurch(app.db, app.deps, actorOf(req), req.body),
  );
}
