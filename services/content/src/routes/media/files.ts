import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Empty, Id, IdParams, badRequest, batchOf, getRow, itemParam, listRows, type DbOrTx, type Storage, type ZodTypeProvider } from '@church/common';
import { files } from '../../db/media';
import { MAX_BYTES_PER_CONTENT, assertCanManage, assertQuota } from '../../domain/media/files';
import { directUploads, safeName, signedUpload, type SignedUpload } from '../../domain/media/uploads';
import { storageFor, storageOfFile } from '../../domain/media/byos';

const File = z.object({
  id: z.string(),
  churchId: z.string(),
  contentType: z.string(),
  contentId: z.string(),
  fileName: z.string(),
  fileType: z.string().nullable(),
  size: z.number(),
  contentPath: z.string(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
const ContentType = z.string().trim().min(1, 'is required').max(50).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
const ContentId = z.string().trim().min(1, 'is required').max(100).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
const FileName = z.string().trim().min(1, 'is required').max(255);
const FileSave = z.object({
  id: Id.optional(),
  contentType: ContentType,
  contentId: ContentId,
  fileName: FileName,
  fileType: z.string().trim().max(200).nullish(),
  /** the file as base64, or as a `data:` URL; absent: the file was uploaded straight to storage (`postUrl`) */
  fileContents: z.string().min(1, 'is required').max(140_000_000).nullish(),
  /** sent by the apps with every file; the stored size is what was uploaded (or declared to `postUrl`) */
  size: z.coerce.number().int().min(0).nullish(),
});
const PostUrlBody = z.object({
  contentType: ContentType,
  contentId: ContentId,
  fileName: FileName,
  fileType: z.string().trim().min(1).max(200).optional(),
  /** the apps' name for `fileType` */
  mimeType: z.string().trim().max(200).nullish(),
  /** bytes the client will upload */
  size: z.coerce.number().int().min(0).max(MAX_BYTES_PER_CONTENT),
});

function decodeContents(value: string): { body: Buffer; type?: string } {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=-]+)*;base64,(.*)$/s.exec(value);
  const base64 = m ? m[2]! : value;
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64)) throw badRequest('fileContents', 'must be base64');
  return { body: Buffer.from(base64, 'base64'), type: m?.[1] };
}

/** `/content/files`: files of content items in object storage (base64 upload or a pre-signed address). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/files/:contentType/:contentId', { config: { access: anyUser }, schema: { params: z.object({ contentType: ContentType, contentId: ContentId }), response: { 200: z.array(File) } } }, async (req) =>
    listRows(app.db, files, req.auth.churchId, { where: and(eq(files.contentType, req.params.contentType), eq(files.contentId, req.params.contentId)), orderBy: asc(files.fileName) }) as never,
  );

  app.get('/content/files', { config: { access: anyUser }, schema: { response: { 200: z.array(File) } } }, async (req) =>
    listRows(app.db, files, req.auth.churchId, { where: eq(files.contentType, 'website'), orderBy: asc(files.fileName) }) as never,
  );

  app.get('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: File } } }, async (req) =>
    getRow(app.db, files, req.auth.churchId, req.params.id, 'File') as never,
  );

  app.post('/content/files', { config: { access: anyUser }, schema: { body: batchOf(FileSave), response: { 200: z.array(File) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const decoded = req.body.map((item, i) => {
      if (!item.fileContents) return undefined;
      try {
        return decodeContents(item.fileContents);
      } catch {
        throw badRequest(itemParam(req, i, 'fileContents'), 'must be base64');
      }
    });
    for (const item of req.body) await assertCanManage(app, req, item.contentType, item.contentId);
    // new files go to the church's own storage when it has one enabled
    const { storage, providerId } = await storageFor(app, churchId);
    const stored: string[] = [];
    try {
      return await app.db.transaction(async (tx) => {
        const out = [];
        for (const [i, item] of req.body.entries()) {
          const inline = decoded[i];
          if (!inline) {
            out.push(await confirmDirectUpload(tx, churchId, item, itemParam(req, i, 'fileContents')));
            continue;
          }
          const { body, type } = inline;
          const existing = item.id ? await getRow(tx, files, churchId, item.id, 'File') : undefined;
          await assertQuota(tx, churchId, item.contentType, item.contentId, body.length, itemParam(req, i, 'fileContents'), existing?.id);
          const id = existing?.id ?? randomUUID();
          const key = `${churchId}/files/${item.contentType}/${item.contentId}/${id}/${safeName(item.fileName)}`;
          const fileType = item.fileType ?? type ?? 'application/octet-stream';
          const contentPath = await storage.put(key, body, fileType);
          stored.push(key);
          const values = { contentType: item.contentType, contentId: item.contentId, fileName: item.fileName, fileType, size: body.length, storageKey: key, contentPath, uploaded: true, providerId };
          const [row] = existing
            ? await tx.update(files).set({ ...values, updatedAt: new Date() }).where(eq(files.id, id)).returning()
            : await tx.insert(files).values({ ...values, id, churchId }).returning();
          if (existing && (existing.storageKey !== key || existing.providerId !== providerId)) {
            const was = await storageOfFile(app, churchId, existing.providerId);
            await was.remove(existing.storageKey).catch(() => undefined);
          }
          out.push(row!);
        }
        return out;
      });
    } catch (err) {
      // Nothing half-written: objects stored for a batch that failed are removed again.
      await Promise.all(stored.map((k) => storage.remove(k).catch(() => undefined)));
      throw err;
    }
  });

  // On the local store there is no direct upload: the answer is `{}` (no `key`), and the apps send the file
  // inline to POST /files instead.
  app.post('/content/files/postUrl', { config: { access: anyUser }, schema: { body: PostUrlBody } }, async (req) => {
    const { contentType, contentId, fileName, size } = req.body;
    const fileType = req.body.fileType ?? (req.body.mimeType || 'application/octet-stream');
    const churchId = req.auth.churchId;
    await assertCanManage(app, req, contentType, contentId);
    await assertQuota(app.db, churchId, contentType, contentId, size, 'size');
    const own = await storageFor(app, churchId);
    if (!own.providerId && !directUploads(app)) return {};
    const id = randomUUID();
    const key = `${churchId}/files/${contentType}/${contentId}/${id}/${safeName(fileName)}`;
    // the church's own bucket: a signed PUT address of its storage (its key and content type fixed)
    const upload = own.providerId ? await ownUpload(own.storage, key, fileType) : await signedUpload(app, key, fileType, size, size);
    const [row] = await app.db
      .insert(files)
      .values({ id, churchId, contentType, contentId, fileName, fileType, size, storageKey: key, contentPath: upload.contentPath, uploaded: false, providerId: own.providerId })
      .returning();
    return { id: row!.id, key, ...upload };
  });

  app.delete('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const file = await getRow(app.db, files, req.auth.churchId, req.params.id, 'File');
    await assertCanManage(app, req, file.contentType, file.contentId);
    await app.db.delete(files).where(and(eq(files.churchId, req.auth.churchId), eq(files.id, file.id)));
    await (await storageOfFile(app, req.auth.churchId, file.providerId)).remove(file.storageKey);
    return {};
  });
}

/**
 * The save that follows an upload straight to storage (the apps post the file's name, type and size without
 * its contents): the upload `postUrl` prepared for it (by `id`, else its newest one of that name for the
 * content item) is marked done. None waiting: 400 naming `fileContents`.
 */
async function confirmDirectUpload(tx: DbOrTx, churchId: string, item: z.output<typeof FileSave>, param: string) {
  const [pending] = await tx
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
  if (!pending) throw badRequest(param, 'is required');
  const [row] = await tx
    .update(files)
    // The size stays the one declared to postUrl (what the signed form let through, and what the quota counted).
    .set({ uploaded: true, updatedAt: new Date() })
    .where(eq(files.id, pending.id))
    .returning();
  return row!;
}

async function ownUpload(storage: Storage, key: string, contentType: string): Promise<SignedUpload> {
  const expiresIn = 900;
  const signed = await storage.presignUpload(key, contentType, expiresIn);
  return { method: 'PUT', url: signed.uploadUrl, fields: {}, headers: { 'content-type': contentType }, contentPath: signed.url, expiresIn };
}
