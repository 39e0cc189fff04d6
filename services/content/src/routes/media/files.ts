import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { Empty, IdParams, actorOf, batchOf, getRow, itemParam, type ZodTypeProvider } from '@church/common';
import { files } from '../../db/media';
import { contentDeps } from '../../deps';
import { prepareUpload, removeFile, saveFiles } from '../../domain/media/files';
import { filesOf } from '../../repos/media/files';
import { ContentParams, File, Files, FileSave, PostUrlAnswer, PostUrlBody } from '../../schemas/media';

/** `/content/files`: files of content items in object storage (base64 upload or a pre-signed address). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  app.get('/content/files/:contentType/:contentId', { config: { access: anyUser }, schema: { params: ContentParams, response: { 200: Files } } }, async (req) =>
    filesOf(app.db, req.auth.churchId, req.params.contentType, req.params.contentId),
  );

  // The website's files (the site editor's file picker).
  app.get('/content/files', { config: { access: anyUser }, schema: { response: { 200: Files } } }, async (req) => filesOf(app.db, req.auth.churchId, 'website'));

  app.get('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: File } } }, async (req) => getRow(app.db, files, req.auth.churchId, req.params.id, 'File'));

  app.post('/content/files', { config: { access: anyUser }, schema: { body: batchOf(FileSave), response: { 200: Files } } }, async (req) =>
    saveFiles(deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  // On the local store there is no direct upload: the answer is `{}` (no `key`), and the apps send the file
  // inline to POST /files instead.
  // Without `size` (the apps' FileUpload sends only name, type and item) the form takes at most what the item
  // has left, and the waiting upload holds that much of the quota until it is saved or its form expires.
  app.post('/content/files/postUrl', { config: { access: anyUser }, schema: { body: PostUrlBody, response: { 200: PostUrlAnswer } } }, async (req) =>
    prepareUpload(deps, actorOf(req), req.body),
  );

  app.delete('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await removeFile(deps, actorOf(req), req.params.id);
    return {};
  });
}
