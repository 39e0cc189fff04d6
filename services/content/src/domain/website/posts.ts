import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, churchNameOf, findRow, listRows, notFound, saveRows, type Actor, type ActorLog } from '@church/common';
import { posts } from '../../db/website';
import type { ContentDeps } from '../../deps';
import type { KeptRead } from '../../lib/kept';
import { newestPostsFirst, publishedPage, scheduledPosts, slugTaken, type PostRow } from '../../repos/website/posts';
import type { PostSave, PublicPostsQuery } from '../../schemas/website';
import { publishStep } from '../schedule';
import { displayNames, keptDisplayNames } from './membership';
import { editsContent } from './visibility';
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
type NamedPost = ReturnType<typeof withNames>[number];
/** A page of the public blog as its route answers it. */
type PostPage = { posts: NamedPost[]; total: number; page: number; pageSize: number };

/** Posts with their authors' names, looked up from membership in one call. */
export async function withAuthors(deps: Pick<ContentDeps, 'internal'>, log: ActorLog, churchId: string, rows: PostRow[]) {
  return withNames(rows, await displayNames(deps, log, churchId, authorIds(rows)));
}

/** RSS 2.0 of the latest published posts; links are `{siteUrl}/blog/{slug}`, content is the rendered markdown. */
export async function rssFeed(deps: Pick<ContentDeps, 'internal'>, log: ActorLog, churchId: string, siteUrl: string, rows: PostRow[]): Promise<string> {
  const [name, authored] = await Promise.all([churchNameOf(deps.internal, churchId).catch(() => undefined), withAuthors(deps, log, churchId, rows)]);
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

/**
 * Saves a batch of posts (`param(i, field)` names a field of item `i`) in one transaction: a slug is the church's
 * once (a new post without one gets its title's, numbered when taken), the author is a person of the church
 * (asked of membership before the transaction). Answers the posts with their authors' names.
 */
export async function savePosts(deps: Pick<ContentDeps, 'db' | 'internal'>, actor: Actor, items: Array<z.output<typeof PostSave>>, param: (i: number, field: string) => string) {
  const churchId = actor.churchId;
  const given = items.map((x) => x.slug);
  const twice = given.find((s, i) => s && given.indexOf(s) !== i);
  if (twice) throw badRequest(param(given.lastIndexOf(twice), 'slug'), `${twice} is given twice`);
  await assertReferences(deps, churchId, items, { authorId: REMOTE.people }, param);
  const saved = await deps.db.transaction(async (tx) => {
    const out: PostRow[] = [];
    for (const [i, { id, ...fields }] of items.entries()) {
      const old = id ? await findRow(tx, posts, churchId, id) : undefined;
      if (id && !old) throw notFound('Post');
      if (!old && !fields.title) throw badRequest(param(i, 'title'), 'is required');
      let slug = fields.slug;
      if (slug && (await slugTaken(tx, churchId, slug, id))) throw badRequest(param(i, 'slug'), `another post already uses the slug ${slug}`);
      if (!old && !slug) {
        // A slug made from the title gets a number when the church already has it.
        const stem = slugify(fields.title!);
        slug = stem;
        for (let n = 2; await slugTaken(tx, churchId, slug); n++) slug = `${stem}-${n}`;
      }
      const values = { ...fields, ...(slug ? { slug } : {}) };
      // A save with an id stamps `updatedAt` (saveRows does for tables that have it).
      const [row] = await saveRows(tx, posts, churchId, [old ? { ...values, id: old.id } : { ...values, title: fields.title!, slug: slug! }]);
      out.push(row!);
    }
    return out;
  });
  return withAuthors(deps, actor.log, churchId, saved);
}

/**
 * A page of the public blog: the page of posts kept per church and data version, query and publish step (a
 * scheduled post goes live on time); the answer, with author names kept a minute (keptDisplayNames), kept under
 * the same variant and a hash of the names, so it is built again when a name changes. A read whose names
 * membership could not give is answered without keeping it.
 */
export async function publicPostsPage(deps: Pick<ContentDeps, 'db' | 'internal' | 'snapshots'>, log: ActorLog, churchId: string, q: z.output<typeof PublicPostsQuery>): Promise<KeptRead<PostPage>> {
  const version = await deps.snapshots.version(churchId);
  const { now, step } = await publishStep(deps, 'posts', churchId, version, (after) => scheduledPosts(deps.db, churchId, after));
  const variant = JSON.stringify([q.category ?? null, q.tag ?? null, q.page, q.pageSize, step]);
  const found = await deps.snapshots.value(`posts-page\n${churchId}\n${variant}`, version, () => publishedPage(deps.db, churchId, q, now), (p) => 64 + JSON.stringify(p.rows).length);
  const authors = await keptDisplayNames(deps, log, churchId, authorIds(found.rows));
  const answer = () => ({ posts: withNames(found.rows, authors.names), total: found.total, page: q.page, pageSize: q.pageSize });
  if (!authors.complete) return { answer: answer() };
  return { kept: { variant: `${variant}\n${authors.stamp}`, version, build: async () => answer() } };
}

/**
 * The whole blog as the caller may read it (B1Admin's posts page), kept like the public pages: the rows per church,
 * data version and reach (website editors: every post; others: what is published, per publish step), the answer
 * with the author names (kept a minute) under the same variant and a hash of the names.
 */
export async function blogFor(deps: Pick<ContentDeps, 'db' | 'internal' | 'snapshots'>, actor: Actor): Promise<KeptRead<NamedPost[]>> {
  const { churchId } = actor;
  const version = await deps.snapshots.version(churchId);
  const editor = editsContent(actor);
  const { now, step } = editor ? { now: new Date(), step: 0 } : await publishStep(deps, 'posts', churchId, version, (after) => scheduledPosts(deps.db, churchId, after));
  const variant = editor ? 'all' : `published ${step}`;
  const rows = await deps.snapshots.value(
    `posts-list\n${churchId}\n${variant}`,
    version,
    async () => {
      const all = await listRows(deps.db, posts, churchId, { orderBy: newestPostsFirst });
      return editor ? all : all.filter((p) => p.publishDate !== null && p.publishDate <= now);
    },
    (r) => 64 + JSON.stringify(r).length,
  );
  const authors = await keptDisplayNames(deps, actor.log, churchId, authorIds(rows));
  if (!authors.complete) return { answer: withNames(rows, authors.names) };
  return { kept: { variant: `${variant}\n${authors.stamp}`, version, build: async () => withNames(rows, authors.names) } };
}
