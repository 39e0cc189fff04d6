import { randomUUID } from 'node:crypto';
import { hashPassword } from '@church/auth';
import { call, type TestApp } from '@church/common/testing';
import { makeServerAdmin } from '../src/domain/account';
import { insertUser, type UserRow } from '../src/repos/users';

// One argon2 hash for every factory user: hashing is deliberately slow.
let knownHash: Promise<string> | undefined;
export const PASSWORD = 'correct horse battery';

/** A user inserted directly, with password `PASSWORD`. */
export async function makeUser(t: TestApp, opts: { email?: string; firstName?: string; lastName?: string; serverAdmin?: boolean } = {}): Promise<UserRow> {
  knownHash ??= hashPassword(PASSWORD);
  const user = await insertUser(t.app.db, {
    id: randomUUID(),
    email: opts.email ?? `u-${randomUUID().slice(0, 8)}@example.test`,
    firstName: opts.firstName ?? 'Ada',
    lastName: opts.lastName ?? 'Lovelace',
    passwordHash: await knownHash,
  });
  if (opts.serverAdmin) await makeServerAdmin(t.app.db, user.id);
  return user;
}

/** Logs in with email and `PASSWORD`; the response body. */
export async function login(t: TestApp, email: string) {
  const res = await call(t.app, 'POST', '/membership/users/login', { body: { email, password: PASSWORD } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/**
 * A church registered the way clients do it: a user logs in, `POST /churches/add`, then `select`. Returns the
 * creator (a Domain Admin) and their church-scoped token.
 */
export async function registeredChurch(t: TestApp, opts: { name?: string; user?: UserRow } = {}) {
  const user = opts.user ?? (await makeUser(t));
  const first = await login(t, user.email);
  const add = await call(t.app, 'POST', '/membership/churches/add', {
    token: first.token,
    body: { name: opts.name ?? `Grace ${randomUUID().slice(0, 6)}`, address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
  });
  if (add.statusCode !== 200) throw new Error(`churches/add failed: ${add.statusCode} ${add.body}`);
  const church = add.json();
  const selected = await call(t.app, 'POST', '/membership/churches/select', { token: first.token, body: { churchId: church.id } });
  if (selected.statusCode !== 200) throw new Error(`select failed: ${selected.statusCode} ${selected.body}`);
  const body = selected.json();
  return { user, church, token: body.token as string, personId: body.person.id as string, login: body };
}

/** A second user linked to the church through select (Everyone permissions, a guest person). */
export async function joinAsGuest(t: TestApp, churchId: string, user?: UserRow) {
  const member = user ?? (await makeUser(t));
  const first = await login(t, member.email);
  const res = await call(t.app, 'POST', '/membership/churches/select', { token: first.token, body: { churchId } });
  if (res.statusCode !== 200) throw new Error(`select failed: ${res.statusCode} ${res.body}`);
  return { user: member, token: res.json().token as string, login: res.json() };
}

/** A server admin (a member of the server-wide role) and their login token. */
export async function serverAdmin(t: TestApp) {
  const user = await makeUser(t, { serverAdmin: true });
  const body = await login(t, user.email);
  return { user, token: body.token as string };
}

/** Decodes a JWT's claims without verifying (tests read what login signed). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}
