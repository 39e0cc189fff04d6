import type { z } from 'zod';
import { LOGIN_TOKEN_SECONDS } from '@church/auth';
import { notFound, unauthorized, type Actor } from '@church/common';
import type { MembershipDeps } from '../deps';
import { churchesWithRolesOf, deleteUserChurchesOf, userChurchesOf } from '../repos/churches';
import { deleteOauthGrantsOfUser } from '../repos/oauth';
import { unlinkUser } from '../repos/people-links';
import { deleteMembershipsOfUser, serverPermissions } from '../repos/roles';
import { deleteUserRow, findUserById } from '../repos/users';
import type { UserDetails } from '../schemas/users';
import { audit } from './audit';
import { claimsFor } from './login';
import { announce, revokeTokens } from './revocations';

/** The token an impersonation answers is only for logging in as the user (`login {jwt}`), right away. */
const IMPERSONATION_TOKEN_SECONDS = 10 * 60;

/** Server admins: a user's account and the churches it reaches, by link (`viaMembership`) or by role (`viaRoles`). */
export async function userDetails(deps: Pick<MembershipDeps, 'db'>, id: string): Promise<z.output<typeof UserDetails>> {
  const user = await findUserById(deps.db, id);
  if (!user) throw notFound('User');
  const churches = new Map<string, z.output<typeof UserDetails>['churches'][number]>();
  const add = (c: { id: string; name: string; subDomain: string | null }, via: 'viaMembership' | 'viaRoles') => {
    const entry = churches.get(c.id) ?? { id: c.id, name: c.name, subDomain: c.subDomain, viaMembership: false, viaRoles: false };
    entry[via] = true;
    churches.set(c.id, entry);
  };
  for (const { church } of await userChurchesOf(deps.db, user.id)) add(church, 'viaMembership');
  for (const church of await churchesWithRolesOf(deps.db, user.id)) add(church, 'viaRoles');
  const { email, firstName, lastName, createdAt, lastLogin } = user;
  return { id: user.id, email, firstName, lastName, registrationDate: createdAt, lastLogin, churches: [...churches.values()] };
}

/**
 * A server admin signs in as a user to see what they see: a short-lived token of the user without a church, which
 * the app exchanges at once (`login {jwt}`) for the user's own login. Every use is written to the audit log of the
 * admin's church and to the service log.
 */
export async function impersonateUser(deps: Pick<MembershipDeps, 'db' | 'signToken'>, actor: Actor, userId: string): Promise<{ jwt: string }> {
  if (actor.scope !== undefined) throw unauthorized('OAuth access tokens cannot impersonate');
  const user = await findUserById(deps.db, userId);
  if (!user) throw notFound('User');
  const jwt = deps.signToken(claimsFor(user, undefined, await serverPermissions(deps.db, user.id)), Math.min(IMPERSONATION_TOKEN_SECONDS, LOGIN_TOKEN_SECONDS));
  await audit(deps.db, actor, actor.churchId, {
    category: 'login',
    action: 'impersonate_user',
    entityType: 'user',
    entityId: user.id,
    details: { adminEmail: actor.email, userEmail: user.email },
  });
  return { jwt };
}

/**
 * Deletes the user's account: their people stay (history names them) but no longer point at it; their roles, church
 * links and app grants go, and every token of theirs is refused at once.
 */
export async function deleteAccount(deps: Pick<MembershipDeps, 'db' | 'revocations'>, userId: string): Promise<void> {
  const stamps = await deps.db.transaction(async (tx) => {
    const churchIds = (await userChurchesOf(tx, userId)).map((l) => l.church.id);
    await unlinkUser(tx, userId, churchIds);
    await deleteMembershipsOfUser(tx, userId, null);
    await deleteUserChurchesOf(tx, userId);
    await deleteOauthGrantsOfUser(tx, userId);
    await deleteUserRow(tx, userId);
    return revokeTokens(tx, [{ userId }]);
  });
  await announce(deps, stamps);
}
