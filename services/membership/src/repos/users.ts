import { and, eq, gt, ilike, isNotNull, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { users } from '../db/schema';

export type UserRow = typeof users.$inferSelect;

/** Emails are unique case-insensitively (users_email_uq is on lower(email)). */
export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`).limit(1);
  return row;
}

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function insertUser(db: DbOrTx, values: typeof users.$inferInsert): Promise<UserRow> {
  const [row] = await db.insert(users).values(values).returning();
  return row!;
}

export async function updateUser(db: DbOrTx, id: string, values: Partial<typeof users.$inferInsert>): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

export async function countUsers(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return Number(row?.n ?? 0);
}

/**
 * Logging in with an authGuid (a welcome, reset or invitation link, or the guid `verifyCode` answers): the user
 * while the guid has not expired. The guid is not spent: the apps' set-password page logs in with it to greet
 * the person, then sets the password with the same guid. Following a link mailed to the address proves the
 * address (`emailVerified`), in the same statement.
 */
export async function userOfAuthGuid(db: DbOrTx, guidHash: string, now: Date): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ emailVerified: true })
    .where(and(eq(users.authGuidHash, guidHash), gt(users.authGuidExpiresAt, now)))
    .returning();
  return row;
}

/**
 * Spends the (hashed) authGuid while it has not expired and sets the password, in one statement: two requests
 * racing with the same guid cannot both succeed. Any code mailed with it goes too, and the address is proved
 * (`emailVerified`). The user, or undefined when the guid is unknown, used or expired.
 */
export async function spendAuthGuid(db: DbOrTx, guidHash: string, now: Date, passwordHash: string): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ passwordHash, ...NO_LINK_OR_CODE, emailVerified: true, updatedAt: now })
    .where(and(eq(users.authGuidHash, guidHash), gt(users.authGuidExpiresAt, now)))
    .returning();
  return row;
}

/** The columns of an outstanding link and code, cleared: what a password change spends. */
export const NO_LINK_OR_CODE = { authGuidHash: null, authGuidExpiresAt: null, verifyCodeHash: null, verifyCodeExpiresAt: null, verifyCodeAttempts: 0 };

/** Users whose name or email contains the term (server admins only; not church data). */
export async function searchUsers(db: DbOrTx, term: string, limit = 100): Promise<UserRow[]> {
  const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db
    .select()
    .from(users)
    .where(or(ilike(users.email, like), ilike(users.firstName, like), ilike(users.lastName, like), ilike(sql`${users.firstName} || ' ' || ${users.lastName}`, like)))
    .orderBy(users.lastName, users.firstName)
    .limit(limit);
}

export async function deleteUserRow(db: DbOrTx, id: string): Promise<void> {
  await db.delete(users).where(eq(users.id, id));
}

// Serialises registrations so that exactly one user can be "the first user of a new instance".
const REGISTER_LOCK = 7_316_001;

/** Takes the registration lock for the rest of the transaction (`registerUser`: who is the first user). */
export async function lockRegistrations(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${REGISTER_LOCK})`);
}

/**
 * Counts one try of the live code of the user with this email, in the statement that reads it (so concurrent
 * tries cannot exceed the limit): the user, the code's hash and the tries so far, or undefined when the email has
 * no live code.
 */
export async function countCodeTry(db: DbOrTx, email: string, now: Date): Promise<{ id: string; verifyCodeHash: string | null; tries: number } | undefined> {
  const [row] = await db
    .update(users)
    .set({ verifyCodeAttempts: sql`${users.verifyCodeAttempts} + 1` })
    .where(and(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`, isNotNull(users.verifyCodeHash), gt(users.verifyCodeExpiresAt, now)))
    .returning({ id: users.id, verifyCodeHash: users.verifyCodeHash, tries: users.verifyCodeAttempts });
  return row;
}

/** The user while their code is still `codeHash` (nobody spent or replaced it meanwhile). */
const sameCode = (id: string, codeHash: string) => and(eq(users.id, id), eq(users.verifyCodeHash, codeHash));

/** Drops the user's code (tried too many times), unless it has changed since it was read. */
export async function dropCode(db: DbOrTx, id: string, codeHash: string): Promise<void> {
  await db.update(users).set({ verifyCodeHash: null, verifyCodeExpiresAt: null }).where(sameCode(id, codeHash));
}

/**
 * Spends the user's code for a new link guid (its hash and expiry), unless the code has changed since it was read:
 * the user's id, or undefined when it had.
 */
export async function spendCode(db: DbOrTx, id: string, codeHash: string, guid: { authGuidHash: string; authGuidExpiresAt: Date }): Promise<{ id: string } | undefined> {
  const [spent] = await db
    .update(users)
    .set({ verifyCodeHash: null, verifyCodeExpiresAt: null, verifyCodeAttempts: 0, ...guid })
    .where(sameCode(id, codeHash))
    .returning({ id: users.id });
  return spent;
}

/** The id of the user whose (hashed) authGuid has not expired, without spending it. */
export async function liveAuthGuid(db: DbOrTx, guidHash: string, now: Date): Promise<{ id: string } | undefined> {
  const [live] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.authGuidHash, guidHash), gt(users.authGuidExpiresAt, now)))
    .limit(1);
  return live;
}

/** The user whose (hashed) email-change guid has not expired, locked for the rest of the transaction. */
export async function userOfEmailGuid(tx: DbOrTx, guidHash: string, now: Date): Promise<UserRow | undefined> {
  const [user] = await tx
    .select()
    .from(users)
    .where(and(eq(users.emailGuidHash, guidHash), gt(users.emailGuidExpiresAt, now)))
    .limit(1)
    .for('update');
  return user;
}

/** Records when the user last logged in (no other column changes, `updatedAt` included). */
export async function setLastLogin(db: DbOrTx, id: string, at: Date): Promise<void> {
  await db.update(users).set({ lastLogin: at }).where(eq(users.id, id));
}
