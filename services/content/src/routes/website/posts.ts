import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires, type Claims } from '@church/auth';
import { Empty, actorOf, batchOf, deleteRow, getRow, IdParams, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { posts } from '../../db/website';
import { blogFor, publicPostsPage, rssFeed, savePosts, withAuthors } from '../../domain/website/posts';
import { editsContent } from '../../domain/website/visibility';
import { sendRead } from '../kept';
import { latestPublished, publishedBySlug, publishedCategories, type PostRow } from '../../repos/website/posts';
import { ChurchParams, Post, PostCategories, PostPage, PostSave, PublicPostsQuery, RssFeed, SiteUrlQuery, SlugParams } from '../../schemas/website';

const base = '/content/posts';
const edit = requires('Content.Edit');
/** Published = a publish date that has passed (README). */
const isPublished = (p: PostRow) => p.publishDate !== null && p.publishDate.getTime() <= Date.now();

/** `/content/posts`: the blog. A post is published once its `publishDate` has passed. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The public blog: each page of posts kept per church, data version, query and publish step, with author names
  // kept a minute (domain/website/posts.ts publicPostsPage).
  app.get(`${base}/public/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: PublicPostsQuery, response: { 200: PostPage } } }, async (req, reply) =>
    sendRead(app.deps, req, reply, req.params.churchId, await publicPostsPage(app.deps, req.log, req.params.churchId, req.query)),
  );
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
  // The whole blog (B1Admin's posts page) is kept like the public pages, per reach (editors: every post; others:
  // what is published, per publish step), with the author names (domain/website/posts.ts blogFor).
  app.get(base, { config: { access: anyUser }, schema: { response: { 200: z.array(Post) } } }, async (req, reply) =>
    sendRead(app.deps, req, reply, req.auth.churchId, await blogFor(app.deps, actorOf(req))),
  );
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
