import { and, asc, eq } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { galleryImages } from '../../db/media';

/** The church's images of a folder, by name. */
export const imagesIn = (db: DbOrTx, churchId: string, folder: string) => listRows(db, galleryImages, churchId, { where: eq(galleryImages.folder, folder), orderBy: asc(galleryImages.image) });

/** Records an image of a folder; one of the same name is replaced (its address and type). */
export async function upsertImage(db: DbOrTx, churchId: string, values: { folder: string; image: string; storageKey: string; url: string; fileType: string }): Promise<void> {
  const { url, fileType } = values;
  await db
    .insert(galleryImages)
    .values({ ...values, id: crypto.randomUUID(), churchId })
    .onConflictDoUpdate({ target: [galleryImages.churchId, galleryImages.folder, galleryImages.image], set: { url, fileType, updatedAt: new Date() } });
}

/** Deletes an image of a folder, answering it as it was (undefined when there is none). */
export async function deleteImage(db: DbOrTx, churchId: string, folder: string, image: string) {
  const [row] = await db
    .delete(galleryImages)
    .where(and(eq(galleryImages.churchId, churchId), eq(galleryImages.folder, folder), eq(galleryImages.image, image)))
    .returning();
  return row;
}
