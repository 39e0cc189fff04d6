import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hasPermission, isServerAdmin, requires, type Claims } from '@church/auth';
import { Email, Id, IdParams, actorOf, badRequest, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { confirmEmailChange, findOrCreateUser, passwords, registerUser, requestEmailChange, setPasswordWithGuid, verifyCode } from '../domain/account';
import { AppName, AppUrl } from '../domain/app-links';
import { sendInvite } from '../domain/invite';
import { passwordReset } from '../jobs/password-reset';
import { membershipDeps } from '../deps';
import { userSession } from '../domain/access';
import { LoginResponse, UserOut, login, toUser, userByPassword } from '../domain/login';
import { deleteAccount, impersonateUser, userDetails } from '../domain/users';
import { findPerson, setOptedOut } from '../repos/people-links';
import { userChurchesOf } from '../repos/churches';
import { NO_LINK_OR_CODE, findUserByEmail, findUserById, searchUsers, updateUser } from '../repos/users';
import { announce, revokeTokens } from '../domain/revocations';
import { Text, Password, Done, UserDetails, LoginBody } from '../schemas/users';

// Links are built only from allowed origins (src/domain/app-links.ts); the name is short plain text. Both may be
// left out or null (B1App's forgot sends neither, the login package's register a null appUrl): then the default app.
const orNone = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());
const AppLink = { appName: orNone(AppName), appUrl: orNone(AppUrl) };
/** `userId` on an account change names another user: only server admins may (the apps' user editor sends it). */
const OtherUser = { userId: z.preprocess((v) => (v === '' || v === null ? undefined : v), Id.optional()) };

/** Users and login (`/membership/users`): accounts are global, a user belongs to churches. */
export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);
  const base = '/membership/users';

  app.post(`${base}/login`, { config: { access: 'public' }, schema: { body: LoginBody, response: { 200: LoginResponse } } }, (req) => login(app.db, app.deps, req.body));

  // The welcome message carries a link and a 6-digit code. B1App may send `churchId` (a church it matched by
  // email): it is not needed, since selecting the church links the person with the proven address (`claim`).
  app.post(
    `${base}/register`,
    {
      config: { access: 'public' },
      schema: { body: z.object({ email: Email, firstName: Text.min(1), lastName: Text, ...AppLink }), response: { 200: UserOut } },
    },
    async (req) => toUser(await registerUser(app.db, deps, req.body)),
  );

  // The same answer, by the same path, whether or not the email has an account: the request is queued and the
  // account looked up (and mailed a link and a code) by the `membership.passwordReset` job after the answer.
  // `emailed` is what the apps read to move on to the code or "check your email" screen.
  app.post(
    `${base}/forgot`,
    { config: { access: 'public' }, schema: { body: z.object({ userEmail: Email, ...AppLink }), response: { 200: z.object({ emailed: z.boolean() }) } } },
    async (req) => {
      const { userEmail, appName, appUrl } = req.body;
      await app.deps.queue.enqueue(passwordReset, { email: userEmail, appName, appUrl });
      return { emailed: true };
    },
  );

  // The 6-digit code of a welcome or reset message, for an authGuid that logs in and sets one password.
  app.post(
    `${base}/verifyCode`,
    {
      config: { access: 'public' },
      schema: {
        body: z.object({ email: Email, code: z.string().trim().regex(/^\d{6}$/, 'must be the 6-digit code from the message') }),
        response: { 200: z.object({ authGuid: z.string() }) },
      },
    },
    async (req) => ({ authGuid: await verifyCode(app.db, deps, req.body.email, req.body.code) }),
  );

  // After a failed sign-in and on the register form: is there an account? People records are never matched here
  // (a public route would tell anyone which church an address belongs to): `peopleMatches` is always empty, and
  // a new account finds its person when it selects the church, by the address it has proved (`claim`).
  app.post(
    `${base}/checkEmail`,
    {
      config: { access: 'public' },
      schema: {
        body: z.object({ email: Email }),
        response: {
          200: z.object({
            exists: z.boolean(),
            peopleMatches: z.array(z.object({ firstName: z.string(), lastName: z.string(), churchId: z.string(), churchName: z.string() })),
          }),
        },
      },
    },
    async (req) => ({ exists: Boolean(await findUserByEmail(app.db, req.body.email)), peopleMatches: [] }),
  );

  // Staff who just added someone to a group or a role tell them (B1Admin's invite dialog).
  app.post(
    `${base}/sendInviteEmail`,
    {
      config: { access: requires('People.Edit or GroupMembers.Edit or Roles.Edit') },
      schema: {
        body: z.object({
          email: Email,
          contextName: z.string().trim().min(1, 'contextName is required').max(200),
          personName: z.string().max(200).optional(),
          churchName: z.string().max(200).optional(),
          appName: AppName.optional(),
          appUrl: AppUrl.optional(),
        }),
        response: { 200: Done },
      },
    },
    async (req) => {
      await sendInvite(app.db, deps, req.auth.churchId, req.body);
      return { success: true };
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
    { config: { access: userSession }, schema: { body: z.object({ firstName: Text.min(1), lastName: Text, ...OtherUser }), response: { 200: UserOut } } },
    async (req) => {
      const { userId, firstName, lastName } = req.body;
      const target = accountOf(req.auth, userId);
      const user = await updateUser(app.db, target, { firstName, lastName });
      if (!user && target !== req.auth.id) throw notFound('User');
      return toUser(ownUser(user));
    },
  );

  // The new address gets a confirmation link; the account keeps its email until the link is followed
  // (`confirmEmail`), so the answer is the account as it still is.
  app.post(
    `${base}/updateEmail`,
    {
      config: { access: userSession },
      schema: { body: z.object({ email: Email, appName: AppName.optional(), appUrl: AppUrl.optional(), ...OtherUser }), response: { 200: UserOut } },
    },
    async (req) => {
      const target = accountOf(req.auth, req.body.userId);
      const found = await findUserById(app.db, target);
      if (!found && target !== req.auth.id) throw notFound('User');
      const user = ownUser(found);
      await requestEmailChange(app.db, deps, user, req.body.email, req.body);
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
        await ownUser(await updateUser(tx, req.auth.id, { passwordHash, ...NO_LINK_OR_CODE }));
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

  // Server admins: a user's account and the churches it reaches, by link (`viaMembership`) or by role (`viaRoles`).
  app.get(`${base}/:id/details`, { config: { access: requires('Server.Admin') }, schema: { params: IdParams, response: { 200: UserDetails } } }, (req) =>
    userDetails(app.deps, req.params.id),
  );

  // Server admins sign in as a user to see what they see: a short-lived token of the user without a church, which
  // the app exchanges at once (`login {jwt}`) for the user's own login. Every use is written to the audit log of
  // the admin's church and to the service log.
  app.get(
    `${base}/:id/impersonate`,
    { config: { access: requires('Server.Admin') }, schema: { params: IdParams, response: { 200: z.object({ jwt: z.string() }) } } },
    (req) => impersonateUser(app.deps, actorOf(req), req.params.id),
  );

  app.delete(base, { config: { access: userSession }, schema: { response: { 200: z.object({}) } } }, async (req) => {
    await deleteAccount(app.deps, req.auth.id);
    return {};
  });
}

/** The account an account change is about: the caller's, or (server admins only) the one `userId` names. */
function accountOf(auth: Claims, userId: string | undefined): string {
  if (!userId || userId === auth.id) return auth.id;
  if (!isServerAdmin(auth)) throw unauthorized("Only server admins can change another user's account");
  return userId;
}

/** The caller's own account; a token of a deleted user answers 401. */
function ownUser<T>(row: T | undefined): T {
  if (!row) throw unauthorized('User no longer exists');
  return row;
}
