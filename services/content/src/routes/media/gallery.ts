import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { Empty, badRequest, decodeDataUrl, notFound, type ZodTypeProvider } from '@church/common';
import { bundledStock } from '../../domain/media/stock';
import { MAX_INLINE_IMAGE_BYTES, safeName, signedUpload, type SignedUpload } from '../../domain/media/uploads';
import { deleteImage, imagesIn, upsertImage } from '../../repos/media/gallery';
import { BundledImages, FolderParams, GalleryImageParams, GalleryImages, RequestedUpload, RequestUpload } from '../../schemas/media';

const edit = requires('Content.Edit');

/** `/content/gallery`: a church's images by folder, and the bundled stock images. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/gallery/stock/:folder', { config: { access: 'public' }, schema: { params: FolderParams, response: { 200: BundledImages } } }, async (req) => bundledStock(req.params.folder));

  app.get('/content/gallery/:folder', { config: { access: edit }, schema: { params: FolderParams, response: { 200: GalleryImages } } }, async (req) => imagesIn(app.db, req.auth.churchId, req.params.folder));

  app.post('/content/gallery/requestUpload', { config: { access: edit }, schema: { body: RequestUpload, response: { 200: RequestedUpload } } }, async (req) => {
    const churchId = req.auth.churchId;
    const { folder, fileType } = req.body;
    const image = safeName(req.body.fileName);
    const key = `${churchId}/gallery/${folder}/${image}`;
    let upload: SignedUpload | undefined;
    let url: string;
    if (req.body.fileContents) {
      const decoded = decodeDataUrl(req.body.fileContents);
      if (!decoded || !decoded.contentType.startsWith('image/')) throw badRequest('fileContents', 'must be a base64 data URL of an image');
      if (decoded.body.length > MAX_INLINE_IMAGE_BYTES) throw badRequest('fileContents', 'image is larger than 10 MB');
      url = await app.deps.storage.put(key, decoded.body, decoded.contentType);
    } else {
      upload = await signedUpload(app, key, fileType, 1, MAX_INLINE_IMAGE_BYTES);
      url = upload.contentPath;
    }
    await upsertImage(app.db, churchId, { folder, image, storageKey: key, url, fileType });
    return { folder, image, key, imageUrl: url, method: upload?.method ?? null, url: upload?.url ?? '', fields: upload?.fields ?? {}, headers: upload?.headers ?? {}, expiresIn: upload?.expiresIn ?? 0 };
  });

  app.delete('/content/gallery/:folder/:image', { config: { access: edit }, schema: { params: GalleryImageParams, response: { 200: Empty } } }, async (req) => {
    const row = await deleteImage(app.db, req.auth.churchId, req.params.folder, req.params.image);
    if (!row) throw notFound('Image');
    await app.deps.storage.remove(row.storageKey);
    return {};
  });
}
