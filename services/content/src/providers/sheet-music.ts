import { createHmac, randomBytes } from 'node:crypto';
import { notConfigured, providerFailed } from '@church/common';
import { fetchJson, joinUrl } from '@church/common';

/** A user's OAuth 1.0a access token at the provider. */
export interface SheetMusicUser {
  token: string;
  secret: string;
}

/** Song metadata from the provider, for `songDetails/create`. */
export interface SheetMusicSong {
  id: string;
  title: string | null;
  artist: string | null;
  album: string | null;
  thumbnail: string | null;
  bpm: number | null;
  keySignature: string | null;
  meter: string | null;
  seconds: number | null;
  releaseDate: string | null;
}

/** The sheet-music provider (PraiseCharts-style: OAuth 1.0a for a user's library, a public catalog). */
export interface SheetMusicProvider {
  requestToken(callbackUrl: string): Promise<{ token: string; secret: string; authUrl: string }>;
  accessToken(token: string, secret: string, verifier: string): Promise<SheetMusicUser>;
  search(q: string): Promise<unknown>;
  raw(id: string): Promise<unknown>;
  song(id: string): Promise<SheetMusicSong | null>;
  products(id: string, keys: string | undefined, user?: SheetMusicUser): Promise<unknown>;
  arrangementRaw(id: string, keys: string | undefined, user: SheetMusicUser): Promise<unknown>;
  download(skus: string, keys: string | undefined, fileName: string | undefined, user: SheetMusicUser): Promise<string>;
  library(user: SheetMusicUser): Promise<unknown>;
}

const WHAT = 'The sheet-music provider';
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The OAuth 1.0a `Authorization` header (HMAC-SHA1, RFC 5849 section 3.4). */
export function oauthHeader(
  method: string,
  url: string,
  consumer: { key: string; secret: string },
  token?: { token: string; secret: string },
  extra: Record<string, string> = {},
  body: Record<string, string> = {},
): string {
  const u = new URL(url);
  const oauth: Record<string, string> = {
    oauth_consumer_key: consumer.key,
    oauth_nonce: randomBytes(16).toString('hex'),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    ...(token ? { oauth_token: token.token } : {}),
    ...extra,
  };
  const params: Array<[string, string]> = [...u.searchParams.entries(), ...Object.entries(oauth), ...Object.entries(body)];
  const normalized = params
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const baseUrl = `${u.protocol}//${u.host}${u.pathname}`;
  const baseString = [method.toUpperCase(), enc(baseUrl), enc(normalized)].join('&');
  const signature = createHmac('sha1', `${enc(consumer.secret)}&${enc(token?.secret ?? '')}`).update(baseString).digest('base64');
  return 'OAuth ' + Object.entries({ ...oauth, oauth_signature: signature }).map(([k, v]) => `${enc(k)}="${enc(v)}"`).join(', ');
}

/** PraiseCharts-style provider over its HTTP API; base URL overridable (`SHEET_MUSIC_BASE_URL`). */
export function praiseChartsProvider(opts: { consumerKey?: string; consumerSecret?: string; baseUrl?: string }): SheetMusicProvider {
  const base = opts.baseUrl ?? 'https://api.praisecharts.com';
  const consumer = () => {
    if (!opts.consumerKey || !opts.consumerSecret) throw notConfigured(WHAT, 'SHEET_MUSIC_CONSUMER_KEY');
    return { key: opts.consumerKey, secret: opts.consumerSecret };
  };
  const signedGet = async <T>(path: string, user?: SheetMusicUser): Promise<T | null> => {
    const url = joinUrl(base, path);
    const res = await fetchJson<T>(WHAT, url, { headers: { authorization: oauthHeader('GET', url, consumer(), user), accept: 'application/json' } });
    return res.status === 404 ? null : res.data;
  };
  const tokenCall = async (path: string, token: SheetMusicUser | undefined, extra: Record<string, string>) => {
    const url = joinUrl(base, path);
    // signed before the call: a missing consumer key is the 400 naming it, not a provider failure
    const authorization = oauthHeader('POST', url, consumer(), token, extra);
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { authorization }, signal: AbortSignal.timeout(15_000) });
    } catch (err) {
      throw providerFailed(WHAT, err instanceof Error ? err.message : 'unreachable');
    }
    const text = await res.text();
    if (!res.ok) throw providerFailed(WHAT, `HTTP ${res.status} ${text.slice(0, 200)}`);
    const form = new URLSearchParams(text);
    const t = form.get('oauth_token');
    const s = form.get('oauth_token_secret');
    if (!t || !s) throw providerFailed(WHAT, 'no token in the answer');
    return { token: t, secret: s };
  };
  const q = (params: Record<string, string | undefined>) => {
    const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    return s ? `?${s}` : '';
  };
  const provider: SheetMusicProvider = {
    async requestToken(callbackUrl) {
      const t = await tokenCall('/oauth/request_token', undefined, { oauth_callback: callbackUrl });
      return { ...t, authUrl: `${joinUrl(base, '/oauth/authorize')}?oauth_token=${enc(t.token)}` };
    },
    accessToken: (token, secret, verifier) => tokenCall('/oauth/access_token', { token, secret }, { oauth_verifier: verifier }),
    search: async (text) => (await signedGet(`/api/v1.0/catalog/search${q({ q: text })}`)) ?? [],
    raw: (id) => signedGet(`/api/v1.0/catalog/${enc(id)}`),
    async song(id) {
      const raw = await signedGet<Record<string, unknown>>(`/api/v1.0/catalog/${enc(id)}`);
      if (!raw) return null;
      const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
      const num = (v: unknown) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Math.round(Number(v)));
      const artists = Array.isArray(raw.artists) ? raw.artists.map((a) => (typeof a === 'string' ? a : (a as { title?: string; name?: string })?.title ?? (a as { name?: string })?.name)).filter(Boolean) : [];
      return {
        id,
        title: str(raw.title),
        artist: str(raw.artist) ?? (artists.join(', ') || null),
        album: str(raw.album) ?? str((raw.album as { title?: string } | undefined)?.title),
        thumbnail: str(raw.thumbnail) ?? str(raw.image),
        bpm: num(raw.bpm ?? raw.tempo),
        keySignature: str(raw.key) ?? str(raw.original_key),
        meter: str(raw.meter) ?? str(raw.time_signature),
        seconds: num(raw.duration ?? raw.seconds),
        releaseDate: str(raw.release_date),
      };
    },
    products: async (id, keys, user) =>
      (await signedGet(user ? `/api/v1.0/library/${enc(id)}/products${q({ keys })}` : `/api/v1.0/catalog/${enc(id)}/products${q({ keys })}`, user)) ?? [],
    arrangementRaw: (id, keys, user) => signedGet(`/api/v1.0/library/arrangements/${enc(id)}${q({ keys })}`, user),
    async download(skus, keys, fileName, user) {
      const answer = await signedGet<{ url?: string; redirectUrl?: string }>(`/api/v1.0/download${q({ skus, keys, file_name: fileName })}`, user);
      const url = answer?.url ?? answer?.redirectUrl;
      if (!url) throw providerFailed(WHAT, 'no download address in the answer');
      return url;
    },
    library: async (user) => (await signedGet(`/api/v1.0/library/browse`, user)) ?? [],
  };
  return provider;
}
