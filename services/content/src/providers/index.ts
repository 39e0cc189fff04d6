import type { ModuleDeps } from '@church/common';
import type { Config } from '../config';
import { openAiChat, type ChatAi } from './ai';
import { apiBibleSource, type BibleSource } from './bible-source';
import { praiseChartsProvider, type SheetMusicProvider } from './sheet-music';
import { pollySpeech, type Speech } from './speech';
import { pexelsStock, type StockPhotos } from './stock';
import type { VideoHost } from './video';
import { vimeoHost } from './vimeo';
import { youtubeHost } from './youtube';

/** The content module's outside systems (the media half's video hosts, AI, stock photos, speech, Bible source). */
export interface ContentProviders {
  videoHostA: VideoHost;
  videoHostB: VideoHost;
  ai: ChatAi;
  stock: StockPhotos;
  speech: Speech;
  bibleSource: BibleSource;
  sheetMusic: SheetMusicProvider;
}

/** Chosen once from config; each adapter answers `notConfigured` (400 naming the setting) without its key. */
export function buildProviders(deps: ModuleDeps<Config, undefined>): ContentProviders {
  // Empty settings count as unset.
  const c = Object.fromEntries(Object.entries(deps.config).map(([k, v]) => [k, v === '' ? undefined : v])) as typeof deps.config;
  return {
    videoHostA: youtubeHost({ apiKey: c.YOUTUBE_API_KEY, baseUrl: c.YOUTUBE_BASE_URL }),
    videoHostB: vimeoHost({ accessToken: c.VIMEO_ACCESS_TOKEN, baseUrl: c.VIMEO_BASE_URL }),
    ai: openAiChat({ apiKey: c.OPENAI_API_KEY, baseUrl: c.OPENAI_API_URL, model: c.OPENAI_MODEL }),
    stock: pexelsStock({ apiKey: c.PEXELS_API_KEY, baseUrl: c.PEXELS_BASE_URL }),
    speech: pollySpeech({
      region: c.POLLY_REGION,
      accessKeyId: c.POLLY_ACCESS_KEY_ID,
      secretAccessKey: c.POLLY_SECRET_ACCESS_KEY,
      endpoint: c.POLLY_ENDPOINT,
      voice: c.POLLY_VOICE,
    }),
    bibleSource: apiBibleSource({ apiKey: c.BIBLE_API_KEY, baseUrl: c.BIBLE_API_BASE_URL }),
    sheetMusic: praiseChartsProvider({ consumerKey: c.SHEET_MUSIC_CONSUMER_KEY, consumerSecret: c.SHEET_MUSIC_CONSUMER_SECRET, baseUrl: c.SHEET_MUSIC_BASE_URL }),
  };
}
