import { randomUUID } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { sheetMusicRequests, sheetMusicTokens } from '../../db/media';

/** A user's linked account, as stored (encrypted). */
export async function storedToken(db: DbOrTx, churchId: string, userId: string) {
  const [row] = await db.select().from(sheetMusicTokens).where(and(eq(sheetMusicTokens.churchId, churchId), eq(sheetMusicTokens.userId, userId)));
  return row;
}

/** Keeps a user's (encrypted) access token, replacing the one they had. */
export async function storeToken(db: DbOrTx, churchId: string, userId: string, values: { token: string; secret: string }): Promise<void> {
  await db
    .insert(sheetMusicTokens)
    .values({ id: randomUUID(), churchId, userId, ...values })
    .onConflictDoUpdate({ target: [sheetMusicTokens.churchId, sheetMusicTokens.userId], set: { ...values, updatedAt: new Date() } });
}

/** Keeps a pending request token's (encrypted) secret, dropping those older than an hour. */
export async function keepRequest(db: DbOrTx, token: string, secret: string): Promise<void> {
  await db.delete(sheetMusicRequests).where(lt(sheetMusicRequests.createdAt, new Date(Date.now() - 3600_000)));
  await db.insert(sheetMusicRequests).values({ id: randomUUID(), token, secret }).onConflictDoNothing();
}

export async function pendingRequest(db: DbOrTx, token: string) {
  const [row] = await db.select().from(sheetMusicRequests).where(eq(sheetMusicRequests.token, token));
  return row;
}

export async function dropRequest(db: DbOrTx, token: string): Promise<void> {
  await db.delete(sheetMusicRequests).where(eq(sheetMusicRequests.token, token));
}
