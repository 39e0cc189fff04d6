import { z } from 'zod';

/** Optional text; an empty value counts as unset where it is read (`src/providers/index.ts`). */
const optional = z.string().optional();

/**
 * Settings of the media half: the outside systems' keys and base URLs. Every field is optional (tests and the
 * embedded fleet build the app from the shared base alone); defaults are applied where they are read
 * (`src/providers/index.ts`).
 */
export const mediaConfig = z.object({
  /** videoHostA: YouTube Data API v3 key; base URL overridable (default https://youtube.googleapis.com/) */
  YOUTUBE_API_KEY: optional,
  YOUTUBE_BASE_URL: optional,
  /** videoHostB: Vimeo API access token; base URL overridable (default https://api.vimeo.com) */
  VIMEO_ACCESS_TOKEN: optional,
  VIMEO_BASE_URL: optional,
  /** an OpenAI-compatible chat endpoint (the same settings membership's member query reads) */
  OPENAI_API_URL: optional,
  OPENAI_API_KEY: optional,
  OPENAI_MODEL: optional,
  /** `true` lets `sermons/outline` read addresses inside the service's network (development only) */
  OUTLINE_ALLOW_PRIVATE_URLS: optional,
  /** stock photos: Pexels API key; base URL overridable (default https://api.pexels.com) */
  PEXELS_API_KEY: optional,
  PEXELS_BASE_URL: optional,
  /** speech: Amazon Polly (region, credentials, endpoint overridable, voice) */
  POLLY_REGION: optional,
  POLLY_ACCESS_KEY_ID: optional,
  POLLY_SECRET_ACCESS_KEY: optional,
  POLLY_ENDPOINT: optional,
  POLLY_VOICE: optional,
  /** Bible source: an API.Bible-style HTTP API (key and base URL, default https://api.scripture.api.bible) */
  BIBLE_API_KEY: optional,
  BIBLE_API_BASE_URL: optional,
  /** sheet-music provider: OAuth 1.0a consumer key and secret; base URL overridable (default https://api.praisecharts.com) */
  SHEET_MUSIC_CONSUMER_KEY: optional,
  SHEET_MUSIC_CONSUMER_SECRET: optional,
  SHEET_MUSIC_BASE_URL: optional,
  /** `true` lets a church's own S3 endpoint be an address inside the network (development, tests) */
  STORAGE_ALLOW_PRIVATE_ENDPOINTS: optional,
  /** linking a church's drive (OAuth code exchange): each provider's client id and secret; token URL overridable */
  BYOS_GOOGLEDRIVE_CLIENT_ID: optional,
  BYOS_GOOGLEDRIVE_CLIENT_SECRET: optional,
  BYOS_GOOGLEDRIVE_TOKEN_URL: optional,
  BYOS_DROPBOX_CLIENT_ID: optional,
  BYOS_DROPBOX_CLIENT_SECRET: optional,
  BYOS_DROPBOX_TOKEN_URL: optional,
  BYOS_ONEDRIVE_CLIENT_ID: optional,
  BYOS_ONEDRIVE_CLIENT_SECRET: optional,
  BYOS_ONEDRIVE_TOKEN_URL: optional,
});
