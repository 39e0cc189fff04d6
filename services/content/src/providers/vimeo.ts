import { notConfigured } from '@church/common';
import { fetchJson, joinUrl } from '@church/common';
import type { VideoHost, VideoInfo } from './video';

const WHAT = 'videoHostB (Vimeo)';

interface VimeoVideo {
  uri?: string;
  name?: string;
  description?: string | null;
  duration?: number;
  release_time?: string;
  created_time?: string;
  pictures?: { base_link?: string; sizes?: Array<{ width?: number; link?: string }> };
}

/** videoHostB on Vimeo's documented REST API (https://developer.vimeo.com/api/reference), base URL overridable. */
export function vimeoHost(opts: { accessToken?: string; baseUrl?: string }): VideoHost {
  const base = opts.baseUrl ?? 'https://api.vimeo.com';
  const get = async <T>(path: string) => {
    if (!opts.accessToken) throw notConfigured(WHAT, 'VIMEO_ACCESS_TOKEN');
    return fetchJson<T>(WHAT, joinUrl(base, path), {
      headers: { authorization: `bearer ${opts.accessToken}`, accept: 'application/vnd.vimeo.*+json;version=3.4' },
    });
  };
  const toInfo = (v: VimeoVideo): VideoInfo => {
    const sizes = [...(v.pictures?.sizes ?? [])].sort((a, b) => (b.width ?? 0) - (a.width ?? 0));
    return {
      videoId: (v.uri ?? '').split('/').pop() ?? '',
      title: v.name ?? '',
      description: v.description ?? '',
      thumbnail: sizes[0]?.link ?? v.pictures?.base_link ?? '',
      duration: Math.round(v.duration ?? 0),
      publishDate: v.release_time ?? v.created_time ?? null,
    };
  };
  return {
    async lookup(videoId) {
      const res = await get<VimeoVideo>(`/videos/${encodeURIComponent(videoId)}`);
      return res.status === 404 ? null : toInfo(res.data);
    },
    async channelVideos(channelId, max = 2000) {
      const out: VideoInfo[] = [];
      let path: string | null = `/channels/${encodeURIComponent(channelId)}/videos?per_page=100&page=1`;
      while (path && out.length < max) {
        const res: { status: number; data: { data?: VimeoVideo[]; paging?: { next?: string | null } } } = await get(path);
        if (res.status === 404) break;
        out.push(...(res.data.data ?? []).map(toInfo));
        path = res.data.paging?.next ?? null;
      }
      return out.slice(0, max);
    },
    async transcript(videoId) {
      const info = await this.lookup(videoId);
      return info ? [info.title, info.description].filter(Boolean).join('\n\n') : '';
    },
  };
}
