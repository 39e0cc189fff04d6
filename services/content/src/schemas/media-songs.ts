import { z } from 'zod';
import { Id, IsoDate } from '@church/common';

export const Song = z.object({ id: z.string(), churchId: z.string(), name: z.string().nullable(), dateAdded: z.date() });
export const SongSave = z.object({ id: Id.optional(), name: z.string().trim().min(1, 'is required').max(500), dateAdded: IsoDate.optional() });

export const SongDetail = z.object({
  id: z.string(),
  sheetMusicId: z.string().nullable(),
  musicBrainzId: z.string().nullable(),
  title: z.string().nullable(),
  artist: z.string().nullable(),
  album: z.string().nullable(),
  language: z.string().nullable(),
  thumbnail: z.string().nullable(),
  releaseDate: z.date().nullable(),
  bpm: z.number().nullable(),
  keySignature: z.string().nullable(),
  seconds: z.number().nullable(),
  meter: z.string().nullable(),
  tones: z.string().nullable(),
  createdBy: z.string().nullable(),
  updatedBy: z.string().nullable(),
  /** `sheetMusicId` under the name the apps read */
  praiseChartsId: z.string().nullable(),
});
const Text = (max: number) => z.string().trim().max(max).nullish();
export const SongDetailSave = z.object({
  id: Id.optional(),
  sheetMusicId: Text(100),
  musicBrainzId: Text(100),
  title: z.string().trim().min(1, 'is required').max(500),
  artist: Text(500),
  album: Text(500),
  language: Text(50),
  thumbnail: Text(2000),
  releaseDate: IsoDate.nullish(),
  bpm: z.coerce.number().int().min(0).max(1000).nullish(),
  keySignature: Text(20),
  seconds: z.coerce.number().int().min(0).max(100_000).nullish(),
  meter: Text(20),
  tones: Text(200),
  /** the apps' name for `sheetMusicId` (they post back the detail they read) */
  praiseChartsId: Text(100),
}).transform(({ praiseChartsId, ...fields }) => (fields.sheetMusicId === undefined && praiseChartsId !== undefined ? { ...fields, sheetMusicId: praiseChartsId } : fields));

export const SongDetailLink = z.object({ id: z.string(), songDetailId: z.string(), service: z.string(), serviceKey: z.string().nullable(), url: z.string().nullable(), createdBy: z.string().nullable(), updatedBy: z.string().nullable() });
export const SongDetailLinkSave = z.object({
  id: Id.optional(),
  songDetailId: Id,
  service: z.string().trim().min(1, 'is required').max(50),
  serviceKey: Text(200),
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000).nullish(),
});

export const Arrangement = z.object({
  id: z.string(),
  churchId: z.string(),
  songId: z.string(),
  songDetailId: z.string().nullable(),
  name: z.string().nullable(),
  lyrics: z.string().nullable(),
  presenterAppId: z.string().nullable(),
});
export const ArrangementSave = z.object({
  id: Id.optional(),
  songId: Id,
  songDetailId: Id.nullish(),
  name: Text(200),
  lyrics: z.string().max(100_000).nullish(),
  presenterAppId: Text(200),
});

export const ArrangementKey = z.object({ id: z.string(), churchId: z.string(), arrangementId: z.string(), keySignature: z.string().nullable(), shortDescription: z.string().nullable() });
export const ArrangementKeySave = z.object({ id: Id.optional(), arrangementId: Id, keySignature: Text(20), shortDescription: Text(200) });

export const SongIdParams = z.object({ songId: Id });
export const SongDetailIdParams = z.object({ songDetailId: Id });
export const ArrangementIdParams = z.object({ arrangementId: Id });
export const PresenterKeyParams = z.object({ churchId: Id, id: Id });
/** An arrangement key as the public presenter reads it: with its arrangement, song and (when set) song detail. */
export const PresenterKey = z.object({ arrangementKey: ArrangementKey, arrangement: Arrangement, song: Song, songDetail: SongDetail.nullable() });
export const MissingPresenterIds = z.object({ presenterAppIds: z.array(z.string().trim().min(1).max(200)).max(10_000) });
/** The asked presentation-app ids no arrangement of the church has. */
export const MissingPresenterAnswer = z.array(z.string());
/** A deleted arrangement: whether its song went with it (it had no other arrangement). */
export const ArrangementDeleted = z.object({ songDeleted: z.boolean() });

export const SongSearchQuery = z.object({ q: z.string().trim().min(1, 'is required').max(200) });
/** One song of a search, once per arrangement (or once with nulls when it has none), with its detail's title. */
export const SongSearchHit = z.object({
  id: z.string(),
  name: z.string().nullable(),
  dateAdded: z.date(),
  arrangementId: z.string().nullable(),
  arrangementName: z.string().nullable(),
  songDetailId: z.string().nullable(),
  title: z.string().nullable(),
  artist: z.string().nullable(),
  thumbnail: z.string().nullable(),
});
export const SongImportItem = z.object({
  /** the presentation app's own id of the song */
  presenterAppId: z.string().trim().min(1, 'is required').max(200),
  title: z.string().trim().min(1, 'is required').max(500),
  artist: z.string().trim().max(500).nullish(),
  lyrics: z.string().max(100_000).nullish(),
  keySignature: z.string().trim().max(20).nullish(),
  bpm: z.coerce.number().int().min(0).max(1000).nullish(),
  seconds: z.coerce.number().int().min(0).max(100_000).nullish(),
  arrangementName: z.string().trim().max(200).nullish(),
});
export const SongImportResult = z.object({ presenterAppId: z.string(), songId: z.string(), arrangementId: z.string(), songDetailId: z.string(), created: z.boolean() });

/** The provider's id as `sheetMusicId`, or as `praiseChartsId` (B1Admin's song search posts the result it picked). */
export const SheetMusicCreateBody = z
  .object({ sheetMusicId: z.string().trim().min(1).max(100).optional(), praiseChartsId: z.string().trim().min(1).max(100).optional() })
  .transform((b, ctx) => {
    const sheetMusicId = b.sheetMusicId ?? b.praiseChartsId;
    if (!sheetMusicId) {
      ctx.addIssue({ code: 'custom', path: ['sheetMusicId'], message: 'sheetMusicId is required' });
      return z.NEVER;
    }
    return { sheetMusicId };
  });

// The sheet-music provider's routes.
export const SheetMusicRef = z.string().trim().min(1, 'is required').max(200);
const SheetMusicKeys = z.string().trim().max(200).optional();
export const SheetMusicRefParams = z.object({ id: SheetMusicRef });
export const SheetMusicKeysQuery = z.object({ keys: SheetMusicKeys });
export const SheetMusicSearchQuery = z.object({ q: SheetMusicRef });
export const SheetMusicAuthUrlQuery = z.object({ returnUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000) });
export const SheetMusicAccessQuery = z.object({ verifier: SheetMusicRef, token: SheetMusicRef, secret: z.string().trim().max(500).optional() });
export const SheetMusicDownloadQuery = z.object({ skus: SheetMusicRef, keys: SheetMusicKeys, file_name: z.string().trim().max(200).optional() });
/** The provider's own JSON, passed on as it answers (the apps read its fields). */
export const ProviderJson = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);
export const HasAccount = z.object({ hasAccount: z.boolean() });
export const AuthUrl = z.object({ authUrl: z.string(), oauthToken: z.string(), oauthTokenSecret: z.string() });
export const RedirectUrl = z.object({ redirectUrl: z.string() });

export const Songs = z.array(Song);
export const SongDetails = z.array(SongDetail);
/** The church's library: a song detail with the id of the church's song that uses it. */
export const SongLibrary = z.array(SongDetail.extend({ songId: z.string() }));
export const SongDetailLinks = z.array(SongDetailLink);
export const Arrangements = z.array(Arrangement);
export const ArrangementKeys = z.array(ArrangementKey);
export const SongSearchHits = z.array(SongSearchHit);
export const SongImportItems = z.array(SongImportItem).min(1).max(2000);
export const SongImportResults = z.array(SongImportResult);
