import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { badRequest } from './errors';

export interface Storage {
  readonly kind: 's3' | 'local';
  /** stores the bytes under `key` and answers the public address */
  put(key: string, body: Buffer, contentType: string): Promise<string>;
  remove(key: string): Promise<void>;
  /** an address a client can PUT the file to directly, valid for `expiresSeconds` */
  presignUpload(key: string, contentType: string, expiresSeconds?: number): Promise<{ uploadUrl: string; url: string }>;
  urlOf(key: string): string;
}

export interface StorageOptions {
  bucket?: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** folder for the local store */
  localDir: string;
  /** public base address of stored files */
  publicBaseUrl: string;
}

/** S3 (or any S3-compatible endpoint) when a bucket is configured, a local folder otherwise. */
export async function createStorage(options: StorageOptions): Promise<Storage> {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  if (!options.bucket) {
    return {
      kind: 'local',
      urlOf: (key) => `${base}/${key}`,
      async put(key, body) {
        const file = localPath(options.localDir, key);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, body);
        return `${base}/${key}`;
      },
      async remove(key) {
        await rm(localPath(options.localDir, key), { force: true });
      },
      async presignUpload(key) {
        // The local store has no upload endpoint of its own; clients send base64 through the API instead.
        return { uploadUrl: '', url: `${base}/${key}` };
      },
    };
  }
  const { S3Client, PutObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: Boolean(options.endpoint),
    credentials:
      options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
  });
  const bucket = options.bucket;
  return {
    kind: 's3',
    urlOf: (key) => `${base}/${key}`,
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
      return `${base}/${key}`;
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async presignUpload(key, contentType, expiresSeconds = 900) {
      const uploadUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: contentType }), {
        expiresIn: expiresSeconds,
      });
      return { uploadUrl, url: `${base}/${key}` };
    },
  };
}

/** Keys are relative paths of safe segments; `..` or absolute paths never reach the file system. */
function localPath(dir: string, key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/.test(key) || key.split('/').includes('..')) throw badRequest('key', 'invalid file key');
  return path.join(path.resolve(dir), key);
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.+)$/s;

/** Decodes a `data:<type>;base64,...` address (photos and images sent inline); null when it is not one. */
export function decodeDataUrl(value: string): { contentType: string; body: Buffer; extension: string } | null {
  const m = DATA_URL.exec(value);
  if (!m) return null;
  const contentType = m[1]!.toLowerCase();
  const extension = contentType.split('/')[1]!.replace('jpeg', 'jpg').replace(/[^a-z0-9]/g, '');
  return { contentType, body: Buffer.from(m[2]!, 'base64'), extension };
}
