import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { SERVER_ADMIN, hashPassword, temporaryPassword } from '@church/auth';
import { badRequest, escapeHtml, type Db, type DbOrTx, type ServiceDeps } from '@church/common';
import { SERVER_CHURCH_ID } from '../db/schema';
import { addRoleMember, findRoleByName, insertRole, insertRolePermissions } from '../repos/roles';
import { countUsers, findUserByEmail, insertUser, updateUser, type UserRow } from '../repos/users';
import { secondsFromNow } from './clock';
import { randomSecret, sha256 } from './secrets';

/** How long the link of a welcome message works; reset links are short-lived because they are asked for. */
export const WELCOME_GUID_SECONDS = 24 * 3600;
export const RESET_GUID_SECONDS = 3600;

/** Name of the server-wide role whose members are server admins. */
export const SERVER_ADMIN_ROLE = 'Server Admins';

// Serialises registrations so that exactly one user can be "the first user of a new instance".
const REGISTER_LOCK = 7_316_001;

export interface AppLink {
  appName: string;
  appUrl: string;
}

/** `<appUrl>/login?auth=<authGuid>`: where the app picks the guid up and logs in with it. */
export function authLink(appUrl: string, authGuid: string): string {
  const url = new URL(appUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/login`;
  url.searchParams.set('auth', authGuid);
  return url.toString();
}

/** Creates a user with a temporary password; the first user of the instance becomes server admin. */
export async function registerUser(
  db: Db,
  deps: ServiceDeps,
  input: { email: string; firstName: string; lastName: string } & AppLink,
): Promise<UserRow> {
  const passwordHash = await hashPassword(temporaryPassword());
  const authGuid = randomSecret();
  const user = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REGISTER_LOCK})`);
    if (await findUserByEmail(tx, input.email)) throw badRequest('email', 'A user with this email already exists');
    const first = (await countUsers(tx)) === 0;
    const created = await insertUser(tx, {
      id: randomUUID(),
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      passwordHash,
      authGuidHash: sha256(authGuid),
      authGuidExpiresAt: secondsFromNow(WELCOME_GUID_SECONDS),
    });
    if (first) await makeServerAdmin(tx, created.id);
    return created;
  });
  const link = authLink(input.appUrl, authGuid);
  await deps.queue.enqueue('membership.email', {
    to: user.email,
    subject: `Welcome to ${input.appName}`,
    html:
      `<p>Hello ${escapeHtml(user.firstName ?? '')},</p>` +
      `<p>An account was created for you at ${escapeHtml(input.appName)}. Follow this link within 24 hours to sign in and choose a password:</p>` +
      `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
  });
  return user;
}

/** Sends a reset link when the email belongs to a user; callers answer the same either way. */
export async function sendReset(db: DbOrTx, deps: ServiceDeps, email: string, app: AppLink): Promise<void> {
  const user = await findUserByEmail(db, email);
  if (!user) return;
  const authGuid = randomSecret();
  await updateUser(db, user.id, { authGuidHash: sha256(authGuid), authGuidExpiresAt: secondsFromNow(RESET_GUID_SECONDS) });
  const link = authLink(app.appUrl, authGuid);
  await deps.queue.enqueue('membership.email', {
    to: user.email,
    subject: `${app.appName} password reset`,
    html:
      `<p>Someone asked to reset the password of your ${escapeHtml(app.appName)} account.</p>` +
      `<p>Follow this link within 1 hour to choose a new password:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
      `<p>If you did not ask for this, ignore this message.</p>`,
  });
}

/** Puts the user in the server-wide admin role (created with Server.Admin on first use). */
export async function makeServerAdmin(db: DbOrTx, userId: string): Promise<void> {
  let role = await findRoleByName(db, SERVER_CHURCH_ID, SERVER_ADMIN_ROLE);
  if (!role) {
    role = await insertRole(db, SERVER_CHURCH_ID, SERVER_ADMIN_ROLE);
    await insertRolePermissions(db, [
      { churchId: SERVER_CHURCH_ID, roleId: role.id, apiName: SERVER_ADMIN.apiName, contentType: SERVER_ADMIN.contentType, action: SERVER_ADMIN.action },
    ]);
  }
  await addRoleMember(db, { churchId: SERVER_CHURCH_ID, roleId: role.id, userId });
}

/** Finds a user by email or creates one with a temporary password (role members, loadOrCreate). */
export async function findOrCreateUser(db: DbOrTx, input: { email: string; firstName?: string | null; lastName?: string | null }): Promise<UserRow> {
  const existing = await findUserByEmail(db, input.email);
  if (existing) return existing;
  return insertUser(db, {
    id: randomUUID(),
    email: input.email,
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    passwordHash: await hashPassword(temporaryPassword()),
  });
}
