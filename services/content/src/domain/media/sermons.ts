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
