import type { FastifyInstance } from 'fastify';
import { gdprAnonymize, gdprExport, reportChanges, serveOwned, type ZodTypeProvider } from '@church/common';
import { events } from '../db/website';
import { streamingServices } from '../db/media';
import { postsByAuthor, unnameAuthor } from '../repos/gdpr';

/**
 * GDPR (membership asks, signed): a person's records in content, and their removal. Content keeps a person's id
 * only as a blog post's author; anonymizing leaves the posts (the church's publications) without an author.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // Other modules' reference checks: which of these ids are the church's events and live-stream services.
  serveOwned(app, 'content', { events, streamingServices });

  const exportContract = gdprExport('content');
  app.post(exportContract.path, { config: { access: 'internal' }, schema: { body: exportContract.body, response: { 200: exportContract.answer } } }, async (req) => ({
    data: { posts: await postsByAuthor(app.db, req.body.churchId, req.body.personId) },
  }));

  const anonymizeContract = gdprAnonymize('content');
  app.post(anonymizeContract.path, { config: { access: 'internal' }, schema: { body: anonymizeContract.body, response: { 200: anonymizeContract.answer } } }, async (req) => {
    const { churchId, personId } = req.body;
    const changed = await app.db.transaction(async (tx) => {
      const ids = await unnameAuthor(tx, churchId, personId);
      const changes = ids.map((id) => ({ churchId, entityType: 'post', entityId: id, action: 'updated', before: { authorId: personId }, after: { authorId: null } }));
      await reportChanges({ module: 'content', queue: app.deps.queue }, changes, { req, tx });
      return ids.length;
    });
    return { changed: { posts: changed } };
  });
}
