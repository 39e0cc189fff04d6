import { createHmac } from 'node:crypto';

export interface S3PostOptions {
  bucket: string;
  region: string;
  /** an S3-compatible endpoint (path-style); AWS's virtual-hosted address when unset */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  key: string;
  contentType: string;
  /** the accepted size range in bytes, part of the signed policy */
  minBytes: number;
  maxBytes: number;
  expiresSeconds?: number;
  now?: Date;
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The SigV4 signing key of a day, region and service (AWS Signature Version 4). */
export function signingKey(secret: string, date: string, region: string, service = 's3'): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/**
 * A browser-based upload form for S3 (POST Object with a SigV4-signed policy): the key, the content type and
 * the size range are conditions of the policy, so the store itself refuses any other file.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 */
export function presignedPost(o: S3PostOptions): { url: string; fields: Record<string, string> } {
  const now = o.now ?? new Date();
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const credential = `${o.accessKeyId}/${day}/${o.region}/s3/aws4_request`;
  const policy = {
    expiration: new Date(now.getTime() + (o.expiresSeconds ?? 900) * 1000).toISOString(),
    conditions: [
      { bucket: o.bucket },
      { key: o.key },
      { 'Content-Type': o.contentType },
      ['content-length-range', o.minBytes, o.maxBytes],
      { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
      { 'x-amz-credential': credential },
      { 'x-amz-date': amzDate },
    ],
  };
  const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
  const signature = createHmac('sha256', signingKey(o.secretAccessKey, day, o.region)).update(encoded).digest('hex');
  const url = o.endpoint ? `${o.endpoint.replace(/\/+$/, '')}/${o.bucket}` : `https://${o.bucket}.s3.${o.region}.amazonaws.com`;
  return {
    url,
    fields: {
      key: o.key,
      'Content-Type': o.contentType,
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      'x-amz-credential': credential,
      'x-amz-date': amzDate,
      policy: encoded,
      'x-amz-signature': signature,
    },
  };
}
