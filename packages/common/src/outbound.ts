import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, request, type Dispatcher } from 'undici';
import { HttpError, badRequest } from './errors';

/**
 * Fetching an address a caller gave us (a page to outline, a calendar feed, a webhook receiver) without letting
 * the caller reach inside our network. An address is public when ipaddr.js classifies it as `unicast` once an
 * IPv4-mapped IPv6 address is unwrapped: loopback, private, link-local (the cloud metadata address), CGNAT,
 * benchmarking (198.18/15), reserved (240/4), multicast, unique-local IPv6 and the IPv6 forms that embed an IPv4
 * address (6to4, NAT64, Teredo) are all refused. The name is resolved by the connection itself and every address it
 * resolves to is checked there, so the address connected to is the address checked (no second lookup a
 * rebinding DNS could answer differently); an address written as a literal is checked before connecting; each
 * redirect is a new request checked the same way.
 */

/** True when `address` (IPv4 or IPv6 text) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export interface PublicUrlOptions {
  /** the field the address came in, for the 400 (default `url`, in the body) */
  param?: string;
  location?: string;
  /** only https (push endpoints); http(s) by default */
  httpsOnly?: boolean;
  /** development and tests against fakes on loopback: any http(s) address passes */
  allowPrivate?: boolean;
  /** how names are resolved (tests); the system's resolver by default */
  resolve?: (host: string) => Promise<string[]>;
}

/**
 * An address a caller saves for the server to call later (a webhook receiver, a push endpoint, a storage
 * endpoint), checked by the rule delivery applies: http(s) without credentials, and a host that is public. A
 * literal address must be public; a name must not be local (`localhost`, `*.localhost`, with or without the
 * root's dot), must not spell a non-public address in its labels (`10.0.0.1.nip.io`, `127-0-0-1.sslip.io`: the
 * wildcard services that resolve such names to the address they spell), and every address it resolves to now must
 * be public. A name that does not resolve now passes: delivery resolves it again, and connects only to public
 * addresses (`fetchOutbound`). Answers the parsed address, or throws a 400 naming `param`.
 */
export async function checkPublicUrl(url: string, opts: PublicUrlOptions = {}): Promise<URL> {
  const refuse = (msg: string) => badRequest(opts.param ?? 'url', msg, opts.location ?? 'body');
  const kind = opts.httpsOnly && !opts.allowPrivate ? 'an https' : 'an http(s)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`must be ${kind} address`);
  }
  const schemes = opts.httpsOnly && !opts.allowPrivate ? ['https:'] : ['http:', 'https:'];
  if (!schemes.includes(parsed.protocol) || parsed.username || parsed.password) throw refuse(`must be ${kind} address without credentials`);
  if (opts.allowPrivate) return parsed;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) throw refuse('must be a public address');
    return parsed;
  }
  if (!host.includes('.') || host === 'localhost' || host.endsWith('.localhost') || spelledAddresses(host).some((a) => !isPublicAddress(a))) {
    throw refuse('must be a public address');
  }
  const resolve = opts.resolve ?? (async (name: string) => (await dnsPromises.lookup(name, { all: true, verbatim: true })).map((a) => a.address));
  const addresses = await resolve(host).catch(() => [] as string[]);
  if (addresses.some((a) => !isPublicAddress(a))) throw refuse('must be a public address');
  return parsed;
}

/** The IPv4 addresses a name spells in its labels: four numeric labels in a row, or one label of four numbers joined by dashes. */
function spelledAddresses(host: string): string[] {
  const labels = host.split('.');
  const found: string[] = [];
  for (let i = 0; i + 4 <= labels.length; i++) {
    const quad = labels.slice(i, i + 4);
    if (quad.every((l) => /^\d{1,3}$/.test(l))) found.push(quad.join('.'));
  }
  for (const label of labels) {
    const dashed = /(?:^|-)(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})$/.exec(label);
    if (dashed) found.push(dashed.slice(1, 5).join('.'));
    // a name spelling the address in hex (`7f000001.nip.io`)
    if (/^(0x)?[0-9a-f]{8}$/.test(label)) found.push((parseInt(label.replace(/^0x/, ''), 16) >>> 0).toString(16).padStart(8, '0').match(/../g)!.map((h) => parseInt(h, 16)).join('.'));
  }
  return found.filter((a) => ipaddr.IPv4.isValidFourPartDecimal(a));
}

class RefusedAddress extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/** True when a connection failed because `checkedLookup` refused the address (the error or its cause). */
export function isRefusedAddress(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof RefusedAddress || e.code === 'EREFUSEDADDRESS') return true;
  }
  return false;
}

export interface OutboundOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string;
  /** the whole exchange, connection to last byte (default 15 s) */
  timeoutMs?: number;
  /** the most of the answer read (default 2 MB); a longer one fails */
  maxBytes?: number;
  /** redirects followed (default 3), each checked as the first request */
  maxRedirects?: number;
  /**
   * which addresses may be connected to: public ones by default. Development setups and tests against a fake on
   * loopback pass their own rule (`() => true` for any).
   */
  allowAddress?: (address: string) => boolean;
  /** how a refused or unusable address is reported: the field it came in (default `url`, in the body) */
  param?: string;
  location?: string;
}

export interface OutboundAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** the address that answered, after redirects */
  url: string;
}

/** What the caller is told when the far end could not be read, whatever happened there (one text, no oracle). */
export const OUTBOUND_FAILED = 'The address could not be read';

const agents = new WeakMap<(address: string) => boolean, Agent>();
const defaultAgent = agentFor(isPublicAddress);

/**
 * A `lookup` for a connection (undici's, or `http.Agent`'s) that resolves the name once and refuses it unless every
 * address is allowed: the connection then goes to the address checked, never to a second answer of the resolver.
 */
export function checkedLookup(allow: (address: string) => boolean) {
  return (hostname: string, options: { all?: boolean }, callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err);
      if (!addresses.length || addresses.some((a) => !allow(a.address))) return callback(new RefusedAddress(`refused address for ${hostname}`));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function agentFor(allow: (address: string) => boolean): Agent {
  return new Agent({ connect: { lookup: checkedLookup(allow) as never }, keepAliveTimeout: 1_000, connections: 16 });
}

/**
 * Requests a caller-given http(s) address under the rules above and answers whatever status it gives. A refused
 * or malformed address is a 400 naming `param`; anything that goes wrong at the far end (no connection, a
 * timeout, an answer too long, too many redirects) is a 502 with the one text `OUTBOUND_FAILED`.
 */
export async function fetchOutbound(url: string, opts: OutboundOptions = {}): Promise<OutboundAnswer> {
  const allow = opts.allowAddress ?? isPublicAddress;
  let agent = allow === isPublicAddress ? defaultAgent : agents.get(allow);
  if (!agent) agents.set(allow, (agent = agentFor(allow)));
  const refuse = () => badRequest(opts.param ?? 'url', 'must be a public http(s) address', opts.location ?? 'body');
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw refuse();
  }
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    if (!/^https?:$/.test(current.protocol) || current.username || current.password) throw refuse();
    const host = current.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host) && !allow(host)) throw refuse();
    const left = deadline - Date.now();
    if (left <= 0) throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        body: opts.body,
        dispatcher: agent,
        headersTimeout: left,
        bodyTimeout: left,
        signal: AbortSignal.timeout(left),
      });
    } catch (err) {
      if (err instanceof RefusedAddress || (err as { cause?: unknown }).cause instanceof RefusedAddress) throw refuse();
      throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await res.body.dump().catch(() => undefined);
      try {
        current = new URL(location, current);
      } catch {
        throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
      }
      continue;
    }
    const body = await readAtMost(res.body, opts.maxBytes ?? 2_000_000);
    return { status: res.statusCode, headers: res.headers, body, url: current.toString() };
  }
  throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
}

/** `fetchOutbound` for reading a page: any answer but a 2xx is the same 502 as an unreachable address. */
export async function readOutbound(url: string, opts: OutboundOptions = {}): Promise<OutboundAnswer> {
  const answer = await fetchOutbound(url, opts);
  if (answer.status < 200 || answer.status > 299) throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
  return answer;
}

async function readAtMost(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > max) {
        body.destroy();
        throw new Error('too long');
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    throw new HttpError(502, [{ msg: OUTBOUND_FAILED }]);
  }
  return Buffer.concat(chunks).toString('utf8');
}
