import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 for S3, as documented
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html): the signing key, and
 * the signed headers or query of one request.
 */

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
export const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The SigV4 signing key of a day, region and service. */
export function signingKey(secret: string, date: string, region: string, service = 's3'): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/** `20261207T183000Z` */
export const amzDate = (now: Date) => now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** RFC 3986 encoding as SigV4 wants it (`/` kept in a path). */
export function uriEncode(value: string, keepSlash = false): string {
  const encoded = encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

interface ToSign {
  method: string;
  url: URL;
  /** headers to sign besides `host` (lower-case names) */
  headers: Record<string, string>;
  payloadHash: string;
  now: Date;
}

function signature(creds: SigV4Credentials, req: ToSign, query: Array<[string, string]>): { signed: string; signedHeaders: string; scope: string } {
  const date = amzDate(req.now);
  const day = date.slice(0, 8);
  const scope = `${day}/${creds.region}/s3/aws4_request`;
  const headers: Record<string, string> = { ...req.headers, host: req.url.host };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalQuery = query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [req.method, req.url.pathname, canonicalQuery, names.map((n) => `${n}:${headers[n]!.trim()}\n`).join(''), signedHeaders, req.payloadHash].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonical)].join('\n');
  return { signed: createHmac('sha256', signingKey(creds.secretAccessKey, day, creds.region)).update(toSign).digest('hex'), signedHeaders, scope };
}

/** The headers that authenticate a request (sent with `headers`). */
export function signedHeaders(creds: SigV4Credentials, req: ToSign): Record<string, string> {
  const headers = { ...req.headers, 'x-amz-date': amzDate(req.now), 'x-amz-content-sha256': req.payloadHash };
  const { signed, signedHeaders: names, scope } = signature(creds, { ...req, headers }, []);
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signed}` };
}

/** A presigned address (query authentication) valid for `expiresSeconds`; the `headers` must be sent with it. */
export function presignedUrl(creds: SigV4Credentials, req: Omit<ToSign, 'payloadHash'>, expiresSeconds: number): string {
  const day = amzDate(req.now).slice(0, 8);
  const names = [...Object.keys(req.headers), 'host'].sort().join(';');
  const query: Array<[string, string]> = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${creds.accessKeyId}/${day}/${creds.region}/s3/aws4_request`],
    ['X-Amz-Date', amzDate(req.now)],
    ['X-Amz-Expires', String(expiresSeconds)],
    ['X-Amz-SignedHeaders', names],
  ];
  const { signed } = signature(creds, { ...req, payloadHash: 'UNSIGNED-PAYLOAD' }, query);
  const url = new URL(req.url);
  url.search = [...query, ['X-Amz-Signature', signed]].map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
  return url.toString();
}
