import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, isServerAdmin, requires } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, conflict, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { userSession } from '../../domain/access';
import { DOMAIN_ADMINS, createChurch } from '../../domain/church-setup';
import { clock } from '../../domain/clock';
import { SelectResponse, UserOut, loginResponse, selectedChurch } from '../../domain/login';
import { insertPersonForUser, personOfUser } from '../../repos/people-links';
import { churchesOfUser, findChurch, findChurchBySubDomain, findUserChurch, touchChurch, updateChurch, upsertUserChurch } from '../../repos/churches';
import { personByEmail, updatePerson } from '../../repos/people';
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
  app.post(base, { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(ChurchUpdate), response: { 200: z.array(Church) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const { id = req.auth.churchId, ...values } of req.body) {
        if (id !== req.auth.churchId) throw notFound('Church');
        if (values.subDomain) {
          const holder = await findChurchBySubDomain(tx, values.subDomain);
          if (holder && holder.id !== id) throw conflict('This subDomain is taken', 'subDomain');
        }
        const row = await updateChurch(tx, id, values);
        if (!row) throw notFound('Church');
        out.push(row);
      }
      return out;
    }),
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
    async (req) => {
      const { churchId, subDomain } = req.body;
      if (!churchId && !subDomain) throw badRequest('churchId', 'churchId or subDomain is required');
      const church = churchId ? await findChurch(app.db, churchId) : await findChurchBySubDomain(app.db, subDomain!);
      if (!church || (church.archivedDate && !isServerAdmin(req.auth))) throw notFound('Church');
      const user = await findUserById(app.db, req.auth.id);
      if (!user) throw unauthorized('User no longer exists');
      const now = clock.now();
      await app.db.transaction(async (tx) => {
        const link = await findUserChurch(tx, user.id, church.id);
        let personId = link?.personId ?? (await personOfUser(tx, church.id, user.id))?.id ?? null;
        if (!personId && user.emailVerified) {
          const byEmail = await personByEmail(tx, church.id, user.email);
          if (byEmail && !byEmail.userId) personId = (await updatePerson(tx, church.id, byEmail.id, { userId: user.id }))!.id;
        }
        if (!personId) personId = (await insertPersonForUser(tx, church.id, user, 'Guest')).id;
        await upsertUserChurch(tx, { userId: user.id, churchId: church.id, personId, lastAccessed: now });
        await touchChurch(tx, church.id, now);
      });
      return selectedChurch(await loginResponse(app.db, app.deps, user, { churchId: church.id }));
    },
  );
}
