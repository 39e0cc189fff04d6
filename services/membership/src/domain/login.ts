import { z } from 'zod';
import { LOGIN_TOKEN_SECONDS, hashPassword, verifyPassword, type Claims } from '@church/auth';
import { badRequest, unauthorized, type DbOrTx, type ServiceDeps } from '@church/common';
import { SERVER_CHURCH_ID } from '../db/schema';
import { type ChurchRow, type UserChurchRow, findChurch, findUserChurch, touchChurch, userChurchesOf } from '../repos/churches';
import { serverPermissions } from '../repos/roles';
import { findUserByEmail, findUserById, setLastLogin, userOfAuthGuid, type UserRow } from '../repos/users';
import { clock } from './clock';
import { apisOf, churchContexts, holdsServerAdmin, tokenPermissions, type ChurchContext } from './roles/permissions';
import { sha256 } from './secrets';
import { PublicChurch } from '../schemas/churches';

/** What user routes answer (never a password hash or authGuid). */
export const UserOut = z.object({ id: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable(), email: z.string() });

/**
 * The spec types the login response's names, person id and membership status as strings: a user created without
 * names (a role member added by email, `loadOrCreate`) and a church where the user has no person answer `''`.
 */
const LoginUser = z.object({ id: z.string(), firstName: z.string(), lastName: z.string(), email: z.string() });

const LoginChurch = z.object({
  church: z.object({ id: z.string(), name: z.string(), subDomain: z.string().nullable() }),
  person: z.object({ id: z.string(), membershipStatus: z.string() }),
  groups: z.array(z.object({ id: z.string(), name: z.string(), leader: z.boolean() })),
  apis: z.array(z.object({ keyName: z.string(), permissions: z.array(z.object({ contentType: z.string(), action: z.string() })) })),
});

/**
 * One church of the user as the apps read it (`LoginUserChurchInterface`): the church with its address, the
 * person, groups with their tags as the comma string the apps split, and per API its permissions (the reporting
 * API's naming their `apiName`) and the token the app sends to that API; `jwt` is the church's token.
 */
export const UserChurch = z.object({
  church: PublicChurch.extend({ archivedDate: z.date().nullable() }),
  person: z.object({ id: z.string(), membershipStatus: z.string() }),
  groups: z.array(z.object({ id: z.string(), name: z.string(), leader: z.boolean(), tags: z.string() })),
  apis: z.array(
    z.object({
      keyName: z.string(),
      permissions: z.array(z.object({ contentType: z.string(), action: z.string(), apiName: z.string().optional() })),
      jwt: z.string(),
    }),
  ),
  jwt: z.string(),
});
export type UserChurch = z.output<typeof UserChurch>;

/**
 * The spec's login response object (`user`, `churches`, `token`) with what the apps read besides: `user.jwt` (a
 * token of the user without a church, for choosing or adding one) and `userChurches[]`, each with its own token.
 */
export const LoginResponse = z.object({
  user: LoginUser.extend({ jwt: z.string() }),
  churches: z.array(LoginChurch),
  token: z.string(),
  userChurches: z.array(UserChurch),
});
export type LoginResponse = z.output<typeof LoginResponse>;

/** `churches/select`: the chosen church as the apps read it, and the spec's `token` for it. */
export const SelectResponse = UserChurch.extend({ token: z.string() });

export const toUser = (u: UserRow) => ({ id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email });

// A real argon2id hash of a random password: unknown emails cost the same time as wrong passwords.
let dummyHash: Promise<string> | undefined;

/** The user behind an email and password, or 401 (the same for an unknown email and a wrong password). */
export async function userByPassword(db: DbOrTx, email: string, password: string): Promise<UserRow> {
  const user = await findUserByEmail(db, email);
  // The account (the address as typed, lower-cased) is the hashing queue's key: a flood of sign-ins against one
  // account waits behind itself and cannot starve the others (packages/auth password.ts).
  const account = email.trim().toLowerCase();
  if (!user) {
    dummyHash ??= hashPassword(sha256(String(Math.random())));
    await verifyPassword(await dummyHash, password, account);
    throw unauthorized('Invalid email or password');
  }
  if (!(await verifyPassword(user.passwordHash, password, account))) throw unauthorized('Invalid email or password');
  return user;
}

/**
 * Re-authentication with a login token; OAuth tokens (which carry `scope`) cannot be widened this way. Only the
 * user id and church of the token are used: the user must still exist (a deleted user → 401), and everything
 * else (roles, church links, person) is read again by `loginResponse`.
 */
export async function userByJwt(db: DbOrTx, deps: ServiceDeps, jwt: string): Promise<{ user: UserRow; churchId: string }> {
  let claims: Claims;
  try {
    claims = deps.verifyToken(jwt);
  } catch {
    throw unauthorized('Invalid or expired token');
  }
  if (claims.scope !== undefined) throw unauthorized('OAuth access tokens cannot be used to log in');
  // A token from before a password change, deletion or loss of the church mints nothing new.
  if (deps.revocations.isRevoked(claims)) throw unauthorized('Invalid or expired token');
  const user = await findUserById(db, claims.id);
  if (!user) throw unauthorized('Invalid or expired token');
  return { user, churchId: claims.churchId };
}

/**
 * Logging in with an authGuid does not spend it: the apps' set-password page logs in with the link's guid to greet
 * the person, then sets the password with the same guid (`setPasswordGuid`, which spends it). Until then, or
 * until it expires, the guid only logs in and sets that one password (spec: a one-time authGuid).
 */
export async function userByAuthGuid(db: DbOrTx, authGuid: string): Promise<UserRow> {
  const user = await userOfAuthGuid(db, sha256(authGuid), clock.now());
  if (!user) throw unauthorized('Invalid or expired authGuid');
  return user;
}

export interface LoginOptions {
  /** scope the token to this church and list it first (church switch) */
  churchId?: string;
  /** a server admin acting in a church they may not belong to, with every permission */
  impersonate?: ChurchRow;
}

/**
 * The login response: every church of the user (archived ones only for server admins) with person, groups and
 * permissions, and a token for the chosen church — the one asked for, else the most recently accessed.
 */
export async function loginResponse(db: DbOrTx, deps: ServiceDeps, user: UserRow, opts: LoginOptions = {}): Promise<LoginResponse> {
  const server = await serverPermissions(db, user.id);
  const admin = holdsServerAdmin(server);
  let links: Array<{ church: ChurchRow; uc: UserChurchRow | null }> = (await userChurchesOf(db, user.id)).filter((l) => admin || !l.church.archivedDate);
  if (opts.impersonate) links = [links.find((l) => l.church.id === opts.impersonate!.id) ?? { church: opts.impersonate, uc: null }];
  const contexts = await churchContexts(db, user.id, links, server, { allPermissions: !!opts.impersonate });
  const chosenAt = opts.churchId ? contexts.findIndex((c) => c.church.id === opts.churchId) : 0;
  if (chosenAt > 0) contexts.unshift(...contexts.splice(chosenAt, 1));
  // One token per church, so the apps can switch between the user's churches without asking again.
  const tokens = contexts.map((c) => deps.signToken(claimsFor(user, c, server), LOGIN_TOKEN_SECONDS));
  const userJwt = deps.signToken(claimsFor(user, undefined, server), LOGIN_TOKEN_SECONDS);
  return {
    user: { id: user.id, firstName: user.firstName ?? '', lastName: user.lastName ?? '', email: user.email, jwt: userJwt },
    churches: contexts.map((c) => ({
      church: { id: c.church.id, name: c.church.name, subDomain: c.church.subDomain },
      person: { id: c.person.id ?? '', membershipStatus: c.person.membershipStatus ?? '' },
      groups: c.groups,
      apis: apisOf(c.permissions),
    })),
    token: tokens[0] ?? userJwt,
    userChurches: contexts.map((c, i) => userChurchOf(c, tokens[i]!)),
  };
}

/** A church context in the apps' shape, with its token on the church and on every API. */
function userChurchOf(c: ChurchContext, jwt: string): UserChurch {
  const { id, name, subDomain, address1, address2, city, state, zip, country, archivedDate } = c.church;
  return {
    church: { id, name, subDomain, address1, address2, city, state, zip, country, archivedDate },
    person: { id: c.person.id ?? '', membershipStatus: c.person.membershipStatus ?? '' },
    groups: c.groups.map((g) => ({ id: g.id, name: g.name, leader: g.leader, tags: g.tags.join(',') })),
    apis: apisOf(c.permissions, true).map((api) => ({ ...api, jwt })),
    jwt,
  };
}

/** `churches/select`'s answer: the chosen church of a login response, with the spec's `token`. */
export function selectedChurch(response: LoginResponse): z.output<typeof SelectResponse> {
  const chosen = response.userChurches[0];
  if (!chosen) throw unauthorized('The user has no access to this church');
  return { ...chosen, token: chosen.jwt };
}

/**
 * Claims of a login token. A user without any church gets a token for SERVER_CHURCH_ID (no church's data lives
 * there) so that they can call `churches/add`; only server-wide permissions come with it.
 */
export function claimsFor(user: UserRow, ctx: ChurchContext | undefined, server: ChurchContext['permissions']): Omit<Claims, 'iat' | 'exp'> {
  return {
    id: user.id,
    email: user.email,
    ...(user.firstName ? { firstName: user.firstName } : {}),
    ...(user.lastName ? { lastName: user.lastName } : {}),
    churchId: ctx?.church.id ?? SERVER_CHURCH_ID,
    personId: ctx?.person.id ?? null,
    membershipStatus: ctx?.person.membershipStatus ?? null,
    permissions: tokenPermissions(ctx ? ctx.permissions : server),
    leaderGroupIds: ctx ? ctx.groups.filter((g) => g.leader).map((g) => g.id) : [],
  };
}

/**
 * What a login token for the church would say of the user now (roles, permissions, person and led groups read
 * again), for work done on the user's behalf after their token was made; undefined when the user or church is
 * gone, or the user is not linked to the church (server admins are everywhere), as a login would have it.
 */
export async function claimsNow(db: DbOrTx, userId: string, churchId: string): Promise<{ user: UserRow; claims: Omit<Claims, 'iat' | 'exp'> } | undefined> {
  const [user, church] = await Promise.all([findUserById(db, userId), findChurch(db, churchId)]);
  if (!user || !church) return undefined;
  const server = await serverPermissions(db, user.id);
  const link = (await findUserChurch(db, user.id, church.id)) ?? null;
  if ((!link || church.archivedDate) && !holdsServerAdmin(server)) return undefined;
  const [ctx] = await churchContexts(db, user.id, [{ church, uc: link }], server);
  return { user, claims: claimsFor(user, ctx, server) };
}

/** Records a login: the user's last login and activity on the church the token is for. */
export async function recordLogin(db: DbOrTx, user: UserRow, response: LoginResponse): Promise<void> {
  const now = clock.now();
  await setLastLogin(db, user.id, now);
  const churchId = response.churches[0]?.church.id;
  if (churchId) await touchChurch(db, churchId, now);
}

/**
 * `users/login` with exactly one credential: email and password, a login token, or an authGuid. A token is
 * re-derived from the database: the user must still exist, and roles, church links and the person are read again;
 * the new token stays with the old one's church while the user is still linked to it. The login is recorded.
 */
export async function login(
  db: DbOrTx,
  deps: ServiceDeps,
  credentials: { email?: string; password?: string; jwt?: string; authGuid?: string },
): Promise<LoginResponse> {
  const { email, password, jwt, authGuid } = credentials;
  const kinds = [email || password ? 'email' : '', jwt ? 'jwt' : '', authGuid ? 'authGuid' : ''].filter(Boolean);
  if (kinds.length !== 1) throw badRequest(kinds[1] ?? 'email', 'Send exactly one credential: email and password, jwt, or authGuid');
  let user;
  let churchId: string | undefined;
  if (jwt) ({ user, churchId } = await userByJwt(db, deps, jwt));
  else if (authGuid) user = await userByAuthGuid(db, authGuid);
  else {
    if (!email) throw badRequest('email', 'email is required with password');
    if (!password) throw badRequest('password', 'password is required with email');
    user = await userByPassword(db, email, password);
  }
  const response = await loginResponse(db, deps, user, { churchId });
  await recordLogin(db, user, response);
  return response;
}
