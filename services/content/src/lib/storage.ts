import { z } from 'zod';

/** A church's own S3-compatible storage: where it is (the key and secret are kept apart, encrypted). */
export const S3Settings = z.object({
  endpoint: z.string().trim().max(500).optional().default(''),
  region: z.string().trim().max(50).optional().default(''),
  bucket: z.string().trim().max(255).optional().default(''),
  publicBase: z.string().trim().max(500).optional().default(''),
});
export type S3Settings = z.output<typeof S3Settings>;

/** The providers a church can link; only `s3` takes files here (the drives are linked, not written to yet). */
export const OAUTH_PROVIDERS = ['googledrive', 'dropbox', 'onedrive'] as const;
export const PROVIDERS = ['s3', ...OAUTH_PROVIDERS] as const;
