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
});

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
