import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, decodeDataUrl, listRows, notFound, type ZodTypeProvider } from '@church/common';
import { galleryImages } from '../../db/media';
import { bundledStock } from '../../domain/media/stock';
import { MAX_INLINE_IMAGE_BYTES, safeName, signedUpload, type SignedUpload } from '../../domain/media/uploads';

const Folder = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
const GalleryImage = z.object({ id: z.string(), folder: z.string(), image: z.string(), url: z.string(), fileType: z.string().nullable(), createdAt: z.date() });
const RequestUpload = z.object({
  folder: Folder,
  fileName: z.string().trim().min(1, 'is required').max(200),
  fileType: z.string().trim().regex(/^image\/[\w.+-]+$/, 'must be an image type').default('image/jpeg'),
  /** the local store (no S3 bucket) takes the image inline as a `data:` URL instead of a pre-signed upload */
  fileContents: z.string().max(15_000_000).optional(),
});
const edit = requires('Content.Edit');

/** `/content/gallery`: a church's images by folder, and the bundled stock images. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/gallery/stock/:folder', { config: { access: 'public' }, schema: { params: z.object({ folder: Folder }) } }, async (req) => bundledStock(req.params.folder));

  app.get('/content/gallery/:folder', { config: { access: edit }, schema: { params: z.object({ folder: Folder }), response: { 200: z.array(GalleryImage) } } }, async (req) =>
    listRows(app.db, galleryImages, req.auth.churchId, { where: eq(galleryImages.folder, req.params.folder), orderBy: asc(galleryImages.image) }) as never,
  );

  app.post('/content/gallery/requestUpload', { config: { access: edit }, schema: { body: RequestUpload } }, async (req) => {
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
    await app.db
      .insert(galleryImages)
      .values({ id: crypto.randomUUID(), churchId, folder, image, storageKey: key, url, fileType })
      .onConflictDoUpdate({ target: [galleryImages.churchId, galleryImages.folder, galleryImages.image], set: { url, fileType, updatedAt: new Date() } });
    return { folder, image, key, imageUrl: url, method: upload?.method ?? null, url: upload?.url ?? '', fields: upload?.fields ?? {}, headers: upload?.headers ?? {}, expiresIn: upload?.expiresIn ?? 0 };
  });

  app.delete('/content/gallery/:folder/:image', { config: { access: edit }, schema: { params: z.object({ folder: Folder, image: z.string().min(1).max(200) }) } }, async (req) => {
    const where = and(eq(galleryImages.churchId, req.auth.churchId), eq(galleryImages.folder, req.params.folder), eq(galleryImages.image, req.params.image));
    const [row] = await app.db.delete(galleryImages).where(where).returning();
    if (!row) throw notFound('Image');
    await app.deps.storage.remove(row.storageKey);
    return {};
  });
}
