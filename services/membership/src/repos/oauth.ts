import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { oauthClients, oauthCodes, oauthDeviceCodes, oauthRefreshTokens, oauthRelaySessions } from '../db/schema';

export type OauthClientRow = typeof oauthClients.$inferSelect;
export type DeviceCodeRow = typeof oauthDeviceCodes.$inferSelect;

export async function listClients(db: DbOrTx): Promise<OauthClientRow[]> {
  return db.select().from(oauthClients).orderBy(asc(oauthClients.name));
}

export async function findClient(db: DbOrTx, id: string): Promise<OauthClientRow | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, id)).limit(1);
  return row;
}

export async function findClientByClientId(db: DbOrTx, clientId: string): Promise<OauthClientRow | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return row;
}

export async function insertClient(db: DbOrTx, values: Omit<typeof oauthClients.$inferInsert, 'id'>): Promise<OauthClientRow> {
  const [row] = await db
    .insert(oauthClients)
    .values({ id: randomUUID(), ...values })
    .returning();
  return row!;
}

export async function updateClient(db: DbOrTx, id: string, values: Partial<typeof oauthClients.$inferInsert>): Promise<OauthClientRow | undefined> {
  const [row] = await db
    .update(oauthClients)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(oauthClients.id, id))
    .returning();
  return row;
}

/** Deletes a client and every code, refresh token and device code issued to it. */
export async function deleteClientCascade(db: DbOrTx, id: string): Promise<boolean> {
  const [row] = await db.delete(oauthClients).where(eq(oauthClients.id, id)).returning();
  if (!row) return false;
  await db.delete(oauthCodes).where(eq(oauthCodes.clientId, row.clientId));
  await db.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.clientId, row.clientId));
  await db.delete(oauthDeviceCodes).where(eq(oauthDeviceCodes.clientId, row.clientId));
  return true;
}

export async function insertCode(db: DbOrTx, values: Omit<typeof oauthCodes.$inferInsert, 'id'>): Promise<void> {
  await db.insert(oauthCodes).values({ id: randomUUID(), ...values });
}

/** Marks a code used and returns it, only the first time and only while it is valid (single use under races). */
export async function spendCode(db: DbOrTx, codeHash: string, now: Date) {
  const [row] = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt), gt(oauthCodes.expiresAt, now)))
    .returning();
  return row;
}

export async function insertRefreshToken(db: DbOrTx, values: Omit<typeof oauthRefreshTokens.$inferInsert, 'id'>): Promise<void> {
  await db.insert(oauthRefreshTokens).values({ id: randomUUID(), ...values });
}

/** Revokes a refresh token and returns it, only if it was live (rotation: each refresh token works once). */
export async function spendRefreshToken(db: DbOrTx, tokenHash: string, now: Date) {
  const [row] = await db
    .update(oauthRefreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.revokedAt), gt(oauthRefreshTokens.expiresAt, now)))
    .returning();
  return row;
}

export async function deleteOauthGrantsOfUser(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(oauthCodes).where(eq(oauthCodes.userId, userId));
  await db.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.userId, userId));
  await db.delete(oauthDeviceCodes).where(eq(oauthDeviceCodes.userId, userId));
}

export async function insertDeviceCode(db: DbOrTx, values: Omit<typeof oauthDeviceCodes.$inferInsert, 'id'>): Promise<DeviceCodeRow> {
  const [row] = await db
    .insert(oauthDeviceCodes)
    .values({ id: randomUUID(), ...values })
    .returning();
  return row!;
}

export async function findDeviceCode(db: DbOrTx, deviceCodeHash: string): Promise<DeviceCodeRow | undefined> {
  const [row] = await db.select().from(oauthDeviceCodes).where(eq(oauthDeviceCodes.deviceCodeHash, deviceCodeHash)).limit(1);
  return row;
}

/** The live (unexpired, pending) device authorization with this user code. */
export async function pendingByUserCode(db: DbOrTx, userCode: string, now: Date): Promise<DeviceCodeRow | undefined> {
  const [row] = await db
    .select()
    .from(oauthDeviceCodes)
    .where(and(eq(oauthDeviceCodes.userCode, userCode), eq(oauthDeviceCodes.status, 'pending'), gt(oauthDeviceCodes.expiresAt, now)))
    .limit(1);
  return row;
}

/** Moves a live pending authorization to approved or denied; undefined when it was not pending any more. */
export async function decideDeviceCode(
  db: DbOrTx,
  userCode: string,
  now: Date,
  decision: { status: 'approved'; userId: string; churchId: string } | { status: 'denied'; userId: string },
): Promise<DeviceCodeRow | undefined> {
  const [row] = await db
    .update(oauthDeviceCodes)
    .set(decision)
    .where(and(eq(oauthDeviceCodes.userCode, userCode), eq(oauthDeviceCodes.status, 'pending'), gt(oauthDeviceCodes.expiresAt, now)))
    .returning();
  return row;
}

/** Records a poll; `slowDown` also widens the interval by 5 s (RFC 8628 §3.5). */
export async function recordPoll(db: DbOrTx, id: string, now: Date, slowDown: boolean): Promise<void> {
  await db
    .update(oauthDeviceCodes)
    .set({ lastPolledAt: now, ...(slowDown ? { pollInterval: sql`${oauthDeviceCodes.pollInterval} + 5` } : {}) })
    .where(eq(oauthDeviceCodes.id, id));
}

/** Spends an approved authorization: the token is issued once. */
export async function spendApprovedDeviceCode(db: DbOrTx, id: string): Promise<DeviceCodeRow | undefined> {
  const [row] = await db
    .update(oauthDeviceCodes)
    .set({ status: 'spent' })
    .where(and(eq(oauthDeviceCodes.id, id), eq(oauthDeviceCodes.status, 'approved')))
    .returning();
  return row;
}

/** The apps a user has connected in a church: their live refresh tokens (one per grant; rotation spends the old). */
export function liveGrantsOf(db: DbOrTx, userId: string, churchId: string, now: Date) {
  return db
    .select({
      id: oauthRefreshTokens.id,
      clientId: oauthRefreshTokens.clientId,
      clientName: oauthClients.name,
      scopes: oauthRefreshTokens.scopes,
      createdAt: oauthRefreshTokens.createdAt,
      expiresAt: oauthRefreshTokens.expiresAt,
    })
    .from(oauthRefreshTokens)
    .leftJoin(oauthClients, eq(oauthClients.clientId, oauthRefreshTokens.clientId))
    .where(and(eq(oauthRefreshTokens.churchId, churchId), eq(oauthRefreshTokens.userId, userId), isNull(oauthRefreshTokens.revokedAt), gt(oauthRefreshTokens.expiresAt, now)))
    .orderBy(desc(oauthRefreshTokens.createdAt));
}

/** Revokes one of the user's live grants in the church; the grant as it was, or undefined when it is not theirs. */
export async function revokeGrant(db: DbOrTx, userId: string, churchId: string, id: string, now: Date) {
  const [row] = await db
    .update(oauthRefreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthRefreshTokens.id, id), eq(oauthRefreshTokens.churchId, churchId), eq(oauthRefreshTokens.userId, userId), isNull(oauthRefreshTokens.revokedAt)))
    .returning();
  return row;
}

export async function insertRelaySession(db: DbOrTx, row: typeof oauthRelaySessions.$inferInsert): Promise<void> {
  await db.insert(oauthRelaySessions).values(row);
  // Expired sessions go as new ones come: the table holds only what is live.
  await db.delete(oauthRelaySessions).where(lt(oauthRelaySessions.expiresAt, sql`now() - interval '1 hour'`));
}

export async function liveRelaySession(db: DbOrTx, sessionCode: string, now: Date) {
  const [row] = await db
    .select()
    .from(oauthRelaySessions)
    .where(and(eq(oauthRelaySessions.sessionCode, sessionCode), gt(oauthRelaySessions.expiresAt, now)))
    .limit(1);
  return row;
}

/** Stores the provider's code on a pending session (once); false when there is none. */
export async function completeRelaySession(db: DbOrTx, sessionCode: string, encryptedCode: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(oauthRelaySessions)
    .set({ status: 'completed', authCode: encryptedCode })
    .where(and(eq(oauthRelaySessions.sessionCode, sessionCode), eq(oauthRelaySessions.status, 'pending'), gt(oauthRelaySessions.expiresAt, now)))
    .returning({ id: oauthRelaySessions.id });
  return rows.length > 0;
}

/** Hands a completed session's code out once: the session is deleted in the statement that reads it. */
export async function takeRelayCode(db: DbOrTx, sessionCode: string): Promise<string | null> {
  const [row] = await db
    .delete(oauthRelaySessions)
    .where(and(eq(oauthRelaySessions.sessionCode, sessionCode), eq(oauthRelaySessions.status, 'completed')))
    .returning({ authCode: oauthRelaySessions.authCode });
  return row?.authCode ?? null;
}
