import type { FastifyInstance } from 'fastify';
import { churchNameOf } from '@church/common';
import type { PostRow } from '../../repos/website/posts';
import { displayNames } from './membership';
import { Feed } from 'feed';
import { marked } from 'marked';

/** A slug from a title: lower-case words joined by hyphens (`"Easter Sunday!"` → `easter-sunday`). */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
  return slug || 'post';
}

export const authorIds = (rows: PostRow[]) => rows.flatMap((r) => (r.authorId ? [r.authorId] : []));
/** Posts as the API answers them: with `authorName` (null when unknown). */
export const withNames = (rows: PostRow[], names: Map<string, string | null>) => rows.map((r) => ({ ...r, authorName: r.authorId ? (names.get(r.authorId) ?? null) : null }));

/** Posts with their authors' names, looked up from membership in one call. */
export async function withAuthors(app: FastifyInstance, churchId: string, rows: PostRow[]) {
  return withNames(rows, await displayNames(app, churchId, authorIds(rows)));
}

/** RSS 2.0 of the latest published posts; links are `{siteUrl}/blog/{slug}`, content is the rendered markdown. */
export async function rssFeed(app: FastifyInstance, churchId: string, siteUrl: string, rows: PostRow[]): Promise<string> {
  const [name, authored] = await Promise.all([churchNameOf(app.deps.internal, churchId).catch(() => undefined), withAuthors(app, churchId, rows)]);
  const site = siteUrl.replace(/\/+$/, '');
  const feed = new Feed({
    title: name ? `${name} Blog` : 'Blog',
    description: name ? `News and articles from ${name}` : 'News and articles',
    id: `${site}/blog`,
    link: `${site}/blog`,
    copyright: name ?? '',
    updated: rows[0]?.publishDate ?? undefined,
    feedLinks: { rss: `${site}/blog/rss` },
  });
  for (const post of authored) {
    const link = `${site}/blog/${encodeURIComponent(post.slug)}`;
    feed.addItem({
      title: post.title,
      id: link,
      link,
      date: post.publishDate!,
      description: post.excerpt ?? undefined,
      content: post.content ? await marked.parse(post.content, { async: true }) : undefined,
      author: post.authorName ? [{ name: post.authorName }] : undefined,
      category: post.category ? [{ name: post.category }] : undefined,
      image: post.photoUrl ?? undefined,
    });
  }
  return feed.rss2();
}
