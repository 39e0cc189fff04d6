import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx, SecretBox } from '@church/common';
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

/** Saves refreshed tokens (sealed); a provider that sends no new refresh token keeps the old one. */
export async function saveTokens(db: DbOrTx, secrets: SecretBox, id: string, token: { accessToken: string; refreshToken?: string | null; tokenType?: string | null; expiresAt: Date | null }) {
  await db
    .update(contentProviderAuths)
    .set({
      accessToken: secrets.encrypt(token.accessToken),
      ...(token.refreshToken ? { refreshToken: secrets.encrypt(token.refreshToken) } : {}),
      tokenType: token.tokenType ?? 'Bearer',
      expiresAt: token.expiresAt,
      updatedAt: new Date(),
    })
    .where(eq(contentProviderAuths.id, id));
}
