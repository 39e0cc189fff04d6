import { z } from 'zod';
import { Id } from '@church/common';
import { OAUTH_PROVIDERS, PROVIDERS } from '../lib/storage';
import { MAX_BYTES_PER_CONTENT } from '../lib/files';

// Files of content items.
export const File = z.object({
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
export const Files = z.array(File);
const ContentType = z.string().trim().min(1, 'is required').max(50).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
const ContentId = z.string().trim().min(1, 'is required').max(100).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
/**
 * The content item of a file in a body: B1Admin's site file manager sends `""` for the website's own files
 * (`contentType` `website`), which then belong to the church's site library (see `contentIdOf`); every other
 * content type names its item.
 */
const BodyContentId = z
  .string()
  .trim()
  .max(100)
  .regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, - and _ only')
  .nullish()
  .transform((v) => v ?? '');
const contentIdRequired = (v: { contentType: string; contentId: string }, ctx: z.RefinementCtx) => {
  if (!v.contentId && v.contentType !== 'website') ctx.addIssue({ code: 'custom', path: ['contentId'], message: 'is required' });
};
const FileName = z.string().trim().min(1, 'is required').max(255);
export const ContentParams = z.object({ contentType: ContentType, contentId: ContentId });
export const FileSave = z
  .object({
    id: Id.optional(),
    contentType: ContentType,
    contentId: BodyContentId,
    fileName: FileName,
    fileType: z.string().trim().max(200).nullish(),
    /** the file as base64, or as a `data:` URL; absent: the file was uploaded straight to storage (`postUrl`) */
    fileContents: z.string().min(1, 'is required').max(140_000_000).nullish(),
    /** sent by the apps with every file; the stored size is what was uploaded (or declared to `postUrl`) */
    size: z.coerce.number().int().min(0).nullish(),
  })
  .superRefine(contentIdRequired);
export const PostUrlBody = z
  .object({
    contentType: ContentType,
    contentId: BodyContentId,
    fileName: FileName,
    fileType: z.string().trim().min(1).max(200).optional(),
    /** the apps' name for `fileType` */
    mimeType: z.string().trim().max(200).nullish(),
    /** bytes the client will upload; absent (B1Admin's and B1App's FileUpload): at most what the content item has left */
    size: z.coerce.number().int().min(0).max(MAX_BYTES_PER_CONTENT).nullish(),
  })
  .superRefine(contentIdRequired);
/** How a client uploads straight to object storage: a signed form (POST, its `fields` first) or a signed address (PUT, with `headers`). */
const SignedUpload = {
  method: z.enum(['POST', 'PUT']),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
  headers: z.record(z.string(), z.string()),
  /** the file's public address once uploaded */
  contentPath: z.string(),
  expiresIn: z.number(),
};
/**
 * A prepared direct upload (the file's `id` and storage `key` with the signed upload: every key), or `{}` where
 * there is none (the local store): the apps then send the file inline to POST /content/files. One object whose
 * keys are all optional rather than a union: a union would be serialized by running a validator on each answer.
 */
export const PostUrlAnswer = z.object({ id: z.string(), key: z.string(), ...SignedUpload }).partial();

// Gallery and stock images.
const Folder = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only');
export const FolderParams = z.object({ folder: Folder });
export const GalleryImageParams = z.object({ folder: Folder, image: z.string().min(1).max(200) });
export const GalleryImage = z.object({ id: z.string(), folder: z.string(), image: z.string(), url: z.string(), fileType: z.string().nullable(), createdAt: z.date() });
export const GalleryImages = z.array(GalleryImage);
export const RequestUpload = z.object({
  folder: Folder,
  fileName: z.string().trim().min(1, 'is required').max(200),
  fileType: z.string().trim().regex(/^image\/[\w.+-]+$/, 'must be an image type').default('image/jpeg'),
  /** the local store (no S3 bucket) takes the image inline as a `data:` URL instead of a pre-signed upload */
  fileContents: z.string().max(15_000_000).optional(),
});
/**
 * The image's place (`imageUrl` its address) and how to upload it; an image sent inline is stored already:
 * `method` is then null, `url` '', `fields` and `headers` empty and `expiresIn` 0.
 */
export const RequestedUpload = z.object({
  folder: z.string(),
  image: z.string(),
  key: z.string(),
  imageUrl: z.string(),
  method: SignedUpload.method.nullable(),
  url: z.string(),
  fields: SignedUpload.fields,
  headers: SignedUpload.headers,
  expiresIn: z.number(),
});
/** A bundled stock image (inline as a `data:` URL). */
export const BundledImages = z.array(z.object({ folder: z.string(), image: z.string(), url: z.string(), license: z.string() }));
export const StockSearchBody = z.object({ term: z.string().trim().min(1, 'is required').max(200) });
/** One photo of a stock photo search. */
export const StockPhoto = z.object({
  id: z.string(),
  url: z.string(),
  thumbnail: z.string(),
  description: z.string(),
  photographer: z.string(),
  photographerUrl: z.string(),
  source: z.string(),
  license: z.string(),
});
export const StockPhotos = z.array(StockPhoto);

// A church's own storage.
export const StorageProvider = z.object({ id: z.string(), churchId: z.string(), provider: z.string(), enabled: z.boolean(), settings: z.string().nullable(), apiKey: z.string(), apiSecret: z.string(), connected: z.boolean() });
export const StorageProviders = z.array(StorageProvider);
export const StorageProviderSave = z.object({
  id: Id.optional(),
  provider: z.enum(PROVIDERS),
  enabled: z.boolean().optional(),
  apiKey: z.string().trim().max(500).nullish(),
  apiSecret: z.string().trim().max(500).nullish(),
  settings: z.string().max(4000).nullish(),
});
/** A provider still holding files is only disabled (`disabled`, with their count); otherwise `{}`. */
export const StorageProviderDeleted = z.object({ disabled: z.boolean().optional(), fileCount: z.number().optional() });
export const StorageStatus = z.object({ provider: z.string(), usedBytes: z.number() });
export const StorageExchange = z.object({ provider: z.enum(OAUTH_PROVIDERS), code: z.string().trim().min(1, 'is required').max(2000), codeVerifier: z.string().trim().min(1, 'is required').max(200), redirectUri: z.url().max(2000) });

// Speech.
/** Polly's limit on SSML characters per request. */
export const MAX_SSML = 6000;
export const SpeechBody = z.object({
  ssml: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(MAX_SSML, `at most ${MAX_SSML} characters`)
    .refine((s) => /^<speak(\s[^>]*)?>[\s\S]*<\/speak>$/.test(s), 'must be speech markup starting with a <speak> element'),
});
/**
 * The speech as MP3 bytes (audio/mpeg): the handler sends a Buffer, which Fastify sends as it is (no
 * serializer); the document shows it as binary.
 */
export const SpeechAudio = z.instanceof(Buffer).meta({ type: 'string', format: 'binary', description: 'the speech as MP3 (audio/mpeg)' });
