import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { redirects } from '../../db/website';

export type RedirectRow = typeof redirects.$inferSelect;

/** Redirects are listed by the path they redirect. */
export const byFromPath = asc(redirects.fromPath);

/** The church's redirects, by path. */
export const churchRedirects = (db: DbOrTx, churchId: string): Promise<RedirectRow[]> =>
  db.select().from(redirects).where(eq(redirects.churchId, churchId)).orderBy(byFromPath);

/** The redirect of one (normalised) path, if the church has one. */
export async function redirectOf(db: DbOrTx, churchId: string, fromPath: string): Promise<RedirectRow | undefined> {
  const [row] = await db.select().from(redirects).where(and(eq(redirects.churchId, churchId), eq(redirects.fromPath, fromPath))).limit(1);
  return row;
}

/** The church's redirects, locked until the transaction ends, so two saves cannot both pass the rules. */
export const lockedRedirects = (tx: DbOrTx, churchId: string): Promise<RedirectRow[]> => tx.select().from(redirects).where(eq(redirects.churchId, churchId)).for('update');
