import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { badRequest } from './errors';
import { checkedLookup, isRefusedAddress } from './outbound';

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
  /**
   * which addresses the S3 client may connect to (a church's own endpoint: public ones, `isPublicAddress`); each
   * connection connects to the address it checked. Any, when absent (the platform's own bucket).
   */
  allowAddress?: (address: string) => boolean;
  /** the field a refused address is reported against (400), e.g. `settings.endpoint` */
  endpointParam?: string;
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
  // An endpoint a church chose: every connection resolves its name once, checks every address and connects to it.
  const agents = options.allowAddress
    ? { httpAgent: new http.Agent({ keepAlive: true, lookup: checkedLookup(options.allowAddress) as never }), httpsAgent: new https.Agent({ keepAlive: true, lookup: checkedLookup(options.allowAddress) as never }) }
    : undefined;
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: Boolean(options.endpoint),
    ...(agents && { requestHandler: agents }),
    credentials:
      options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
  });
  const bucket = options.bucket;
  // A connection the address rule refused is the caller's setting at fault: a 400 naming it.
  const send = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      if (isRefusedAddress(err)) throw badRequest(options.endpointParam ?? 'endpoint', 'must be a public http(s) address');
      throw err;
    }
  };
  return {
    kind: 's3',
    urlOf: (key) => `${base}/${key}`,
    async put(key, body, contentType) {
      await send(() => client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType })));
      return `${base}/${key}`;
    },
    async remove(key) {
      await send(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
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

/**
 * Extensions a stored file may get from its declared type; any other type is stored as `.bin` and so served as
 * `application/octet-stream`. A client cannot make the file store serve HTML, SVG or script from an upload.
 */
const SAFE_EXTENSIONS = new Set(['png', 'jpg', 'gif', 'webp', 'pdf', 'mp3', 'mp4', 'm4a', 'wav', 'ogg', 'webm', 'txt', 'csv', 'json', 'zip', 'docx', 'xlsx', 'pptx', 'doc', 'xls', 'ppt', 'pro', 'chordpro']);

/** Decodes a `data:<type>;base64,...` address (files sent inline); null when it is not one. */
export function decodeDataUrl(value: string): { contentType: string; body: Buffer; extension: string } | null {
  const m = DATA_URL.exec(value);
  if (!m) return null;
  const declared = m[1]!.toLowerCase();
  const named = declared.split('/')[1]!.replace('jpeg', 'jpg').replace(/[^a-z0-9]/g, '');
  const extension = SAFE_EXTENSIONS.has(named) ? named : 'bin';
  return { contentType: extension === 'bin' ? 'application/octet-stream' : declared, body: Buffer.from(m[2]!, 'base64'), extension };
}

/** Raster image types accepted for photos and images, told apart by their first bytes. */
const IMAGE_SIGNATURES: Array<{ contentType: string; extension: string; matches: (b: Buffer) => boolean }> = [
  { contentType: 'image/png', extension: 'png', matches: (b) => b.length > 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { contentType: 'image/jpeg', extension: 'jpg', matches: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { contentType: 'image/gif', extension: 'gif', matches: (b) => b.length > 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1')) },
  { contentType: 'image/webp', extension: 'webp', matches: (b) => b.length > 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

/** Images larger than this are refused (5 MB; a phone photo resized by the app is far smaller). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Decodes an inline image (`data:image/...;base64,`) and accepts it only when its bytes are a PNG, JPEG, GIF or
 * WebP image within the size limit; the stored type comes from the bytes, never from what the client declared.
 * Anything else is a 400 naming `param`.
 */
export function decodeImage(value: string, param: string, maxBytes = MAX_IMAGE_BYTES): { contentType: string; body: Buffer; extension: string } {
  const m = DATA_URL.exec(value);
  if (!m) throw badRequest(param, 'must be an image as a data URL (data:image/png;base64,...)');
  const body = Buffer.from(m[2]!, 'base64');
  if (body.length > maxBytes) throw badRequest(param, `image is larger than ${Math.floor(maxBytes / 1024 / 1024)} MB`);
  const kind = IMAGE_SIGNATURES.find((k) => k.matches(body));
  if (!kind) throw badRequest(param, 'must be a PNG, JPEG, GIF or WebP image');
  return { contentType: kind.contentType, body, extension: kind.extension };
}

/**
 * Headers every stored file is served with (the gateway's /files, and S3 objects via their metadata): never
 * sniffed into another type, and sandboxed so that even a document a browser renders runs no script.
 */
export const STORED_FILE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
} as const;
