import dns, { type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { HttpError, badRequest, type Storage } from '@church/common';
import { presignedUrl, sha256Hex, signedHeaders, uriEncode, type SigV4Credentials } from './sigv4';

/**
 * A church's own S3-compatible bucket, spoken to through S3's documented REST API (PutObject, DeleteObject,
 * presigned PUT) with SigV4. Its endpoint is an address the church chose, so every connection resolves the name
 * itself, checks every address it resolves to with `allowAddress` (public addresses only, @church/common's
 * `isPublicAddress`) and connects to the address it checked: a name that was public when saved and resolves to
 * an address inside the network later is refused at the connection (400 naming `settings.endpoint`), never
 * reached. (The SDK's client does its own lookup, which a rebinding DNS could answer differently.)
 */
export interface OwnS3Options {
  /** an S3-compatible endpoint (path-style); AWS's virtual-hosted address when empty */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** public base address of stored objects */
  publicBase: string;
  allowAddress: (address: string) => boolean;
  timeoutMs?: number;
}

class RefusedAddress extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/** A connection lookup that resolves once, refuses the name unless every address passes, and answers those addresses. */
function checkedLookup(allow: (address: string) => boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err);
      if (!addresses.length || addresses.some((a) => !allow(a.address))) return callback(new RefusedAddress(`refused address for ${hostname}`));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const refused = () => badRequest('settings.endpoint', 'the storage’s address must be a public http(s) address');
const unreachable = () => new HttpError(502, [{ msg: 'The church’s storage could not be reached' }]);

export function ownS3Storage(o: OwnS3Options): Storage {
  const endpoint = o.endpoint ? new URL(o.endpoint) : undefined;
  const base = o.publicBase.replace(/\/+$/, '');
  const lookup = checkedLookup(o.allowAddress);
  const agent = endpoint?.protocol === 'http:' ? new HttpAgent({ lookup: lookup as never, keepAlive: false }) : new HttpsAgent({ lookup: lookup as never, keepAlive: false });
  const creds: SigV4Credentials | undefined = o.accessKeyId && o.secretAccessKey ? { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey, region: o.region } : undefined;

  /** Path-style under the endpoint, else AWS's virtual-hosted address. */
  const objectUrl = (key: string) => {
    const path = key.split('/').map((s) => uriEncode(s)).join('/');
    if (!endpoint) return new URL(`https://${o.bucket}.s3.${o.region}.amazonaws.com/${path}`);
    return new URL(`${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}/${uriEncode(o.bucket)}/${path}`);
  };

  const send = (method: 'PUT' | 'DELETE', key: string, body?: Buffer, contentType?: string) =>
    new Promise<void>((resolve, reject) => {
      const url = objectUrl(key);
      // an address written as a literal is connected to without a lookup: checked here
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !o.allowAddress(host)) return reject(refused());
      const payload = body ?? Buffer.alloc(0);
      const unsigned: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      const headers = creds ? signedHeaders(creds, { method, url, headers: unsigned, payloadHash: sha256Hex(payload), now: new Date() }) : unsigned;
      const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
      const req = send(url, { method, agent, headers: { ...headers, 'content-length': String(payload.length) } }, (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 ? resolve() : reject(unreachable())));
        res.on('error', () => reject(unreachable()));
      });
      req.setTimeout(o.timeoutMs ?? 30_000, () => req.destroy(new Error('timed out')));
      req.on('error', (err) => reject(err instanceof RefusedAddress || (err as { cause?: unknown }).cause instanceof RefusedAddress ? refused() : unreachable()));
      req.end(payload);
    });

  return {
    kind: 's3',
    urlOf: (key) => `${base}/${key}`,
    async put(key, body, contentType) {
      await send('PUT', key, body, contentType);
      return `${base}/${key}`;
    },
    async remove(key) {
      await send('DELETE', key);
    },
    async presignUpload(key, contentType, expiresSeconds = 900) {
      // signing only: the browser connects to the bucket, not this service
      if (!creds) throw badRequest('apiKey', 'the storage’s key and secret are required for uploads straight to it');
      const uploadUrl = presignedUrl(creds, { method: 'PUT', url: objectUrl(key), headers: { 'content-type': contentType }, now: new Date() }, expiresSeconds);
      return { uploadUrl, url: `${base}/${key}` };
    },
  };
}
