import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { badRequest, decodeDataUrl, notConfigured } from '@church/common';
import type { ContentDeps } from '../../deps';
import { upsertImage } from '../../repos/media/gallery';
import type { RequestUpload } from '../../schemas/media';
import { UPLOAD_FORM_SECONDS } from '../../lib/files';
import { presignedPost } from './s3-post';

/** Largest inline (base64) image: thumbnails and gallery images, not videos. */
export const MAX_INLINE_IMAGE_BYTES = 10 * 1024 * 1024;

/** A safe storage key segment from a user's file name (`My Photo (1).JPG` → `My-Photo-1-.JPG`). */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(-120);
  return cleaned || 'file';
}

/**
 * Stores a base64 image sent inline (`data:image/png;base64,...`) under the church's folder and answers its
 * address; any other value (an address, null) is kept as it is.
 */
export async function storeInlineImage(deps: Pick<ContentDeps, 'storage'>, churchId: string, folder: string, value: string | null | undefined, param: string): Promise<string | null | undefined> {
  if (!value || !value.startsWith('data:')) return value;
  const decoded = decodeDataUrl(value);
  if (!decoded || !decoded.contentType.startsWith('image/')) throw badRequest(param, 'must be an image address or a base64 data URL of an image');
  if (decoded.body.length > MAX_INLINE_IMAGE_BYTES) throw badRequest(param, 'image is larger than 10 MB');
  const key = `${churchId}/${folder}/${randomUUID()}.${decoded.extension || 'bin'}`;
  return deps.storage.put(key, decoded.body, decoded.contentType);
}

/** How a client uploads straight to object storage: a signed form (POST) or a signed address (PUT). */
export interface SignedUpload {
  method: 'POST' | 'PUT';
  url: string;
  /** form fields to send before the file (POST) */
  fields: Record<string, string>;
  /** headers to send with the body (PUT) */
  headers: Record<string, string>;
  /** the file's public address once uploaded */
  contentPath: string;
  expiresIn: number;
}

/** Whether clients can upload straight to object storage (an S3 bucket; the local store cannot). */
export function directUploads(deps: Pick<ContentDeps, 'storage' | 'config'>): boolean {
  return deps.storage.kind === 's3' && Boolean(deps.config.S3_BUCKET);
}

/**
 * A direct upload to the bucket. With S3 credentials in the config, a signed POST form whose policy fixes the
 * key, the content type and the size range; otherwise (an instance role) the storage's signed PUT address,
 * which fixes the key and content type. The local store has neither: 400 naming S3_BUCKET.
 */
export async function signedUpload(deps: Pick<ContentDeps, 'storage' | 'config'>, key: string, contentType: string, minBytes: number, maxBytes: number): Promise<SignedUpload> {
  const c = deps.config;
  if (!directUploads(deps) || !c.S3_BUCKET) throw notConfigured('Direct uploads to object storage', 'S3_BUCKET');
  const expiresIn = UPLOAD_FORM_SECONDS;
  if (c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY) {
    const form = presignedPost({ bucket: c.S3_BUCKET, region: c.S3_REGION, endpoint: c.S3_ENDPOINT, accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY, key, contentType, minBytes, maxBytes, expiresSeconds: expiresIn });
    return { method: 'POST', url: form.url, fields: form.fields, headers: {}, contentPath: deps.storage.urlOf(key), expiresIn };
  }
  const signed = await deps.storage.presignUpload(key, contentType, expiresIn);
  return { method: 'PUT', url: signed.uploadUrl, fields: {}, headers: { 'content-type': contentType }, contentPath: signed.url, expiresIn };
}

/**
 * An image of the church's gallery (`POST /gallery/requestUpload`): sent inline as a data URL it is stored at once;
 * otherwise the answer carries the signed form or address to upload it straight to storage. Either way the image
 * is listed in its folder under its safe name.
 */
export async function galleryUpload(deps: Pick<ContentDeps, 'db' | 'storage' | 'config'>, churchId: string, body: z.output<typeof RequestUpload>) {
  const { folder, fileType } = body;
  const image = safeName(body.fileName);
  const key = `${churchId}/gallery/${folder}/${image}`;
  let upload: SignedUpload | undefined;
  let url: string;
  if (body.fileContents) {
    const decoded = decodeDataUrl(body.fileContents);
    if (!decoded || !decoded.contentType.startsWith('image/')) throw badRequest('fileContents', 'must be a base64 data URL of an image');
    if (decoded.body.length > MAX_INLINE_IMAGE_BYTES) throw badRequest('fileContents', 'image is larger than 10 MB');
    url = await deps.storage.put(key, decoded.body, decoded.contentType);
  } else {
    upload = await signedUpload(deps, key, fileType, 1, MAX_INLINE_IMAGE_BYTES);
    url = upload.contentPath;
  }
  await upsertImage(deps.db, churchId, { folder, image, storageKey: key, url, fileType });
  return { folder, image, key, imageUrl: url, method: upload?.method ?? null, url: upload?.url ?? '', fields: upload?.fields ?? {}, headers: upload?.headers ?? {}, expiresIn: upload?.expiresIn ?? 0 };
}
