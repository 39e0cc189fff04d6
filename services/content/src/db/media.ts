import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

// The media half's tables (sermons, playlists, streaming, files, gallery, Bible, songs, sheet music).
// Church-owned tables lead every index with church_id; the Bible cache and song details are global.

/** Playlists: public or private collections of sermons. */
export const playlists = pgTable(
  'playlists',
  {
    id: id(),
    churchId: churchId(),
    title: text('title').notNull(),
    description: text('description'),
    publishDate: at('publish_date'),
    thumbnail: text('thumbnail'),
    isPublic: boolean('is_public').notNull().default(true),
    ...timestamps(),
  },
  (t) => [index('playlists_church_idx').on(t.churchId, t.publishDate)],
);

/** Sermons: a video on a host (`videoType` + `videoData`) or a plain URL. */
export const sermons = pgTable(
  'sermons',
  {
    id: id(),
    churchId: churchId(),
    playlistId: uuid('playlist_id'),
    videoType: text('video_type'),
    videoData: text('video_data'),
    videoUrl: text('video_url'),
    title: text('title').notNull(),
    description: text('description'),
    publishDate: at('publish_date'),
    thumbnail: text('thumbnail'),
    duration: integer('duration'),
    permanentUrl: boolean('permanent_url').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    index('sermons_church_publish_idx').on(t.churchId, t.publishDate),
    index('sermons_church_playlist_idx').on(t.churchId, t.playlistId),
    index('sermons_church_video_idx').on(t.churchId, t.videoType, t.videoData),
  ],
);

/** Streaming services: one-time or weekly recurring broadcasts. */
export const streamingServices = pgTable(
  'streaming_services',
  {
    id: id(),
    churchId: churchId(),
    label: text('label'),
    serviceTime: at('service_time').notNull(),
    earlyStart: integer('early_start').notNull().default(0),
    /** seconds, as the apps send it (migration 0003 turned stored minutes into seconds) */
    duration: integer('duration').notNull().default(3600),
    chatBefore: integer('chat_before').notNull().default(0),
    chatAfter: integer('chat_after').notNull().default(0),
    provider: text('provider'),
    providerKey: text('provider_key'),
    videoUrl: text('video_url'),
    timezoneOffset: integer('timezone_offset'),
    recurring: boolean('recurring').notNull().default(false),
    sermonId: text('sermon_id'),
    ...timestamps(),
  },
  (t) => [index('streaming_services_church_idx').on(t.churchId, t.serviceTime)],
);

/** Files of a content item (a group, a page, a website), kept in object storage under `key`. */
export const files = pgTable(
  'files',
  {
    id: id(),
    churchId: churchId(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id').notNull(),
    fileName: text('file_name').notNull(),
    fileType: text('file_type'),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    storageKey: text('storage_key').notNull(),
    contentPath: text('content_path').notNull(),
    /** false for files sent straight to the bucket with a signed form (the service never sees their bytes) */
    uploaded: boolean('uploaded').notNull().default(true),
    /** the church's own storage the object was written to (`storage_providers`); null: the platform's */
    providerId: uuid('provider_id'),
    ...timestamps(),
  },
  (t) => [index('files_church_content_idx').on(t.churchId, t.contentType, t.contentId)],
);

/**
 * A church's own storage (bring your own): an S3-compatible bucket (`s3`, key and secret encrypted with
 * `deps.secrets`, endpoint, region, bucket and public base in `settings`) or an OAuth-linked drive (tokens
 * encrypted). At most one is `enabled`: new files are written there.
 */
export const storageProviders = pgTable(
  'storage_providers',
  {
    id: id(),
    churchId: churchId(),
    provider: text('provider').notNull(),
    enabled: boolean('enabled').notNull().default(false),
    apiKey: text('api_key'),
    apiSecret: text('api_secret'),
    settings: text('settings'),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    tokenExpiresAt: at('token_expires_at'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('storage_providers_church_provider_idx').on(t.churchId, t.provider)],
);

/** Gallery images of a church by folder (the object lives in storage under `key`). */
export const galleryImages = pgTable(
  'gallery_images',
  {
    id: id(),
    churchId: churchId(),
    folder: text('folder').notNull(),
    image: text('image').notNull(),
    storageKey: text('storage_key').notNull(),
    url: text('url').notNull(),
    fileType: text('file_type'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('gallery_images_church_folder_image_idx').on(t.churchId, t.folder, t.image)],
);

/** Bible translations (global). `source` is `embedded` (bundled KJV) or `api.bible`. */
export const bibleTranslations = pgTable(
  'bible_translations',
  {
    id: id(),
    keyName: text('key_name').notNull(),
    source: text('source').notNull(),
    sourceKey: text('source_key').notNull(),
    abbreviation: text('abbreviation'),
    name: text('name').notNull(),
    nameLocal: text('name_local'),
    description: text('description'),
    language: text('language'),
    countries: text('countries'),
    copyright: text('copyright'),
    attributionRequired: boolean('attribution_required').notNull().default(false),
    attributionString: text('attribution_string'),
    /** false when the licence forbids keeping the text: verses are fetched every time */
    cacheable: boolean('cacheable').notNull().default(true),
    ...timestamps(),
  },
  (t) => [uniqueIndex('bible_translations_key_idx').on(t.keyName)],
);

export const bibleBooks = pgTable(
  'bible_books',
  {
    id: id(),
    translationKey: text('translation_key').notNull(),
    keyName: text('key_name').notNull(),
    abbreviation: text('abbreviation'),
    name: text('name').notNull(),
    sort: integer('sort').notNull(),
  },
  (t) => [uniqueIndex('bible_books_key_idx').on(t.translationKey, t.keyName)],
);

export const bibleChapters = pgTable(
  'bible_chapters',
  {
    id: id(),
    translationKey: text('translation_key').notNull(),
    bookKey: text('book_key').notNull(),
    keyName: text('key_name').notNull(),
    number: integer('number').notNull(),
  },
  (t) => [uniqueIndex('bible_chapters_key_idx').on(t.translationKey, t.bookKey, t.number)],
);

/** Verses with their text; `ordinal` orders the whole translation so a range may cross chapters. */
export const bibleVerses = pgTable(
  'bible_verses',
  {
    id: id(),
    translationKey: text('translation_key').notNull(),
    verseKey: text('verse_key').notNull(),
    bookKey: text('book_key').notNull(),
    chapterNumber: integer('chapter_number').notNull(),
    verseNumber: integer('verse_number').notNull(),
    ordinal: integer('ordinal').notNull(),
    content: text('content').notNull(),
  },
  (t) => [
    uniqueIndex('bible_verses_key_idx').on(t.translationKey, t.verseKey),
    index('bible_verses_ordinal_idx').on(t.translationKey, t.ordinal),
  ],
);

/** One logged verse lookup, for `stats`. */
export const bibleLookups = pgTable(
  'bible_lookups',
  {
    id: id(),
    translationKey: text('translation_key').notNull(),
    lookupTime: at('lookup_time').notNull().defaultNow(),
    ipAddress: text('ip_address'),
    startVerseKey: text('start_verse_key').notNull(),
    endVerseKey: text('end_verse_key').notNull(),
  },
  (t) => [index('bible_lookups_time_idx').on(t.lookupTime)],
);

/** A church's songs. */
export const songs = pgTable(
  'songs',
  {
    id: id(),
    churchId: churchId(),
    name: text('name'),
    dateAdded: at('date_added').notNull().defaultNow(),
    ...timestamps(),
  },
  (t) => [index('songs_church_idx').on(t.churchId, t.name)],
);

/**
 * Song details: global rows (`churchId` null, shared by every church: the sheet-music provider's import, or a
 * server admin's) and a church's own rows (its entries, and its edits of a global row), which only that church
 * sees and changes.
 */
export const songDetails = pgTable(
  'song_details',
  {
    id: id(),
    churchId: uuid('church_id'),
    sheetMusicId: text('sheet_music_id'),
    musicBrainzId: text('music_brainz_id'),
    title: text('title'),
    artist: text('artist'),
    album: text('album'),
    language: text('language'),
    thumbnail: text('thumbnail'),
    releaseDate: at('release_date'),
    bpm: integer('bpm'),
    keySignature: text('key_signature'),
    seconds: integer('seconds'),
    meter: text('meter'),
    tones: text('tones'),
    /** who created and last edited it (user id and church), since any signed-in user may */
    createdBy: text('created_by'),
    updatedBy: text('updated_by'),
    ...timestamps(),
  },
  (t) => [
    // one global row per provider song; a church's edited copy keeps the provider id
    uniqueIndex('song_details_sheet_music_idx').on(t.sheetMusicId).where(sql`${t.churchId} is null`),
    index('song_details_title_idx').on(t.title),
    index('song_details_church_idx').on(t.churchId),
  ],
);

/** Links of a song detail to outside services: global (`churchId` null) or a church's own. */
export const songDetailLinks = pgTable(
  'song_detail_links',
  {
    id: id(),
    churchId: uuid('church_id'),
    songDetailId: uuid('song_detail_id').notNull(),
    service: text('service').notNull(),
    serviceKey: text('service_key'),
    url: text('url'),
    createdBy: text('created_by'),
    updatedBy: text('updated_by'),
    ...timestamps(),
  },
  (t) => [index('song_detail_links_detail_idx').on(t.songDetailId)],
);

/** Arrangements of a church's song. */
export const arrangements = pgTable(
  'arrangements',
  {
    id: id(),
    churchId: churchId(),
    songId: uuid('song_id').notNull(),
    songDetailId: uuid('song_detail_id'),
    name: text('name'),
    lyrics: text('lyrics'),
    presenterAppId: text('presenter_app_id'),
    ...timestamps(),
  },
  (t) => [
    index('arrangements_church_song_idx').on(t.churchId, t.songId),
    index('arrangements_church_detail_idx').on(t.churchId, t.songDetailId),
    index('arrangements_church_presenter_idx').on(t.churchId, t.presenterAppId),
  ],
);

/** Keys of an arrangement. */
export const arrangementKeys = pgTable(
  'arrangement_keys',
  {
    id: id(),
    churchId: churchId(),
    arrangementId: uuid('arrangement_id').notNull(),
    keySignature: text('key_signature'),
    shortDescription: text('short_description'),
    ...timestamps(),
  },
  (t) => [index('arrangement_keys_church_arrangement_idx').on(t.churchId, t.arrangementId)],
);

/** A user's sheet-music provider OAuth token, encrypted (`deps.secrets`). */
export const sheetMusicTokens = pgTable(
  'sheet_music_tokens',
  {
    id: id(),
    churchId: churchId(),
    userId: text('user_id').notNull(),
    token: text('token').notNull(),
    secret: text('secret').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('sheet_music_tokens_user_idx').on(t.churchId, t.userId)],
);

/** Pending OAuth 1.0a request-token secrets (kept between `authUrl` and `access`), encrypted. */
export const sheetMusicRequests = pgTable('sheet_music_requests', {
  id: id(),
  token: text('token').notNull().unique(),
  secret: text('secret').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});
