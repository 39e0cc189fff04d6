import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { anyUser } from '@church/auth';
import { Empty, IdParams, badRequest, batchOf, getRow, itemParam, type DbOrTx, type Storage, type ZodTypeProvider } from '@church/common';
import { files } from '../../db/media';
import { assertCanManage, assertQuota, checkContentItems, contentIdOf, UPLOAD_FORM_SECONDS } from '../../domain/media/files';
import { directUploads, safeName, signedUpload, type SignedUpload } from '../../domain/media/uploads';
import { storageFor, storageOfFile } from '../../domain/media/byos';
import { deleteFile, filesOf, insertFile, pendingUpload, updateFile } from '../../repos/media/files';
import { ContentParams, File, Files, FileSave, PostUrlAnswer, PostUrlBody } from '../../schemas/media';

function decodeContents(value: string): { body: Buffer; type?: string } {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=-]+)*;base64,(.*)$/s.exec(value);
  const base64 = m ? m[2]! : value;
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64)) throw badRequest('fileContents', 'must be base64');
  return { body: Buffer.from(base64, 'base64'), type: m?.[1] };
}

/** `/content/files`: files of content items in object storage (base64 upload or a pre-signed address). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/files/:contentType/:contentId', { config: { access: anyUser }, schema: { params: ContentParams, response: { 200: Files } } }, async (req) =>
    filesOf(app.db, req.auth.churchId, req.params.contentType, req.params.contentId),
  );

  // The website's files (the site editor's file picker).
  app.get('/content/files', { config: { access: anyUser }, schema: { response: { 200: Files } } }, async (req) => filesOf(app.db, req.auth.churchId, 'website'));

  app.get('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: File } } }, async (req) => getRow(app.db, files, req.auth.churchId, req.params.id, 'File'));

  app.post('/content/files', { config: { access: anyUser }, schema: { body: batchOf(FileSave), response: { 200: Files } } }, async (req) => {
    const churchId = req.auth.churchId;
    const decoded = req.body.map((item, i) => {
      if (!item.fileContents) return undefined;
      try {
        return decodeContents(item.fileContents);
      } catch {
        throw badRequest(itemParam(req, i, 'fileContents'), 'must be base64');
      }
    });
    const items = req.body.map((item) => ({ ...item, contentId: contentIdOf(churchId, item.contentId) }));
    await checkContentItems(req, items);
    for (const item of items) await assertCanManage(app, req, item.contentType, item.contentId);
    // new files go to the church's own storage when it has one enabled
    const { storage, providerId } = await storageFor(app, churchId);
    const stored: string[] = [];
    try {
      return await app.db.transaction(async (tx) => {
        const out = [];
        for (const [i, item] of items.entries()) {
          const inline = decoded[i];
          if (!inline) {
            out.push(await confirmDirectUpload(tx, churchId, item, (field) => itemParam(req, i, field)));
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
          const row = existing ? await updateFile(tx, id, values) : await insertFile(tx, churchId, id, values);
          if (existing && (existing.storageKey !== key || existing.providerId !== providerId)) {
            const was = await storageOfFile(app, churchId, existing.providerId);
            await was.remove(existing.storageKey).catch(() => undefined);
          }
          out.push(row);
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
  // Without `size` (the apps' FileUpload sends only name, type and item) the form takes at most what the item
  // has left, and the waiting upload holds that much of the quota until it is saved or its form expires.
  app.post('/content/files/postUrl', { config: { access: anyUser }, schema: { body: PostUrlBody, response: { 200: PostUrlAnswer } } }, async (req) => {
    const { contentType, fileName, size } = req.body;
    const fileType = req.body.fileType ?? (req.body.mimeType || 'application/octet-stream');
    const churchId = req.auth.churchId;
    const contentId = contentIdOf(churchId, req.body.contentId);
    await checkContentItems(req, [{ contentType, contentId }]);
    await assertCanManage(app, req, contentType, contentId);
    const left = await assertQuota(app.db, churchId, contentType, contentId, size ?? 0, 'size');
    if (size == null && left <= 0) throw badRequest('size', 'files of this content item already take 100 MB, the most allowed');
    const own = await storageFor(app, churchId);
    if (!own.providerId && !directUploads(app)) return {};
    const id = randomUUID();
    const key = `${churchId}/files/${contentType}/${contentId}/${id}/${safeName(fileName)}`;
    const [minBytes, maxBytes] = size == null ? [0, left] : [size, size];
    // the church's own bucket: a signed PUT address of its storage (its key and content type fixed)
    const upload = own.providerId ? await ownUpload(own.storage, key, fileType) : await signedUpload(app, key, fileType, minBytes, maxBytes);
    const row = await insertFile(app.db, churchId, id, { contentType, contentId, fileName, fileType, size: maxBytes, storageKey: key, contentPath: upload.contentPath, uploaded: false, providerId: own.providerId });
    return { id: row.id, key, ...upload };
  });

  app.delete('/content/files/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const file = await getRow(app.db, files, req.auth.churchId, req.params.id, 'File');
    await assertCanManage(app, req, file.contentType, file.contentId);
    await deleteFile(app.db, req.auth.churchId, file.id);
    await (await storageOfFile(app, req.auth.churchId, file.providerId)).remove(file.storageKey);
    return {};
  });
}

/**
 * The save that follows an upload straight to storage (the apps post the file's name, type and size without
 * its contents): the upload `postUrl` prepared for it (by `id`, else its newest one of that name for the
 * content item) is marked done. None waiting: 400 naming `fileContents`.
 */
async function confirmDirectUpload(tx: DbOrTx, churchId: string, item: z.output<typeof FileSave>, param: (field: string) => string) {
  const pending = await pendingUpload(tx, churchId, item);
  if (!pending) throw badRequest(param('fileContents'), 'is required');
  // The waiting row holds the most the signed form let through (the size declared to postUrl, or what the item
  // had left); the file counts with the size the app reports, which cannot be more than that.
  const size = item.size ?? pending.size;
  if (size > pending.size) throw badRequest(param('size'), `is more than the ${pending.size} bytes the upload allowed`);
  await assertQuota(tx, churchId, pending.contentType, pending.contentId, size, param('size'), pending.id);
  return updateFile(tx, pending.id, { uploaded: true, size });
}

async function ownUpload(storage: Storage, key: string, contentType: string): Promise<SignedUpload> {
  const expiresIn = UPLOAD_FORM_SECONDS;
  const signed = await storage.presignUpload(key, contentType, expiresIn);
  return { method: 'PUT', url: signed.uploadUrl, fields: {}, headers: { 'content-type': contentType }, contentPath: signed.url, expiresIn };
}
