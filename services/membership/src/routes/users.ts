import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hashPassword, hasPermission, requires } from '@church/auth';
import { Email, Id, badRequest, conflict, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { findOrCreateUser, registerUser, sendReset } from '../domain/account';
import { userSession } from '../domain/access';
import { clock } from '../domain/clock';
import { LoginResponse, UserOut, loginResponse, recordLogin, toUser, userByAuthGuid, userByJwt, userByPassword } from '../domain/login';
import { findPerson, setOptedOut, unlinkUser } from '../domain/people-links';
import { sha256 } from '../domain/secrets';
import { deleteUserChurchesOf, userChurchesOf } from '../repos/churches';
import { deleteOauthGrantsOfUser } from '../repos/oauth';
import { deleteMembershipsOfUser } from '../repos/roles';
import { deleteUserRow, findUserByEmail, findUserById, searchUsers, spendAuthGuid, updateUser } from '../repos/users';

const Text = z.string().trim().max(100);
const AppUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) address' });
const AppLink = { appName: Text.min(1), appUrl: AppUrl };
const Password = z.string().min(6, 'must be at least 6 characters').max(200);
const Done = z.object({ success: z.boolean() });

const LoginBody = z.object({
  email: z.string().trim().toLowerCase().optional(),
  password: z.string().optional(),
  jwt: z.string().optional(),
  authGuid: z.string().optional(),
});

/** Users and login (`/membership/users`): accounts are global, a user belongs to churches. */
export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/users';

  app.post(`${base}/login`, { config: { access: 'public' }, schema: { body: LoginBody, response: { 200: LoginResponse } } }, async (req) => {
    const { email, password, jwt, authGuid } = req.body;
    const kinds = [email || password ? 'email' : '', jwt ? 'jwt' : '', authGuid ? 'authGuid' : ''].filter(Boolean);
    if (kinds.length !== 1) throw badRequest(kinds[1] ?? 'email', 'Send exactly one credential: email and password, jwt, or authGuid');
    let user;
    if (jwt) user = await userByJwt(app.db, app.deps, jwt);
    else if (authGuid) user = await userByAuthGuid(app.db, authGuid);
    else {
      if (!email) throw badRequest('email', 'email is required with password');
      if (!password) throw badRequest('password', 'password is required with email');
      user = await userByPassword(app.db, email, password);
    }
    const response = await loginResponse(app.db, app.deps, user);
    await recordLogin(app.db, user, response);
    return response;
  });

  app.post(
    `${base}/register`,
    {
      config: { access: 'public' },
      schema: { body: z.object({ email: Email, firstName: Text.min(1), lastName: Text, ...AppLink }), response: { 200: UserOut } },
    },
    async (req) => toUser(await registerUser(app.db, app.deps, req.body)),
  );

  // The same answer whether or not the email has an account, so the route cannot be used to find accounts.
  app.post(
    `${base}/forgot`,
    { config: { access: 'public' }, schema: { body: z.object({ userEmail: Email, ...AppLink }), response: { 200: z.object({}) } } },
    async (req) => {
      await sendReset(app.db, app.deps, req.body.userEmail, req.body);
      return {};
    },
  );

  app.post(
    `${base}/setPasswordGuid`,
    { config: { access: 'public' }, schema: { body: z.object({ authGuid: z.string().min(1), newPassword: Password }), response: { 200: Done } } },
    async (req) => {
      const user = await spendAuthGuid(app.db, sha256(req.body.authGuid), clock.now(), await hashPassword(req.body.newPassword));
      if (!user) throw badRequest('authGuid', 'The link is invalid, used or expired');
      return { success: true };
    },
  );

  app.post(
    `${base}/verifyCredentials`,
    {
      config: { access: 'public' },
      schema: {
        body: z.object({ email: z.string().trim().toLowerCase().min(1), password: z.string().min(1) }),
        response: { 200: z.object({ churches: z.array(z.object({ id: z.string(), name: z.string(), subDomain: z.string().nullable() })) }) },
      },
    },
    async (req) => {
      const user = await userByPassword(app.db, req.body.email, req.body.password);
      const links = await userChurchesOf(app.db, user.id);
      return { churches: links.filter((l) => !l.church.archivedDate).map((l) => l.church) };
    },
  );

  app.post(
    `${base}/loadOrCreate`,
    {
      config: { access: userSession },
      schema: {
        body: z.object({ userId: Id.optional(), userEmail: Email.optional(), firstName: Text.optional(), lastName: Text.optional() }),
        response: { 200: UserOut },
      },
    },
    async (req) => {
      const { userId, userEmail, firstName, lastName } = req.body;
      if (userId) {
        const user = await findUserById(app.db, userId);
        if (user) return toUser(user);
        if (!userEmail) throw notFound('User');
      }
      if (!userEmail) throw badRequest('userEmail', 'userId or userEmail is required');
      return toUser(await findOrCreateUser(app.db, { email: userEmail, firstName, lastName }));
    },
  );

  app.post(
    `${base}/setDisplayName`,
    { config: { access: userSession }, schema: { body: z.object({ firstName: Text.min(1), lastName: Text }), response: { 200: UserOut } } },
    async (req) => toUser(await ownUser(await updateUser(app.db, req.auth.id, req.body))),
  );

  app.post(
    `${base}/updateEmail`,
    { config: { access: userSession }, schema: { body: z.object({ email: Email }), response: { 200: UserOut } } },
    async (req) => {
      const taken = await findUserByEmail(app.db, req.body.email);
      if (taken && taken.id !== req.auth.id) throw conflict('Another account uses this email', 'email');
      return toUser(await ownUser(await updateUser(app.db, req.auth.id, { email: req.body.email })));
    },
  );

  app.post(
    `${base}/updatePassword`,
    { config: { access: userSession }, schema: { body: z.object({ newPassword: Password }), response: { 200: Done } } },
    async (req) => {
      const passwordHash = await hashPassword(req.body.newPassword);
      // A password change also spends any outstanding welcome or reset link.
      await ownUser(await updateUser(app.db, req.auth.id, { passwordHash, authGuidHash: null, authGuidExpiresAt: null }));
      return { success: true };
    },
  );

  // Own person, or anyone's in the church with People.Edit (an opt-out is a person's own choice).
  app.post(
    `${base}/updateOptedOut`,
    {
      config: { access: userSession },
      schema: { body: z.object({ personId: Id, optedOut: z.boolean() }), response: { 200: z.object({ personId: z.string(), optedOut: z.boolean() }) } },
    },
    async (req) => {
      const { personId, optedOut } = req.body;
      const person = await findPerson(app.db, req.auth.churchId, personId);
      if (!person) throw notFound('Person');
      const own = personId === req.auth.personId || person.userId === req.auth.id;
      if (!own && !hasPermission(req.auth, 'People.Edit')) throw unauthorized('Missing permission: People.Edit');
      await setOptedOut(app.db, req.auth.churchId, personId, optedOut);
      return { personId, optedOut };
    },
  );

  app.get(
    `${base}/search`,
    { config: { access: requires('Server.Admin') }, schema: { querystring: z.object({ term: z.string().trim().min(1) }), response: { 200: z.array(UserOut) } } },
    async (req) => (await searchUsers(app.db, req.query.term)).map(toUser),
  );

  app.delete(base, { config: { access: userSession }, schema: { response: { 200: z.object({}) } } }, async (req) => {
    const userId = req.auth.id;
    await app.db.transaction(async (tx) => {
      const churchIds = (await userChurchesOf(tx, userId)).map((l) => l.church.id);
      await unlinkUser(tx, userId, churchIds);
      await deleteMembershipsOfUser(tx, userId, null);
      await deleteUserChurchesOf(tx, userId);
      await deleteOauthGrantsOfUser(tx, userId);
      await deleteUserRow(tx, userId);
    });
    return {};
  });
}

/** The caller's own account; a token of a deleted user answers 401. */
function ownUser<T>(row: T | undefined): T {
  if (!row) throw unauthorized('User no longer exists');
  return row;
}
