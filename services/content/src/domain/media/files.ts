import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { REMOTE, assertReferences, badRequest, getRow, unauthorized, type Actor, type DbOrTx, type Storage, type Tx } from '@church/common';
import { personGroupIds } from '../../clients/membership';
import { files } from '../../db/media';
import type { ContentDeps } from '../../deps';
import { MAX_BYTES_PER_CONTENT, UPLOAD_FORM_SECONDS } from '../../lib/files';
import { bytesOfContent, deleteFile, insertFile, pendingUpload, updateFile } from '../../repos/media/files';
import type { FileSave, PostUrlBody } from '../../schemas/media';
import { storageFor, storageOfFile, type StorageDeps } from './byos';
import { directUploads, safeName, signedUpload, type SignedUpload } from './uploads';


/**
 * The content item a file belongs to: the one named, or for a website file sent with none (B1Admin's site file
 * manager sends `""`) the church's site library, kept under the church's id, so both count against one quota.
 */
export const contentIdOf = (churchId: string, contentId: string): string => contentId || churchId;

/**
 * A file's item is polymorphic (`contentType`, `contentId`): the types whose item is a record of a church name it
 * by its type (a group's files and its leaders' files name a group, membership's); `website` names the church's
 * library (the church's own id), and any other type names no record known here, so it is not checked (README).
 */
const ITEM_OF_TYPE = { group: REMOTE.groups, groupLeader: REMOTE.groups } as const;

/**
 * The items files are saved for are the church's, by their type (a 400 naming `contentId` as `param` names the
 * field of item `i`); before any transaction.
 */
export async function checkContentItems(
  deps: Pick<ContentDeps, 'db' | 'internal'>,
  churchId: string,
  items: Array<{ contentType: string; contentId: string }>,
  param: (i: number, field: string) => string,
): Promise<void> {
  const groupItems = items.map((item) => ({ contentId: Object.hasOwn(ITEM_OF_TYPE, item.contentType) ? item.contentId : undefined }));
  await assertReferences(deps, churchId, groupItems, { contentId: REMOTE.groups }, param);
}

/**
 * Files of a content item may be managed by Content.Edit holders, and for a group's content (`contentType`
 * `group`) by members of that group: leaders are known from the token, members are asked of membership.
 */
export async function assertCanManage(deps: Pick<ContentDeps, 'internal'>, actor: Actor, contentType: string, contentId: string): Promise<void> {
  if (hasPermission(actor, 'Content.Edit', 'ContentApi')) return;
  if (contentType === 'group' && actor.personId) {
    if (actor.leaderGroupIds.includes(contentId)) return;
    if ((await personGroupIds(deps.internal, actor.churchId, actor.personId, actor.requestId)).includes(contentId)) return;
  }
  throw unauthorized('Missing permission: Content.Edit or group member');
}

/**
 * Refuses an upload that would take a content item past 100 MB (`param` names the size field); answers the
 * bytes the item has left after it.
 */
export async function assertQuota(db: DbOrTx, churchId: string, contentType: string, contentId: string, adding: number, param: string, replacingId?: string): Promise<number> {
  const used = await bytesOfContent(db, churchId, contentType, contentId, UPLOAD_FORM_SECONDS, replacingId);
  if (used + adding > MAX_BYTES_PER_CONTENT) {
    throw badRequest(param, `files of this content item would take ${Math.ceil((used + adding) / 1048576)} MB; at most 100 MB are allowed`);
  }
  return MAX_BYTES_PER_CONTENT - used - adding;
}

/** Who saves files and what they read: the database, the storages, membership (group members) and the config. */
export type FileDeps = StorageDeps & Pick<ContentDeps, 'internal'>;
type FileItem = z.output<typeof FileSave>;

function decodeContents(value: string): { body: Buffer; type?: string } {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=-]+)*;base64,(.*)$/s.exec(value);
  const base64 = m ? m[2]! : value;
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64)) throw badRequest('fileContents', 'must be base64');
  return { body: Buffer.from(base64, 'base64'), type: m?.[1] };
}

/**
 * Saves a batch of files (`param(i, field)` names a field of item `i`): sent inline (base64) they are stored in the
 * church's storage (its own enabled one, else the platform's), or they confirm an upload straight to storage that
 * `prepareUpload` made ready. Items are checked (the church's, the caller may manage them, the quota) and written
 * in one transaction; objects stored for a batch that fails are removed again.
 */
export async function saveFiles(deps: FileDeps, actor: Actor, body: FileItem[], param: (i: number, field: string) => string) {
  const churchId = actor.churchId;
  const decoded = body.map((item, i) => {
    if (!item.fileContents) return undefined;
    try {
      return decodeContents(item.fileContents);
    } catch {
      throw badRequest(param(i, 'fileContents'), 'must be base64');
    }
  });
  const items = body.map((item) => ({ ...item, contentId: contentIdOf(churchId, item.contentId) }));
  await checkContentItems(deps, churchId, items, param);
  for (const item of items) await assertCanManage(deps, actor, item.contentType, item.contentId);
  // new files go to the church's own storage when it has one enabled
  const { storage, providerId } = await storageFor(deps, churchId);
  const stored: string[] = [];
  try {
    return await deps.db.transaction(async (tx) => {
      const out = [];
      for (const [i, item] of items.entries()) {
        const inline = decoded[i];
        if (!inline) {
          out.push(await confirmDirectUpload(tx, churchId, item, (field) => param(i, field)));
          continue;
        }
        const { body: bytes, type } = inline;
        const existing = item.id ? await getRow(tx, files, churchId, item.id, 'File') : undefined;
        await assertQuota(tx, churchId, item.contentType, item.contentId, bytes.length, param(i, 'fileContents'), existing?.id);
        const id = existing?.id ?? randomUUID();
        const key = `${churchId}/files/${item.contentType}/${item.contentId}/${id}/${safeName(item.fileName)}`;
        const fileType = item.fileType ?? type ?? 'application/octet-stream';
        const contentPath = await storage.put(key, bytes, fileType);
        stored.push(key);
        const values = { contentType: item.contentType, contentId: item.contentId, fileName: item.fileName, fileType, size: bytes.length, storageKey: key, contentPath, uploaded: true, providerId };
        const row = existing ? await updateFile(tx, id, values) : await insertFile(tx, churchId, id, values);
        if (existing && (existing.storageKey !== key || existing.providerId !== providerId)) {
          const was = await storageOfFile(deps, churchId, existing.providerId);
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
}

/**
 * The save that follows an upload straight to storage (the apps post the file's name, type and size without
 * its contents): the upload `prepareUpload` made ready for it (by `id`, else its newest one of that name for the
 * content item) is marked done. None waiting: 400 naming `fileContents`.
 */
async function confirmDirectUpload(tx: Tx, churchId: string, item: FileItem, param: (field: string) => string) {
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

/**
 * Makes an upload straight to storage ready (`POST /files/postUrl`): the file's row waits, holding its bytes of
 * the item's quota until it is saved or its form expires, and the answer is the signed form or address. Without
 * `size` the form takes at most what the item has left. On the local store there is no direct upload: `{}`.
 */
export async function prepareUpload(deps: FileDeps, actor: Actor, input: z.output<typeof PostUrlBody>) {
  const { contentType, fileName, size } = input;
  const fileType = input.fileType ?? (input.mimeType || 'application/octet-stream');
  const churchId = actor.churchId;
  const contentId = contentIdOf(churchId, input.contentId);
  await checkContentItems(deps, churchId, [{ contentType, contentId }], (_i, field) => field);
  await assertCanManage(deps, actor, contentType, contentId);
  const left = await assertQuota(deps.db, churchId, contentType, contentId, size ?? 0, 'size');
  if (size == null && left <= 0) throw badRequest('size', 'files of this content item already take 100 MB, the most allowed');
  const own = await storageFor(deps, churchId);
  if (!own.providerId && !directUploads(deps)) return {};
  const id = randomUUID();
  const key = `${churchId}/files/${contentType}/${contentId}/${id}/${safeName(fileName)}`;
  const [minBytes, maxBytes] = size == null ? [0, left] : [size, size];
  // the church's own bucket: a signed PUT address of its storage (its key and content type fixed)
  const upload = own.providerId ? await ownUpload(own.storage, key, fileType) : await signedUpload(deps, key, fileType, minBytes, maxBytes);
  const row = await insertFile(deps.db, churchId, id, { contentType, contentId, fileName, fileType, size: maxBytes, storageKey: key, contentPath: upload.contentPath, uploaded: false, providerId: own.providerId });
  return { id: row.id, key, ...upload };
}

/** Deletes a file the caller may manage, and its object from the storage it was written to. */
export async function removeFile(deps: FileDeps, actor: Actor, id: string): Promise<void> {
  const file = await getRow(deps.db, files, actor.churchId, id, 'File');
  await assertCanManage(deps, actor, file.contentType, file.contentId);
  await deleteFile(deps.db, actor.churchId, file.id);
  await (await storageOfFile(deps, actor.churchId, file.providerId)).remove(file.storageKey);
}
