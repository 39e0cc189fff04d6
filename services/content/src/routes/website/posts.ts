import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires, type Claims } from '@church/auth';
import { Empty, actorOf, batchOf, deleteRow, getRow, IdParams, itemParam, listRows, notFound, type ZodTypeProvider } from '@church/common';
import { posts } from '../../db/website';
import { keptDisplayNames } from '../../domain/website/membership';
import { authorIds, rssFeed, savePosts, withAuthors, withNames } from '../../domain/website/posts';
import { editsContent } from '../../domain/website/visibility';
import { publishStep, serialized } from '../kept';
import { latestPublished, newestPostsFirst, publishedBySlug, publishedCategories, publishedPage, scheduledPosts, type PostRow } from '../../repos/website/posts';
import { ChurchParams, Post, PostCategories, PostPage, PostSave, PublicPostsQuery, RssFeed, SiteUrlQuery, SlugParams } from '../../schemas/website';

const base = '/content/posts';
const edit = requires('Content.Edit');
/** Published = a publish date that has passed (README). */
const isPublished = (p: PostRow) => p.publishDate !== null && p.publishDate.getTime() <= Date.now();

/** `/content/posts`: the blog. A post is published once its `publishDate` has passed. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The public blog: each page of posts is kept per church and data version (writes to posts raise it), query
  // and publish step (a scheduled post goes live on time); the answer, with author names kept a minute
  // (keptDisplayNames), is kept compressed under the same key and a hash of the names, so it is built again
  // when a name changes. A read whose names membership could not give is answered without keeping it.
  app.get(`${base}/public/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: PublicPostsQuery, response: { 200: PostPage } } }, async (req, reply) => {
    const { churchId } = req.params;
    const q = req.query;
    const version = await app.deps.snapshots.version(churchId);
    const { now, step } = await publishStep(app.deps, 'posts', churchId, version, (after) => scheduledPosts(app.db, churchId, after));
    const variant = JSON.stringify([q.category ?? null, q.tag ?? null, q.page, q.pageSize, step]);
    const found = await app.deps.snapshots.value(`posts-page\n${churchId}\n${variant}`, version, () => publishedPage(app.db, churchId, q, now), (p) => 64 + JSON.stringify(p.rows).length);
    const authors = await keptDisplayNames(app.deps, req.log, churchId, authorIds(found.rows));
    const answer = () => ({ posts: withNames(found.rows, authors.names), total: found.total, page: q.page, pageSize: q.pageSize });
    if (!authors.complete) return answer();
    return app.deps.snapshots.sendAt(req, reply, churchId, `${variant}\n${authors.stamp}`, version, async () => serialized(reply, answer()));
  });
  app.get(`${base}/public/:churchId/categories`, { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: PostCategories } } }, async (req) =>
    publishedCategories(app.db, req.params.churchId),
  );
  app.get(
    `${base}/public/:churchId/slug/:slug`,
    { config: { access: 'public' }, schema: { params: SlugParams, response: { 200: Post } } },
    async (req) => {
      const row = await publishedBySlug(app.db, req.params.churchId, req.params.slug.toLowerCase());
      if (!row) throw notFound('Post');
      return (await withAuthors(app.deps, req.log, req.params.churchId, [row]))[0]!;
    },
  );
  app.get(`${base}/rss/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: SiteUrlQuery, produces: ['application/rss+xml'], response: { 200: RssFeed } } }, async (req, reply) => {
    const xml = await rssFeed(app.deps, req.log, req.params.churchId, req.query.siteUrl, await latestPublished(app.db, req.params.churchId, 50));
    return reply.type('application/rss+xml; charset=utf-8').send(xml);
  });

  // Open to any signed-in user (spec); drafts and scheduled posts only to those who edit the website.
  const published = (req: { auth: Claims }, rows: PostRow[]) => (editsContent(req.auth) ? rows : rows.filter(isPublished));
  // The whole blog (B1Admin's posts page) is kept like the public pages: the rows per church, data version and
  // reach (editors: every post; others: what is published, per publish step), the answer with the author names
  // (kept a minute, keptDisplayNames) compressed once under the same key and a hash of the names.
  app.get(base, { config: { access: anyUser }, schema: { response: { 200: z.array(Post) } } }, async (req, reply) => {
    const { churchId } = req.auth;
    const version = await app.deps.snapshots.version(churchId);
    const editor = editsContent(req.auth);
    const { now, step } = editor ? { now: new Date(), step: 0 } : await publishStep(app.deps, 'posts', churchId, version, (after) => scheduledPosts(app.db, churchId, after));
    const variant = editor ? 'all' : `published ${step}`;
    const rows = await app.deps.snapshots.value(
      `posts-list\n${churchId}\n${variant}`,
      version,
      async () => {
        const all = await listRows(app.db, posts, churchId, { orderBy: newestPostsFirst });
        return editor ? all : all.filter((p) => p.publishDate !== null && p.publishDate <= now);
      },
      (r) => 64 + JSON.stringify(r).length,
    );
    const authors = await keptDisplayNames(app.deps, req.log, churchId, authorIds(rows));
    if (!authors.complete) return withNames(rows, authors.names);
    return app.deps.snapshots.sendAt(req, reply, churchId, `${variant}\n${authors.stamp}`, version, async () => serialized(reply, withNames(rows, authors.names)));
  });
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Post } } }, async (req) => {
    const [row] = published(req, [await getRow(app.db, posts, req.auth.churchId, req.params.id, 'Post')]);
    if (!row) throw notFound('Post');
    return (await withAuthors(app.deps, req.log, req.auth.churchId, [row]))[0]!;
  });

  app.post(base, { config: { access: edit }, schema: { body: batchOf(PostSave), response: { 200: z.array(Post) } } }, async (req) =>
    savePosts(app.deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, posts, req.auth.churchId, req.params.id);
    return {};
  });
}
