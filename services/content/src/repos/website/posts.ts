import { and, asc, desc, eq, gt, isNotNull, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { posts } from '../../db/website';

export type PostRow = typeof posts.$inferSelect;

/** The staff list's order: newest publish date first (unscheduled drafts last), then by title. */
export const newestPostsFirst = [desc(posts.publishDate), asc(posts.title)];

/** Published by `at` (the database's clock when not given). */
const published = (churchId: string, at?: Date) => and(eq(posts.churchId, churchId), isNotNull(posts.publishDate), lte(posts.publishDate, at ?? sql`now()`));

/** A page of published posts (by `at`), newest first, with the total count. */
export async function publishedPage(db: DbOrTx, churchId: string, q: { category?: string; tag?: string; page: number; pageSize: number }, at: Date) {
  const where = and(
    published(churchId, at),
    q.category ? eq(posts.category, q.category) : undefined,
    // jsonb containment: the tags array holds the tag (served by the church's rows; tags are per post).
    q.tag ? sql`${posts.tags} @> ${JSON.stringify([q.tag])}::jsonb` : undefined,
  );
  const [rows, [count]] = await Promise.all([
    db.select().from(posts).where(where).orderBy(desc(posts.publishDate), asc(posts.id)).limit(q.pageSize).offset((q.page - 1) * q.pageSize),
    db.select({ n: sql<number>`count(*)::int` }).from(posts).where(where),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** Publish times (epoch ms, rounded up) of the church's posts scheduled after `after`, earliest first. */
export async function scheduledPosts(db: DbOrTx, churchId: string, after: Date): Promise<number[]> {
  const rows = await db
    .select({ at: sql<string>`ceil(extract(epoch from ${posts.publishDate}) * 1000)::text` })
    .from(posts)
    .where(and(eq(posts.churchId, churchId), gt(posts.publishDate, after)))
    .orderBy(asc(posts.publishDate));
  return rows.map((r) => Number(r.at));
}

export async function publishedCategories(db: DbOrTx, churchId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ category: posts.category })
    .from(posts)
    .where(and(published(churchId), isNotNull(posts.category)))
    .orderBy(asc(posts.category));
  return rows.map((r) => r.category!).filter(Boolean);
}

export async function publishedBySlug(db: DbOrTx, churchId: string, slug: string): Promise<PostRow | undefined> {
  const [row] = await db.select().from(posts).where(and(published(churchId), eq(posts.slug, slug))).limit(1);
  return row;
}

export async function latestPublished(db: DbOrTx, churchId: string, limit: number): Promise<PostRow[]> {
  return db.select().from(posts).where(published(churchId)).orderBy(desc(posts.publishDate)).limit(limit);
}

export async function slugTaken(db: DbOrTx, churchId: string, slug: string, exceptId?: string): Promise<boolean> {
  const [row] = await db.select({ id: posts.id }).from(posts).where(and(eq(posts.churchId, churchId), eq(posts.slug, slug))).limit(1);
  return Boolean(row && row.id !== exceptId);
}
