import type { ContentProviders } from '../../providers';
import { badRequest } from '@church/common';

/** Which video host a sermon's `videoType` names (the spec's neutral names and the hosts' own). */
export function hostOf(providers: ContentProviders, videoType: string) {
  const t = videoType.toLowerCase();
  if (t === 'videohosta' || t === 'youtube') return providers.videoHostA;
  if (t === 'videohostb' || t === 'vimeo') return providers.videoHostB;
  throw badRequest('videoType', 'must be videoHostA (youtube) or videoHostB (vimeo)', 'query');
}

/** The player address of a sermon's video when the client did not send one. */
export function videoUrlOf(videoType: string | null | undefined, videoData: string | null | undefined): string | null {
  if (!videoData) return null;
  switch ((videoType ?? '').toLowerCase()) {
    case 'youtube':
    case 'videohosta':
      return `https://www.youtube.com/embed/${encodeURIComponent(videoData)}?autoplay=1&rel=0&modestbranding=1`;
    case 'vimeo':
    case 'videohostb':
      return `https://player.vimeo.com/video/${encodeURIComponent(videoData)}?autoplay=1`;
    case 'facebook':
      return `https://www.facebook.com/video/embed?video_id=${encodeURIComponent(videoData)}`;
    default:
      return videoData;
  }
}

/** The AI prompt answers: a JSON array of strings, or one suggestion per line when the model ignored that. */
export function parseSuggestions(text: string): string[] {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/```$/, '').trim();
  try {
    const parsed = JSON.parse(trimmed);
    if (Array.isArray(parsed)) return parsed.map((s) => (typeof s === 'string' ? s : JSON.stringify(s))).filter(Boolean);
  } catch {
    // not JSON
  }
  return trimmed
    .split(/\n+/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
}

/** True for loopback, private, link-local and unspecified addresses (IPv4 and IPv6). */
export function isPrivateAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(v4);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  const v6 = address.toLowerCase();
  return v6 === '::' || v6 === '::1' || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6);
}

/**
 * Reads a page the caller named (for `outline`), refusing addresses inside the service's network (unless
 * `allowPrivate`, for development), following at most 3 redirects, each checked the same way.
 */
export async function fetchPublicPage(url: string, allowPrivate: boolean): Promise<string> {
  const { lookup } = await import('node:dns/promises');
  let current = new URL(url);
  for (let hop = 0; hop < 4; hop++) {
    if (!/^https?:$/.test(current.protocol)) throw badRequest('url', 'must be an http(s) address', 'query');
    if (!allowPrivate) {
      const host = current.hostname.replace(/^\[|\]$/g, '');
      const addresses = await lookup(host, { all: true }).catch(() => {
        throw badRequest('url', 'the address does not resolve', 'query');
      });
      if (addresses.some((a) => isPrivateAddress(a.address))) throw badRequest('url', 'must be a public address', 'query');
    }
    const res = await fetch(current, { signal: AbortSignal.timeout(15_000), redirect: 'manual' });
    const next = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && next) {
      current = new URL(next, current);
      continue;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.text()).slice(0, 2_000_000);
  }
  throw new Error('too many redirects');
}
