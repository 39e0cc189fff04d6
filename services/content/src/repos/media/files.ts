import { and, asc, desc, eq, or, sql } from 'drizzle-orm';
import { listRows, type DbOrTx } from '@church/common';
import { files } from '../../db/media';

export type FileRow = typeof files.$inferSelect;
type FileValues = Omit<typeof files.$inferInsert, 'id' | 'churchId' | 'createdAt' | 'updatedAt'>;

/**
 * The church's files of a content type (of one content item when `contentId` is given), by name: those stored,
 * not the direct uploads still waiting (which hold only a reservation of the quota).
 */
export const filesOf = (db: DbOrTx, churchId: string, contentType: string, contentId?: string) =>
  listRows(db, files, churchId, {
    where: and(eq(files.contentType, contentType), contentId === undefined ? undefined : eq(files.contentId, contentId), eq(files.uploaded, true)),
    orderBy: asc(files.fileName),
  });

/** A new file of the church under a chosen id (its storage key holds the id). */
export async function insertFile(db: DbOrTx, churchId: string, id: string, values: FileValues): Promise<FileRow> {
  const [row] = await db
    .insert(files)
    .values({ ...values, id, churchId })
    .returning();
  return row!;
}

/** A file replaced by a new upload. */
export async function updateFile(db: DbOrTx, id: string, values: Partial<FileValues>): Promise<FileRow> {
  const [row] = await db
    .update(files)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(files.id, id))
    .returning();
  return row!;
}

/**
 * The upload `postUrl` prepared for a content item's file: the one of `id` when given, else its newest file of
 * that name not marked uploaded yet.
 */
export async function pendingUpload(db: DbOrTx, churchId: string, item: { id?: string; contentType: string; contentId: string; fileName: string }): Promise<FileRow | undefined> {
  const [row] = await db
    .select()
    .from(files)
    .where(
      and(
        eq(files.churchId, churchId),
        eq(files.contentType, item.contentType),
        eq(files.contentId, item.contentId),
        item.id ? eq(files.id, item.id) : and(eq(files.fileName, item.fileName), eq(files.uploaded, false)),
      ),
    )
    .orderBy(desc(files.createdAt))
    .limit(1);
  return row;
}

export async function deleteFile(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(files).where(and(eq(files.churchId, churchId), eq(files.id, id)));
}

/**
 * Bytes of a content item's files, but for the file `exceptId` (which an upload replaces): the uploaded ones, and
 * the direct uploads still waiting whose form is still valid (`waitSeconds`), with the bytes their form allows.
 */
export async function bytesOfContent(db: DbOrTx, churchId: string, contentType: string, contentId: string, waitSeconds: number, exceptId?: string): Promise<number> {
  const [row] = await db
    .select({ used: sql<string>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(
      and(
        eq(files.churchId, churchId),
        eq(files.contentType, contentType),
        eq(files.contentId, contentId),
        or(eq(files.uploaded, true), sql`${files.createdAt} > now() - make_interval(secs => ${waitSeconds})`),
        exceptId ? sql`${files.id} <> ${exceptId}` : undefined,
      ),
    );
  return Number(row?.used ?? 0);
}
