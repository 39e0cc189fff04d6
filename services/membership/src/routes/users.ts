import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hasPermission, requires } from '@church/auth';
import { Email, Id, badRequest, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { confirmEmailChange, findOrCreateUser, passwords, registerUser, requestEmailChange, setPasswordWithGuid } from '../domain/account';
import { AppName, AppUrl } from '../domain/app-links';
import { PASSWORD_RESET_JOB } from '../jobs/password-reset';
import { userSession } from '../domain/access';
import { LoginResponse, UserOut, loginResponse, recordLogin, toUser, userByAuthGuid, userByJwt, userByPassword } from '../domain/login';
import { findPerson, setOptedOut, unlinkUser } from '../domain/people-links';
import { deleteUserChurchesOf, userChurchesOf } from '../repos/churches';
import { deleteOauthGrantsOfUser } from '../repos/oauth';
import { deleteMembershipsOfUser } from '../repos/roles';
import { deleteUserRow, findUserById, searchUsers, updateUser } from '../repos/users';
import { announce, revokeTokens } from '../domain/revocations';

const Text = z.string().trim().max(100);
// Links are built only from allowed origins (src/domain/app-links.ts); the name is short plain text.
const AppLink = { appName: AppName, appUrl: AppUrl };
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
    let churchId: string | undefined;
    // A token is re-derived from the database: the user must still exist, and roles, church links and the
    // person are read again; the new token stays with the old one's church while the user is still linked to it.
    if (jwt) ({ user, churchId } = await userByJwt(app.db, app.deps, jwt));
    else if (authGuid) user = await userByAuthGuid(app.db, authGuid);
    else {
      if (!email) throw badRequest('email', 'email is required with password');
      if (!password) throw badRequest('password', 'password is required with email');
      user = await userByPassword(app.db, email, password);
    }
    const response = await loginResponse(app.db, app.deps, user, { churchId });
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

  // The same answer, by the same path, whether or not the email has an account: the request is queued and the
  // account looked up (and mailed) by the `membership.passwordReset` job after the answer.
  app.post(
    `${base}/forgot`,
    { config: { access: 'public' }, schema: { body: z.object({ userEmail: Email, ...AppLink }), response: { 200: z.object({}) } } },
    async (req) => {
      const { userEmail, appName, appUrl } = req.body;
      await app.deps.queue.enqueue(PASSWORD_RESET_JOB, { email: userEmail, appName, appUrl });
      return {};
    },
  );

  app.post(
    `${base}/setPasswordGuid`,
    { config: { access: 'public' }, schema: { body: z.object({ authGuid: z.string().min(1), newPassword: Password }), response: { 200: Done } } },
    async (req) => {
      if (!(await setPasswordWithGuid(app.db, req.body.authGuid, req.body.newPassword))) throw badRequest('authGuid', 'The link is invalid, used or expired');
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

  // The new address gets a confirmation link; the account keeps its email until the link is followed
  // (`confirmEmail`), so the answer is the account as it still is.
  app.post(
    `${base}/updateEmail`,
    {
      config: { access: userSession },
      schema: { body: z.object({ email: Email, appName: AppName.optional(), appUrl: AppUrl.optional() }), response: { 200: UserOut } },
    },
    async (req) => {
      const user = ownUser(await findUserById(app.db, req.auth.id));
      await requestEmailChange(app.db, app.deps, user, req.body.email, req.body);
      return toUser(user);
    },
  );

  // The confirmation link's guid is the proof: the pending address becomes the account's (verified) email.
  app.post(
    `${base}/confirmEmail`,
    { config: { access: 'public' }, schema: { body: z.object({ authGuid: z.string().min(1).max(200) }), response: { 200: UserOut } } },
    async (req) => {
      const user = await confirmEmailChange(app.db, req.body.authGuid);
      if (!user) throw badRequest('authGuid', 'The link is invalid, used or expired');
      return toUser(user);
    },
  );

  app.post(
    `${base}/updatePassword`,
    { config: { access: userSession }, schema: { body: z.object({ newPassword: Password }), response: { 200: Done } } },
    async (req) => {
      const passwordHash = await passwords.hash(req.body.newPassword);
      // A password change also spends any outstanding welcome or reset link, and every token minted before it.
      const stamps = await app.db.transaction(async (tx) => {
        await ownUser(await updateUser(tx, req.auth.id, { passwordHash, authGuidHash: null, authGuidExpiresAt: null }));
        return revokeTokens(tx, [{ userId: req.auth.id }]);
      });
      await announce(app.deps, stamps);
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
    const stamps = await app.db.transaction(async (tx) => {
      const churchIds = (await userChurchesOf(tx, userId)).map((l) => l.church.id);
      await unlinkUser(tx, userId, churchIds);
      await deleteMembershipsOfUser(tx, userId, null);
      await deleteUserChurchesOf(tx, userId);
      await deleteOauthGrantsOfUser(tx, userId);
      await deleteUserRow(tx, userId);
      return revokeTokens(tx, [{ userId }]);
    });
    await announce(app.deps, stamps);
    return {};
  });
}

/** The caller's own account; a token of a deleted user answers 401. */
function ownUser<T>(row: T | undefined): T {
  if (!row) throw unauthorized('User no longer exists');
  return row;
}
