import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { conflict, notFound, type Db, type DbOrTx, type SecretBox } from '@church/common';
import { contentProviderAuths } from '../db/schema';

export type ProviderAuthRow = typeof contentProviderAuths.$inferSelect;

/** A stored authorization as the API shows it: whether tokens exist, never the tokens. */
export function toAuthItem(row: ProviderAuthRow) {
  return {
    id: row.id,
    churchId: row.churchId,
    ministryId: row.ministryId,
    providerId: row.providerId,
    tokenType: row.tokenType,
    expiresAt: row.expiresAt,
    scopes: row.scopes,
    scope: row.scopes,
    hasAccessToken: !!row.accessToken,
    hasRefreshToken: !!row.refreshToken,
  };
}

export const authsOf = (db: DbOrTx, churchId: string, ministryId: string, providerId?: string) =>
  db
    .select()
    .from(contentProviderAuths)
    .where(and(eq(contentProviderAuths.churchId, churchId), eq(contentProviderAuths.ministryId, ministryId), providerId ? eq(contentProviderAuths.providerId, providerId) : undefined))
    .orderBy(desc(contentProviderAuths.updatedAt));

/** The ministry's newest authorization with a provider, tokens opened. */
export async function openAuth(db: DbOrTx, secrets: SecretBox, churchId: string, ministryId: string, providerId: string) {
  const [row] = await authsOf(db, churchId, ministryId, providerId);
  if (!row) return undefined;
  return { row, accessToken: row.accessToken ? secrets.decrypt(row.accessToken) : null, refreshToken: row.refreshToken ? secrets.decrypt(row.refreshToken) : null };
}

type Token = { accessToken: string; refreshToken?: string | null; tokenType?: string | null; expiresAt: Date | null; scopes?: string | null };

/** Saves refreshed tokens (sealed); a provider that sends no new refresh token keeps the old one. Answers the row. */
export async function saveTokens(db: DbOrTx, secrets: SecretBox, id: string, token: Token): Promise<ProviderAuthRow> {
  const [row] = await db
    .update(contentProviderAuths)
    .set({
      accessToken: secrets.encrypt(token.accessToken),
      ...(token.refreshToken ? { refreshToken: secrets.encrypt(token.refreshToken) } : {}),
      tokenType: token.tokenType ?? 'Bearer',
      expiresAt: token.expiresAt,
      ...(token.scopes ? { scopes: token.scopes } : {}),
      updatedAt: new Date(),
    })
    .where(eq(contentProviderAuths.id, id))
    .returning();
  return row!;
}

/**
 * A sign-in's tokens as the ministry's authorization with the provider: the newest one is replaced (linking again
 * does not pile up records), or a first one is made; in the caller's transaction. Answers it and what it replaced.
 */
export async function linkProvider(tx: DbOrTx, secrets: SecretBox, churchId: string, ministryId: string, providerId: string, token: Token): Promise<{ before?: ProviderAuthRow; row: ProviderAuthRow }> {
  const [current] = await authsOf(tx, churchId, ministryId, providerId).limit(1).for('update');
  if (current) return { before: current, row: await saveTokens(tx, secrets, current.id, { ...token, refreshToken: token.refreshToken ?? null }) };
  const [row] = await tx
    .insert(contentProviderAuths)
    .values({
      id: randomUUID(),
      churchId,
      ministryId,
      providerId,
      accessToken: secrets.encrypt(token.accessToken),
      refreshToken: token.refreshToken ? secrets.encrypt(token.refreshToken) : null,
      tokenType: token.tokenType ?? 'Bearer',
      expiresAt: token.expiresAt,
      scopes: token.scopes ?? null,
    })
    .returning();
  return { row: row! };
}

/**
 * Refreshes the ministry's newest authorization with the provider now (B1Admin asks when its copy has expired),
 * holding its row: of two refreshes at once, the second finds the first one's tokens and answers them rather than
 * spending the refresh token again (providers that rotate refresh tokens would refuse it). 404 without an
 * authorization; 409 when it has no refresh token (the ministry must sign in again).
 */
export async function refreshProvider(db: Db, secrets: SecretBox, churchId: string, ministryId: string, provider: { id: string; refresh(refreshToken: string): Promise<Token> }): Promise<ProviderAuthRow> {
  const asked = new Date();
  return db.transaction(async (tx) => {
    const [current] = await authsOf(tx, churchId, ministryId, provider.id).limit(1).for('update');
    if (!current) throw notFound('Content provider auth');
    if (current.updatedAt > asked) return current;
    if (!current.refreshToken) throw conflict('This authorization has no refresh token; sign in to the provider again');
    return saveTokens(tx, secrets, current.id, await provider.refresh(secrets.decrypt(current.refreshToken)));
  });
}
