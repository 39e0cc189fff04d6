import type { FastifyInstance } from 'fastify';
import { announce, revokeTokens } from '../domain/revocations';
import { z } from 'zod';
import { anyUser, hasPermission, requires, rule, type Claims } from '@church/auth';
import { Id, badRequest, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { userSession } from '../domain/access';
import { clock } from '../domain/clock';
import { findPerson } from '../repos/people-links';
import { deleteUserChurch, findUserChurch, setLastAccessed, touchChurch, upsertUserChurch, userChurchByPerson, userChurchesOf } from '../repos/churches';
import { findUserById } from '../repos/users';
import { UserChurch, UserChurchWithChurch } from '../schemas/userchurch';

/** User-church links (`/membership/userchurch`): which users belong to the token's church, and as which person. */
export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/userchurch';

  /** The `:personId` in the path is the caller's own person. */
  const ownPerson = rule('own record', (req, auth) => {
    const id = (req.params as { personId?: string }).personId;
    return Boolean(id && auth.personId && id.toLowerCase() === auth.personId.toLowerCase());
  });

  /** Acting on another user's link takes People.Edit in the church; one's own link takes nothing. */
  const mayActFor = (auth: Claims, userId: string) => userId === auth.id || hasPermission(auth, 'People.Edit');

  app.get(`${base}/userid/:userId`, { config: { access: anyUser }, schema: { params: z.object({ userId: Id }), response: { 200: UserChurch } } }, async (req) => {
    const row = await findUserChurch(app.db, req.params.userId, req.auth.churchId);
    if (!row) throw notFound('User church');
    return row;
  });

  app.get(
    `${base}/personid/:personId`,
    // A person's login email is People.View data, or the caller's own. A person of the church without a login
    // answers `{}` (B1Admin's person page shows no login email); a person the church does not have, 404.
    { config: { access: requires('People.View', ownPerson) }, schema: { params: z.object({ personId: Id }), response: { 200: z.object({ email: z.string().optional() }) } } },
    async (req) => {
      const link = await userChurchByPerson(app.db, req.auth.churchId, req.params.personId);
      const user = link ? await findUserById(app.db, link.userId) : undefined;
      if (user) return { email: user.email };
      if (!(await findPerson(app.db, req.auth.churchId, req.params.personId))) throw notFound('Person');
      return {};
    },
  );

  app.get(
    `${base}/user/:userId`,
    { config: { access: requires('Server.Admin') }, schema: { params: z.object({ userId: Id }), response: { 200: z.array(UserChurchWithChurch) } } },
    async (req) => (await userChurchesOf(app.db, req.params.userId)).map(({ uc, church }) => ({ ...uc, church })),
  );

  /**
   * Naming the person takes People.Edit unless it is already the caller's own (their link's person, or a person
   * recorded as theirs): the person decides membership status, Edit Self and led groups, so choosing another
   * would take over that person's access. `person` is the named person as read (undefined when there is none).
   */
  const mayLinkPerson = async (auth: Claims, personId: string, person: { userId: string | null } | undefined) => {
    if (hasPermission(auth, 'People.Edit') || person?.userId === auth.id) return true;
    return (await findUserChurch(app.db, auth.id, auth.churchId))?.personId === personId;
  };

  // Links a user to the token's church, as a person of that church. The user is named by `?userId=` (B1Admin's
  // role screen: `POST /userchurch?userId=<new user> {personId}`) or the body's `userId`, else the caller.
  // Attaching a user who is not yet linked to the church: the user themself, or a server admin (400 on userId
  // otherwise; a church admin cannot pull any account of the platform into their church). Re-pointing a linked
  // user of the church: People.Edit.
  app.post(
    base,
    {
      config: { access: userSession },
      schema: { querystring: z.object({ userId: Id.optional() }), body: z.object({ userId: Id.optional(), personId: Id.nullish() }), response: { 200: UserChurch } },
    },
    async (req) => {
      const userId = req.query.userId ?? req.body.userId ?? req.auth.id;
      const personId = req.body.personId ?? undefined;
      if (!mayActFor(req.auth, userId)) throw unauthorized('Missing permission: People.Edit');
      if (userId !== req.auth.id && !hasPermission(req.auth, 'Server.Admin') && !(await findUserChurch(app.db, userId, req.auth.churchId))) {
        throw badRequest('userId', 'Only the user themself or a server admin may attach a user to a church');
      }
      const person = personId ? await findPerson(app.db, req.auth.churchId, personId) : undefined;
      if (personId && !(await mayLinkPerson(req.auth, personId, person))) throw unauthorized('Missing permission: People.Edit');
      if (!(await findUserById(app.db, userId))) throw notFound('User');
      if (personId && !person) throw notFound('Person');
      return upsertUserChurch(app.db, { userId, churchId: req.auth.churchId, personId });
    },
  );

  app.patch(`${base}/:userId`, { config: { access: userSession }, schema: { params: z.object({ userId: Id }), response: { 200: UserChurch } } }, async (req) => {
    if (req.params.userId !== req.auth.id) throw unauthorized('You can only record your own access');
    const now = clock.now();
    const row = await setLastAccessed(app.db, req.auth.id, req.auth.churchId, now);
    if (!row) throw notFound('User church');
    await touchChurch(app.db, req.auth.churchId, now);
    return row;
  });

  app.delete(
    `${base}/record/:userId/:churchId/:personId`,
    { config: { access: userSession }, schema: { params: z.object({ userId: Id, churchId: Id, personId: Id }), response: { 200: z.object({}) } } },
    async (req) => {
      const { userId, churchId, personId } = req.params;
      if (churchId !== req.auth.churchId) throw notFound('User church');
      if (!mayActFor(req.auth, userId)) throw unauthorized('Missing permission: People.Edit');
      const stamps = await app.db.transaction(async (tx) => {
        if (!(await deleteUserChurch(tx, churchId, userId, personId))) throw notFound('User church');
        return revokeTokens(tx, [{ userId, churchId }]);
      });
      await announce(app.deps, stamps);
      return {};
    },
  );
}
