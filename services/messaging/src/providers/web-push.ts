import { lookup as dnsLookup } from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import webpush from 'web-push';
import { HttpError, isPublicAddress, providerMessage } from '@church/common';
import type { PushResult } from './push';

/** A browser's subscription as the Push API gives it (`PushSubscription.toJSON()`). */
export interface WebPushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface WebPushConfig {
  publicKey?: string;
  privateKey?: string;
  subject?: string;
  /** private and loopback addresses (and plain http) allowed: development and tests only */
  allowPrivate: boolean;
}

export interface WebPushProvider {
  /** the VAPID public key browsers subscribe with; throws the 400 naming what is missing when not configured */
  publicKey(): string;
  /** one encrypted push (aes128gcm) to one subscription; `unregistered` when the push service says it is gone */
  send(target: WebPushTarget, payload: string): Promise<PushResult>;
}

const SETTINGS = ['WEBPUSH_PUBLIC_KEY', 'WEBPUSH_PRIVATE_KEY', 'WEBPUSH_SUBJECT'] as const;

/**
 * The one rule for a push endpoint, applied when a browser's subscription is saved and again before each push: why
 * the address may not be posted to, or null. In production it must be `https:`, without credentials, on a host that
 * is neither `localhost` (nor a name under it), nor a single label, written with or without the DNS root's trailing
 * dot (`localhost.` is `localhost`), and a literal address must be public (`isPublicAddress` of `@church/common`).
 * A name is checked once more where the push connects (`checkedLookup`): every address it resolves to must be public.
 * With `allowPrivate` (development, tests) any http(s) address without credentials passes.
 */
export function refusedEndpoint(endpoint: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an https address';
  }
  if (url.username || url.password) return 'must be an https address without credentials';
  if (allowPrivate) return /^https?:$/.test(url.protocol) ? null : 'must be an http(s) address';
  if (url.protocol !== 'https:') return 'must be an https address';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (net.isIP(host)) return isPublicAddress(host) ? null : 'must be a public address';
  if (!host || host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return 'must be a public address';
  return null;
}

class RefusedAddress extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/** A DNS lookup that fails when any address the name resolves to is refused: the address checked is the one connected to. */
function checkedLookup(allow: (address: string) => boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      // on an error the connection reads only the error; the empty address list is the type's required argument
      if (err) return callback(err, []);
      if (!addresses.length || addresses.some((a) => !allow(a.address))) return callback(new RefusedAddress(`refused address for ${hostname}`), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * web-push always sends with `https.request`; its documented `agent` option is where the connection is made. The
 * agent resolves the push service's name itself and refuses private addresses (SSRF: an endpoint is a caller's
 * URL). With `allowPrivate` (development, tests) an `http:` endpoint is reached over plain TCP, as a push service
 * faked on loopback speaks it.
 */
function agents(allowPrivate: boolean) {
  const allow = allowPrivate ? () => true : isPublicAddress;
  const lookup = checkedLookup(allow);
  const secure = new https.Agent({ keepAlive: true, lookup });
  class PlainTcp extends https.Agent {
    override createConnection(options: { host?: string; port?: number }): net.Socket {
      return net.connect({ host: options.host, port: Number(options.port), lookup });
    }
  }
  return { secure, plain: allowPrivate ? new PlainTcp({ keepAlive: true }) : undefined };
}

/** Web Push through the `web-push` library (VAPID-signed, RFC 8291 encrypted), its VAPID details given per request. */
export function buildWebPush(cfg: WebPushConfig): WebPushProvider {
  const values = { WEBPUSH_PUBLIC_KEY: cfg.publicKey, WEBPUSH_PRIVATE_KEY: cfg.privateKey, WEBPUSH_SUBJECT: cfg.subject };
  const missing = SETTINGS.filter((s) => !values[s]);
  const notConfigured = () => new HttpError(400, [{ msg: `Web push is not configured: set ${missing.join(', ')}`, param: missing[0], location: 'config' }]);
  const { secure, plain } = agents(cfg.allowPrivate);
  return {
    publicKey() {
      if (missing.length) throw notConfigured();
      return cfg.publicKey!;
    },
    async send(target, payload) {
      if (missing.length) return { provider: 'webpush', status: 'failed', error: notConfigured().errors[0]!.msg };
      let url: URL;
      try {
        url = new URL(target.endpoint);
      } catch {
        return { provider: 'webpush', status: 'unregistered', error: 'not a URL' };
      }
      const agent = url.protocol === 'https:' ? secure : url.protocol === 'http:' ? plain : undefined;
      // the rule the save applied (a literal address is never looked up, so it is checked here); the agent's lookup
      // then checks every address a name resolves to
      if (!agent || refusedEndpoint(target.endpoint, cfg.allowPrivate)) return { provider: 'webpush', status: 'failed', error: 'refused address' };
      try {
        const res = await webpush.sendNotification(target, payload, {
          vapidDetails: { subject: cfg.subject!, publicKey: cfg.publicKey!, privateKey: cfg.privateKey! },
          contentEncoding: 'aes128gcm',
          TTL: 24 * 3600,
          urgency: 'high',
          timeout: 10_000,
          agent,
        });
        return { provider: 'webpush', status: 'sent', providerMessageId: headerOf(res.headers, 'location') };
      } catch (err) {
        const statusCode = (err as { statusCode?: number }).statusCode;
        if (statusCode === 404 || statusCode === 410) return { provider: 'webpush', status: 'unregistered', error: `push service answered ${statusCode}` };
        const refused = err instanceof RefusedAddress || (err as { cause?: unknown }).cause instanceof RefusedAddress;
        return { provider: 'webpush', status: 'failed', error: refused ? 'refused address' : statusCode ? `push service answered ${statusCode}` : providerMessage(err) };
      }
    },
  };
}

function headerOf(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return typeof v === 'string' ? v.slice(0, 500) : undefined;
}
