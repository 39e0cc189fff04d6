import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { SERVER_ADMIN, hashPassword, temporaryPassword } from '@church/auth';
import { badRequest, conflict, emailOf, escapeHtml, type Db, type DbOrTx } from '@church/common';
import type { MembershipDeps } from '../deps';
import { SERVER_CHURCH_ID } from '../db/schema';
import { addRoleMember, findRoleByName, insertRole, insertRolePermissions } from '../repos/roles';
import {
  countCodeTry,
  countUsers,
  dropCode,
  findUserByEmail,
  insertUser,
  liveAuthGuid,
  lockRegistrations,
  spendAuthGuid,
  spendCode,
  updateUser,
  userOfEmailGuid,
  type UserRow,
} from '../repos/users';
import { allowedAppUrl, appLink, appNameText } from './app-links';
import { clock, secondsFromNow } from './clock';
import { randomSecret, sha256 } from './secrets';

/** How long the link of a welcome message works; reset links are short-lived because they are asked for. */
export const WELCOME_GUID_SECONDS = 24 * 3600;
export const RESET_GUID_SECONDS = 3600;
/** How long an email-change confirmation link works. */
export const EMAIL_GUID_SECONDS = 24 * 3600;
/** The 6-digit code mailed beside a welcome or reset link: short-lived, and a few tries only (10^6 codes). */
export const VERIFY_CODE_SECONDS = 15 * 60;
export const VERIFY_CODE_TRIES = 5;
/** The guid `verifyCode` answers: the person is on the set-password screen now. */
export const CODE_GUID_SECONDS = 3600;
const WRONG_CODE = 'This code is wrong or has expired';

/** Password hashing, as one object so that tests can watch when it happens. */
export const passwords = { hash: hashPassword };

/** Name of the server-wide role whose members are server admins. */
export const SERVER_ADMIN_ROLE = 'Server Admins';

export interface AppLink {
  appName?: string;
  appUrl?: string;
}


/**
 * Creates a user with a temporary password; the first user of the instance becomes server admin. The welcome
 * message carries a link (24 hours) and a 6-digit code (15 minutes) for apps that ask for one (`verifyCode`).
 */
export async function registerUser(
  db: Db,
  deps: MembershipDeps,
  input: { email: string; firstName: string; lastName: string } & AppLink,
): Promise<UserRow> {
  const passwordHash = await hashPassword(temporaryPassword(), input.email.trim().toLowerCase());
  const id = randomUUID();
  const access = newAccess(deps, id, WELCOME_GUID_SECONDS);
  const link = appLink(await allowedAppUrl(db, deps.config, input.appUrl), 'login', access.authGuid, access.columns.authGuidExpiresAt);
  const appName = appNameText(input.appName);
  // The welcome message is queued in the account's transaction: it exists exactly when the account does.
  return db.transaction(async (tx) => {
    // Registrations one at a time, so that exactly one user can be "the first user of a new instance".
    await lockRegistrations(tx);
    // B1App's register form looks for "user already exists" in the message to offer signing in instead.
    if (await findUserByEmail(tx, input.email)) throw badRequest('email', 'A user already exists with this email: sign in instead');
    const first = (await countUsers(tx)) === 0;
    const created = await insertUser(tx, { id, email: input.email, firstName: input.firstName, lastName: input.lastName, passwordHash, ...access.columns });
    if (first) await makeServerAdmin(tx, created.id);
    await deps.queue.enqueue(
      emailOf('membership'),
      {
        to: created.email,
        subject: `Welcome to ${appName}`,
        html:
          `<p>Hello ${escapeHtml(created.firstName ?? '')},</p>` +
          `<p>An account was created for you at ${appName}. Follow this link within 24 hours to sign in and choose a password:</p>` +
          `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
          codeParagraph(access.code, 'to finish creating your account'),
      },
      { tx },
    );
    return created;
  });
}

/**
 * Sends a reset link and code when the email belongs to a user (the `membership.passwordReset` job runs it after
 * `forgot` has answered, so known and unknown emails take the same path and time).
 */
export async function sendReset(db: Db, deps: MembershipDeps, email: string, app: AppLink): Promise<void> {
  const user = await findUserByEmail(db, email);
  if (!user) return;
  const access = newAccess(deps, user.id, RESET_GUID_SECONDS);
  const link = appLink(await allowedAppUrl(db, deps.config, app.appUrl), 'login', access.authGuid, access.columns.authGuidExpiresAt);
  const appName = appNameText(app.appName);
  // The new guid and the message that carries it commit together: a retry never leaves a guid nobody received.
  await db.transaction(async (tx) => {
    await updateUser(tx, user.id, access.columns);
    await deps.queue.enqueue(
      emailOf('membership'),
      {
        to: user.email,
        subject: `${appName} password reset`,
        html:
          `<p>Someone asked to reset the password of your ${appName} account.</p>` +
          `<p>Follow this link within 1 hour to choose a new password:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
          codeParagraph(access.code, 'to reset your password') +
          `<p>If you did not ask for this, ignore this message.</p>`,
      },
      { tx },
    );
  });
}

/** A new link guid and code for a user: the columns to store (hashes and expiries) and the secrets to mail. */
function newAccess(deps: MembershipDeps, userId: string, guidSeconds: number) {
  const authGuid = randomSecret();
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  return {
    authGuid,
    code,
    columns: {
      authGuidHash: sha256(authGuid),
      authGuidExpiresAt: secondsFromNow(guidSeconds),
      verifyCodeHash: codeHash(deps, userId, code),
      verifyCodeExpiresAt: secondsFromNow(VERIFY_CODE_SECONDS),
      verifyCodeAttempts: 0,
    },
  };
}

const codeParagraph = (code: string, purpose: string) =>
  `<p>Or enter this code in the app ${purpose} (it works for 15 minutes):</p>` +
  `<p style="font-size:28px;font-weight:bold;letter-spacing:6px;font-family:monospace">${code}</p>`;

/**
 * A code is stored as an HMAC keyed by the server's secret, bound to its user: 10^6 codes are nothing to
 * brute-force from a plain hash, but without the key a copy of the database does not give them away.
 */
function codeHash(deps: MembershipDeps, userId: string, code: string): string {
  return createHmac('sha256', deps.config.ENCRYPTION_KEY).update(`verify-code:${userId}:${code}`).digest('hex');
}

/**
 * `verifyCode`: the user's live code, tried at most `VERIFY_CODE_TRIES` times (each try is counted in the same
 * statement that reads the code, so concurrent tries cannot exceed it; after the last wrong one the code is
 * gone). A right code is spent and answered with a new authGuid (1 hour), which replaces any mailed link: it
 * logs in and sets one password, like the link. Wrong, expired, unknown email → 400 on `code`, all alike.
 */
export async function verifyCode(db: DbOrTx, deps: MembershipDeps, email: string, code: string): Promise<string> {
  const row = await countCodeTry(db, email, clock.now());
  if (!row?.verifyCodeHash || row.tries > VERIFY_CODE_TRIES) throw badRequest('code', WRONG_CODE);
  if (!sameHex(codeHash(deps, row.id, code), row.verifyCodeHash)) {
    if (row.tries < VERIFY_CODE_TRIES) throw badRequest('code', WRONG_CODE);
    await dropCode(db, row.id, row.verifyCodeHash);
    throw badRequest('code', 'This code is wrong, and it was tried too many times: ask for a new code');
  }
  const authGuid = randomSecret();
  const spent = await spendCode(db, row.id, row.verifyCodeHash, { authGuidHash: sha256(authGuid), authGuidExpiresAt: secondsFromNow(CODE_GUID_SECONDS) });
  if (!spent) throw badRequest('code', WRONG_CODE);
  return authGuid;
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/**
 * `setPasswordGuid`: the guid is checked before the (deliberately slow) password hash is computed, so a bad or
 * spent guid costs no hashing; the guid is then spent and the password set in one statement.
 */
export async function setPasswordWithGuid(db: DbOrTx, authGuid: string, newPassword: string): Promise<boolean> {
  const guidHash = sha256(authGuid);
  if (!(await liveAuthGuid(db, guidHash, clock.now()))) return false;
  return Boolean(await spendAuthGuid(db, guidHash, clock.now(), await passwords.hash(newPassword)));
}

/**
 * `updateEmail`: the new address is kept as pending and gets a confirmation link
 * (`<appUrl>/confirm-email?auth=<guid>`, 24 hours); the account's email changes only when the link is followed
 * (`confirmEmail`). An address another account uses → 409.
 */
export async function requestEmailChange(db: Db, deps: MembershipDeps, user: UserRow, email: string, app: AppLink): Promise<void> {
  const taken = await findUserByEmail(db, email);
  if (taken && taken.id !== user.id) throw conflict('Another account uses this email', 'email');
  if (user.email === email) {
    await updateUser(db, user.id, { pendingEmail: null, emailGuidHash: null, emailGuidExpiresAt: null });
    return;
  }
  const guid = randomSecret();
  const link = appLink(await allowedAppUrl(db, deps.config, app.appUrl), 'confirm-email', guid);
  const appName = appNameText(app.appName);
  await db.transaction(async (tx) => {
    await updateUser(tx, user.id, { pendingEmail: email, emailGuidHash: sha256(guid), emailGuidExpiresAt: secondsFromNow(EMAIL_GUID_SECONDS) });
    await deps.queue.enqueue(
      emailOf('membership'),
      {
        to: email,
        subject: `Confirm your new ${appName} email address`,
        html:
          `<p>Someone asked to use this address for a ${appName} account.</p>` +
          `<p>Follow this link within 24 hours to confirm it:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
          `<p>If you did not ask for this, ignore this message: the account keeps its current address.</p>`,
      },
      { tx },
    );
  });
}

/** `confirmEmail`: applies the pending address of the link's guid (once); undefined for a bad, used or expired guid. */
export async function confirmEmailChange(db: Db, guid: string): Promise<UserRow | undefined> {
  return db.transaction(async (tx) => {
    const user = await userOfEmailGuid(tx, sha256(guid), clock.now());
    if (!user?.pendingEmail) return undefined;
    const taken = await findUserByEmail(tx, user.pendingEmail);
    if (taken && taken.id !== user.id) throw conflict('Another account uses this email', 'email');
    return updateUser(tx, user.id, { email: user.pendingEmail, emailVerified: true, pendingEmail: null, emailGuidHash: null, emailGuidExpiresAt: null });
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
    passwordHash: await hashPassword(temporaryPassword(), input.email.trim().toLowerCase()),
  });
}
