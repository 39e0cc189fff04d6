import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { Empty, notFound, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { bundledStock } from '../../domain/media/stock';
import { galleryUpload } from '../../domain/media/uploads';
import { deleteImage, imagesIn } from '../../repos/media/gallery';
import { BundledImages, FolderParams, GalleryImageParams, GalleryImages, RequestedUpload, RequestUpload } from '../../schemas/media';

const edit = requires('Content.Edit');

/** `/content/gallery`: a church's images by folder, and the bundled stock images. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/gallery/stock/:folder', { config: { access: 'public' }, schema: { params: FolderParams, response: { 200: BundledImages } } }, async (req) => bundledStock(req.params.folder));

  app.get('/content/gallery/:folder', { config: { access: edit }, schema: { params: FolderParams, response: { 200: GalleryImages } } }, async (req) => imagesIn(app.db, req.auth.churchId, req.params.folder));

  app.post('/content/gallery/requestUpload', { config: { access: edit }, schema: { body: RequestUpload, response: { 200: RequestedUpload } } }, async (req) =>
    galleryUpload(contentDeps(app), req.auth.churchId, req.body),
  );

  app.delete('/content/gallery/:folder/:image', { config: { access: edit }, schema: { params: GalleryImageParams, response: { 200: Empty } } }, async (req) => {
    const row = await deleteImage(app.db, req.auth.churchId, req.params.folder, req.params.image);
    if (!row) throw notFound('Image');
    await app.deps.storage.remove(row.storageKey);
    return {};
  });
}
