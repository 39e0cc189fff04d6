import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { posts } from '../db/website';

/**
 * What content keeps about a person by their person id: the blog posts they are named the author of. (User
 * settings, page history and linked sheet-music accounts are kept by user id, which the GDPR contracts do not
 * carry; see README.)
 */
export const postsByAuthor = (db: DbOrTx, churchId: string, personId: string) =>
  db.select().from(posts).where(and(eq(posts.churchId, churchId), eq(posts.authorId, personId))).orderBy(asc(posts.createdAt));

/** Unnames the person as an author: the posts stay, without an author. Answers how many changed. */
export async function unnameAuthor(tx: DbOrTx, churchId: string, personId: string): Promise<string[]> {
  const rows = await tx
    .update(posts)
    .set({ authorId: null, updatedAt: new Date() })
    .where(and(eq(posts.churchId, churchId), eq(posts.authorId, personId)))
    .returning({ id: posts.id });
  return rows.map((r) => r.id);
}
