import { youtube, type youtube_v3 } from '@googleapis/youtube';
import { HttpError, notConfigured, providerFailed, providerMessage } from '@church/common';
import { isoDurationSeconds, type VideoHost, type VideoInfo } from './video';

const WHAT = 'videoHostA (YouTube)';

/** videoHostA on the YouTube Data API v3 through Google's own client; `rootUrl` overridable for tests. */
export function youtubeHost(opts: { apiKey?: string; baseUrl?: string }): VideoHost {
  let client: youtube_v3.Youtube | undefined;
  const api = () => {
    if (!opts.apiKey) throw notConfigured(WHAT, 'YOUTUBE_API_KEY');
    client ??= youtube({ version: 'v3', auth: opts.apiKey, rootUrl: opts.baseUrl ? opts.baseUrl.replace(/\/*$/, '/') : undefined, timeout: 15_000 });
    return client;
  };
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw providerFailed(WHAT, providerMessage(err));
    }
  };
  const toInfo = (v: youtube_v3.Schema$Video): VideoInfo => ({
    videoId: v.id ?? '',
    title: v.snippet?.title ?? '',
    description: v.snippet?.description ?? '',
    thumbnail: bestThumbnail(v.snippet?.thumbnails),
    duration: isoDurationSeconds(v.contentDetails?.duration),
    publishDate: v.snippet?.publishedAt ?? null,
  });
  const videos = async (ids: string[]): Promise<VideoInfo[]> => {
    const out: VideoInfo[] = [];
    for (let i = 0; i < ids.length; i += 50) {
      const res = await call(() => api().videos.list({ part: ['snippet', 'contentDetails'], id: [ids.slice(i, i + 50).join(',')], maxResults: 50 }));
      out.push(...(res.data.items ?? []).map(toInfo));
    }
    return out;
  };
  return {
    async lookup(videoId) {
      const [info] = await videos([videoId]);
      return info ?? null;
    },
    async channelVideos(channelId, max = 2000) {
      const channel = await call(() => api().channels.list({ part: ['contentDetails'], id: [channelId] }));
      const uploads = channel.data.items?.[0]?.contentDetails?.relatedPlaylists?.uploads;
      if (!uploads) return [];
      const ids: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = await call(() => api().playlistItems.list({ part: ['contentDetails'], playlistId: uploads, maxResults: 50, pageToken }));
        for (const item of page.data.items ?? []) if (item.contentDetails?.videoId) ids.push(item.contentDetails.videoId);
        pageToken = page.data.nextPageToken ?? undefined;
      } while (pageToken && ids.length < max);
      return videos([...new Set(ids)].slice(0, max));
    },
    async transcript(videoId) {
      // Caption tracks can only be downloaded by the video's owner (OAuth); with an API key the title and
      // description are what the host hands out, and the caption track names say what language it is in.
      const info = await this.lookup(videoId);
      if (!info) return '';
      let tracks: string[] = [];
      try {
        const res = await api().captions.list({ part: ['snippet'], videoId });
        tracks = (res.data.items ?? []).map((c) => c.snippet?.name ?? '').filter(Boolean);
      } catch {
        tracks = [];
      }
      return [info.title, info.description, tracks.length ? `Caption tracks: ${tracks.join(', ')}` : ''].filter(Boolean).join('\n\n');
    },
  };
}

function bestThumbnail(t: youtube_v3.Schema$ThumbnailDetails | undefined): string {
  return t?.maxres?.url ?? t?.standard?.url ?? t?.high?.url ?? t?.medium?.url ?? t?.default?.url ?? '';
}
