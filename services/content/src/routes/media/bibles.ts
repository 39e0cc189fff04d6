import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { HttpError, badRequest, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { serialized } from '../kept';
import { BibleRepo, EMBEDDED_SOURCE, ensureEmbedded, flushLookups, type VerseOut } from '../../repos/media/bible';
import {
  BookParams,
  Books,
  ChapterParams,
  Chapters,
  CopyrightsUpdated,
  LookupStats,
  RangeParams,
  SourceParams,
  SourceTranslations,
  StatsQuery,
  SyncResult,
  SyncResults,
  Translation,
  TranslationParams,
  Translations,
  Verses,
  VerseSearchQuery,
} from '../../schemas/media-bibles';

/** A range read that must not be kept (the cache lacks some of it): answered, not kept, to each reader who shared it. */
class NotFinal extends Error {
  constructor(readonly rows: VerseOut[]) {
    super('not a final verse range');
  }
}

/** `/content/bibles` (all public): translations, books, chapters and verses, cached from their sources. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const repo = () => new BibleRepo(app.db, contentDeps(app).providers.bibleSource, (err) => app.log.warn({ err }, 'could not log Bible lookups'));
  app.addHook('onClose', async () => flushLookups(app.db).catch(() => undefined));
  // A running server (not a test's app.inject) loads the bundled text as soon as it listens, so the first reader
  // of a verse does not wait the seconds it takes (on PGlite) for it, nor do other content requests behind it.
  app.addHook('onListen', async () => {
    void ensureEmbedded(app.db).catch((err) => app.log.warn({ err }, 'the bundled Bible could not be loaded yet; the first read tries again'));
  });
  const sources = () => [EMBEDDED_SOURCE, contentDeps(app).providers.bibleSource.name];
  const access = 'public' as const;

  app.get('/content/bibles', { config: { access }, schema: { response: { 200: Translations } } }, async () => repo().translations());

  app.get(
    '/content/bibles/stats',
    { config: { access }, schema: { querystring: StatsQuery, response: { 200: LookupStats } } },
    async (req) => {
      const end = req.query.endDate ?? new Date();
      const start = req.query.startDate ?? new Date(end.getTime() - 30 * 24 * 3600 * 1000);
      if (start > end) throw badRequest('startDate', 'must not be after endDate', 'query');
      return repo().stats(start, end);
    },
  );

  app.get('/content/bibles/availableTranslations/:source', { config: { access }, schema: { params: SourceParams, response: { 200: SourceTranslations } } }, async (req) => repo().available(req.params.source));

  app.get('/content/bibles/updateTranslations', { config: { access }, schema: { response: { 200: SyncResults } } }, async () => {
    const results: Array<z.output<typeof SyncResult>> = [];
    for (const source of sources()) {
      try {
        results.push({ source, translations: await repo().sync(source) });
      } catch (err) {
        results.push({ source, translations: 0, error: err instanceof HttpError ? err.message : 'failed' });
      }
    }
    return results;
  });

  app.get('/content/bibles/updateTranslations/:source', { config: { access }, schema: { params: SourceParams, response: { 200: SyncResult } } }, async (req) => ({
    source: req.params.source,
    translations: await repo().sync(req.params.source),
  }));

  app.get('/content/bibles/updateCopyrights', { config: { access }, schema: { response: { 200: CopyrightsUpdated } } }, async () => {
    const r = repo();
    const missing = await r.missingCopyrights();
    let updated = 0;
    for (const t of missing) if ((await r.updateCopyright(t)).copyright) updated++;
    return { checked: missing.length, updated };
  });

  app.get('/content/bibles/:translationKey/updateCopyright', { config: { access }, schema: { params: TranslationParams, response: { 200: Translation } } }, async (req) => {
    const r = repo();
    return r.updateCopyright(await r.translation(req.params.translationKey));
  });

  app.get(
    '/content/bibles/:translationKey/search',
    { config: { access }, schema: { params: TranslationParams, querystring: VerseSearchQuery, response: { 200: Verses } } },
    async (req) => {
      const r = repo();
      return r.search(await r.translation(req.params.translationKey), req.query.query, req.query.limit);
    },
  );

  app.get('/content/bibles/:translationKey/books', { config: { access }, schema: { params: TranslationParams, response: { 200: Books } } }, async (req) => {
    const r = repo();
    const t = await r.translation(req.params.translationKey);
    return (await r.books(t)).map((b) => ({ translationKey: t.keyName, keyName: b.keyName, abbreviation: b.abbreviation, name: b.name, sort: b.sort }));
  });

  app.get('/content/bibles/:translationKey/:bookKey/chapters', { config: { access }, schema: { params: BookParams, response: { 200: Chapters } } }, async (req) => {
    const r = repo();
    const t = await r.translation(req.params.translationKey);
    return (await r.chapters(t, req.params.bookKey)).map((c) => ({ translationKey: t.keyName, bookKey: c.bookKey, keyName: c.keyName, number: c.number }));
  });

  app.get(
    '/content/bibles/:translationKey/chapters/:chapterKey/verses',
    { config: { access }, schema: { params: ChapterParams, response: { 200: Verses } } },
    async (req) => {
      const r = repo();
      return r.chapterVerses(await r.translation(req.params.translationKey), req.params.chapterKey);
    },
  );

  // A range of a translation that may be kept is answered from memory once read: its body is kept on the
  // shared snapshot store under the translation at a constant version (kept verses never change), compressed
  // and with an ETag. Only a final answer is kept (`verses`' `complete`); each lookup is still logged.
  app.get(
    '/content/bibles/:translationKey/verses/:startVerseKey-:endVerseKey',
    { config: { access }, schema: { params: RangeParams, response: { 200: Verses } } },
    async (req, reply) => {
      const { translationKey, startVerseKey, endVerseKey } = req.params;
      const r = repo();
      const t = await r.translation(translationKey);
      if (!t.cacheable) return r.range(t, startVerseKey, endVerseKey, req.ip);
      const span = await r.span(t, startVerseKey, endVerseKey);
      try {
        const sent = await app.deps.snapshots.sendAt(req, reply, `bible:${t.keyName}`, `${span.from}-${span.to}`, '0', async () => {
          const { rows, complete } = await r.verses(t, span);
          if (!complete) throw new NotFinal(rows);
          return serialized(reply, rows);
        });
        r.logLookup(t, startVerseKey, endVerseKey, req.ip);
        return sent;
      } catch (err) {
        if (!(err instanceof NotFinal)) throw err;
        r.logLookup(t, startVerseKey, endVerseKey, req.ip);
        return err.rows;
      }
    },
  );
}
