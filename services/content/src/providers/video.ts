/** What a video host answers about one video (spec: sermon lookup). */
export interface VideoInfo {
  videoId: string;
  title: string;
  description: string;
  thumbnail: string;
  /** seconds */
  duration: number;
  publishDate: string | null;
}

/** A video host (videoHostA = YouTube, videoHostB = Vimeo). */
export interface VideoHost {
  /** null when the host has no such video */
  lookup(videoId: string): Promise<VideoInfo | null>;
  /** every video of a channel, paged through to the end (bounded by `max`) */
  channelVideos(channelId: string, max?: number): Promise<VideoInfo[]>;
  /** the video's subtitles (or, where the host does not hand them out, its title and description) */
  transcript(videoId: string): Promise<string>;
}

/** ISO 8601 durations as YouTube writes them (`PT1H2M3S`, `P1DT2H`) in seconds. */
export function isoDurationSeconds(value: string | null | undefined): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value ?? '');
  if (!m) return 0;
  const [, d, h, min, s] = m;
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Math.round(Number(s ?? 0));
}
