import { z } from 'zod';
import { IsoDate } from '@church/common';

const Key = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9._' -]+$/, 'letters, digits, ., - and _ only');
export const SourceParams = z.object({ source: Key });
export const TranslationParams = z.object({ translationKey: Key });
export const BookParams = z.object({ translationKey: Key, bookKey: Key });
export const ChapterParams = z.object({ translationKey: Key, chapterKey: Key });
export const RangeParams = z.object({ translationKey: Key, startVerseKey: Key, endVerseKey: Key });
export const StatsQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional() });
export const VerseSearchQuery = z.object({ query: z.string().trim().min(2, 'at least 2 characters').max(200), limit: z.coerce.number().int().min(1).max(500).default(50) });

export const Verses = z.array(z.object({ translationKey: z.string(), verseKey: z.string(), bookKey: z.string(), chapterNumber: z.number(), verseNumber: z.number(), content: z.string() }));
export const Translation = z.object({
  id: z.string(),
  keyName: z.string(),
  source: z.string(),
  sourceKey: z.string(),
  abbreviation: z.string().nullable(),
  name: z.string(),
  nameLocal: z.string().nullable(),
  description: z.string().nullable(),
  language: z.string().nullable(),
  countries: z.string().nullable(),
  copyright: z.string().nullable(),
  attributionRequired: z.boolean(),
  attributionString: z.string().nullable(),
  cacheable: z.boolean(),
});
export const Translations = z.array(Translation);
/** Translations as their source lists them (not yet synced). */
export const SourceTranslations = z.array(
  Translation.pick({ sourceKey: true, abbreviation: true, name: true, nameLocal: true, description: true, language: true, countries: true, copyright: true }),
);
/** Lookups per translation in a period, most read first. */
export const LookupStats = z.array(z.object({ translationKey: z.string(), lookups: z.number() }));
/** A source's sync: how many translations it has; `error` when it failed (then 0). */
export const SyncResult = z.object({ source: z.string(), translations: z.number(), error: z.string().optional() });
export const SyncResults = z.array(SyncResult);
export const CopyrightsUpdated = z.object({ checked: z.number(), updated: z.number() });
export const Books = z.array(z.object({ translationKey: z.string(), keyName: z.string(), abbreviation: z.string().nullable(), name: z.string(), sort: z.number() }));
export const Chapters = z.array(z.object({ translationKey: z.string(), bookKey: z.string(), keyName: z.string(), number: z.number() }));
