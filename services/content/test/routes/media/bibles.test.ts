import { brotliDecompressSync } from 'node:zlib';
import { eq, inArray } from 'drizzle-orm';
import { call, fakeServer } from '@church/common/testing';
import { bibleLookups, bibleVerses } from '../../../src/db/media';
import { useContent } from '../../setup';

/** A loopback API.Bible: one translation, John 3 and a search; `/down` answers 500. */
async function apiBible() {
  const text = (verseId: string, t: string) => ({ type: 'text', text: t, attrs: { verseId } });
  return fakeServer((req) => {
    if (req.headers['api-key'] !== 'bible-key') return { status: 401, body: { message: 'bad key' } };
    if (req.path === '/v1/bibles') return { body: { data: [{ id: 'web-1', abbreviation: 'WEB', name: 'World English Bible', language: { id: 'eng' }, countries: [{ name: 'US' }] }, { id: 'niv-1', abbreviation: 'NIV', name: 'New International Version', language: { id: 'eng' } }] } };
    if (req.path === '/v1/bibles/web-1') return { body: { data: { id: 'web-1', copyright: 'Public domain (WEB)' } } };
    if (/\/v1\/bibles\/[\w-]+\/books$/.test(req.path)) return { body: { data: [{ id: 'JHN', abbreviation: 'Jn', name: 'John' }] } };
    if (/\/books\/JHN\/chapters$/.test(req.path)) return { body: { data: [{ id: 'JHN.intro', number: 'intro' }, { id: 'JHN.3', number: '3' }] } };
    if (req.path.endsWith('/chapters/JHN.3')) return { body: { data: { content: [{ name: 'para', type: 'tag', items: [text('JHN.3.16', 'For God so loved '), text('JHN.3.16', 'the world.'), text('JHN.3.17', 'For God sent not...')] }] } } };
    if (req.path.includes('/passages/')) return { body: { data: { content: [{ name: 'para', type: 'tag', items: [text('JHN.3.16', 'NIV sixteen'), text('JHN.3.17', 'NIV seventeen')] }] } } };
    if (req.path.endsWith('/search')) return { body: { data: { verses: [{ id: 'JHN.3.16', text: 'found it' }] } } };
    return { status: 404, body: { message: 'not found' } };
  });
}

describe('the bundled King James text (offline)', () => {
  const t = useContent();

  it('lists the translation, its books, chapters and verses from the cache', async () => {
    const list = await call(t.app, 'GET', '/content/bibles');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ keyName: 'KJV', source: 'embedded', copyright: 'Public domain', cacheable: true })]);
    const books = (await call(t.app, 'GET', '/content/bibles/KJV/books')).json();
    expect(books).toHaveLength(66);
    expect(books[42]).toMatchObject({ keyName: 'JHN', name: 'John', sort: 43 });
    const chapters = (await call(t.app, 'GET', '/content/bibles/kjv/JHN/chapters')).json();
    expect(chapters).toHaveLength(21);
    const verses = (await call(t.app, 'GET', '/content/bibles/KJV/chapters/JHN.3/verses')).json();
    expect(verses).toHaveLength(36);
    expect(verses[15]).toEqual({
      translationKey: 'KJV',
      verseKey: 'JHN.3.16',
      bookKey: 'JHN',
      chapterNumber: 3,
      verseNumber: 16,
      content: 'For God so loved the world, that he gave his only begotten Son, that whosoever believeth in him should not perish, but have everlasting life.',
    });
    // `[was]` marks translators' words in the source file; the brackets do not reach clients.
    const gen = (await call(t.app, 'GET', '/content/bibles/KJV/verses/GEN.1.2-GEN.1.2')).json();
    expect(gen[0].content).toBe('And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.');
  }, 60_000);

  it('reads ranges across chapters, by code or book name, and logs each lookup', async () => {
    const range = await call(t.app, 'GET', '/content/bibles/KJV/verses/JHN.3.35-JHN.4.2');
    expect(range.statusCode).toBe(200);
    expect(range.json().map((v: { verseKey: string }) => v.verseKey)).toEqual(['JHN.3.35', 'JHN.3.36', 'JHN.4.1', 'JHN.4.2']);
    const byName = (await call(t.app, 'GET', '/content/bibles/KJV/verses/John.3.16-John.3.21')).json();
    expect(byName).toHaveLength(6);
    expect((await call(t.app, 'GET', '/content/bibles/KJV/verses/1John.1.1-1John.1.1')).json()[0].verseKey).toBe('1JN.1.1');
    const stats = (await call(t.app, 'GET', '/content/bibles/stats')).json();
    const logged = await t.app.db.select().from(bibleLookups).where(eq(bibleLookups.startVerseKey, 'John.3.16'));
    expect(logged).toHaveLength(1);
    expect(stats.find((s: { translationKey: string }) => s.translationKey === 'KJV').lookups).toBeGreaterThanOrEqual(3);
    expect((await call(t.app, 'GET', '/content/bibles/stats?startDate=2000-01-01&endDate=2000-02-01')).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/content/bibles/stats?startDate=nope')).json().errors[0].param).toBe('startDate');
  });

  it('answers a range again from memory, logging every lookup, with an ETag and compressed when asked', async () => {
    const url = '/content/bibles/KJV/verses/ROM.8.28-ROM.8.30';
    const first = await call(t.app, 'GET', url);
    expect(first.json().map((v: { verseKey: string }) => v.verseKey)).toEqual(['ROM.8.28', 'ROM.8.29', 'ROM.8.30']);
    const byName = await call(t.app, 'GET', '/content/bibles/kjv/verses/Romans.8.28-Romans.8.30');
    expect(byName.body).toBe(first.body);
    expect((await call(t.app, 'GET', url, { headers: { 'if-none-match': String(first.headers.etag) } })).statusCode).toBe(304);
    const br = await call(t.app, 'GET', url, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(first.json());
    await call(t.app, 'GET', '/content/bibles/stats');
    const logged = await t.app.db.select().from(bibleLookups).where(inArray(bibleLookups.startVerseKey, ['ROM.8.28', 'Romans.8.28']));
    expect(logged.map((l) => l.startVerseKey).sort()).toEqual(['ROM.8.28', 'ROM.8.28', 'ROM.8.28', 'Romans.8.28']);
  });

  it('refuses bad keys and ranges with 400, unknown translations and books with 404', async () => {
    expect((await call(t.app, 'GET', '/content/bibles/KJV/verses/JHN.3.20-JHN.3.16')).json().errors[0].param).toBe('endVerseKey');
    expect((await call(t.app, 'GET', '/content/bibles/KJV/verses/JHN-JHN.3.16')).json().errors[0].param).toBe('startVerseKey');
    expect((await call(t.app, 'GET', '/content/bibles/NOPE/books')).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/bibles/KJV/XYZ/chapters')).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/bibles/KJV/verses/GEN.1.1-REV.22.21')).statusCode).toBe(400);
  });

  it('searches verses', async () => {
    const found = (await call(t.app, 'GET', '/content/bibles/KJV/search?query=begotten%20Son&limit=3')).json();
    expect(found).toHaveLength(3);
    expect(found[0].content).toContain('begotten Son');
    expect((await call(t.app, 'GET', '/content/bibles/KJV/search')).json().errors[0].param).toBe('query');
  });

  it('the outside source answers 400 naming its setting when unconfigured; the embedded source still syncs', async () => {
    const one = await call(t.app, 'GET', '/content/bibles/updateTranslations/api.bible');
    expect(one.statusCode).toBe(400);
    expect(one.json().errors[0].param).toBe('BIBLE_API_KEY');
    const all = await call(t.app, 'GET', '/content/bibles/updateTranslations');
    expect(all.json()).toEqual([{ source: 'embedded', translations: 1 }, expect.objectContaining({ source: 'api.bible', translations: 0 })]);
    expect((await call(t.app, 'GET', '/content/bibles/availableTranslations/embedded')).json()[0].name).toBe('King James Version');
    expect((await call(t.app, 'GET', '/content/bibles/availableTranslations/other')).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/bibles/updateCopyrights')).json()).toEqual({ checked: 0, updated: 0 });
    expect((await call(t.app, 'GET', '/content/bibles/KJV/updateCopyright')).json().copyright).toBe('Public domain');
  });
});

describe('an API.Bible source', () => {
  const t = useContent({
    fakes: async () => {
      const server = await apiBible();
      return { server, config: { BIBLE_API_KEY: 'bible-key', BIBLE_API_BASE_URL: server.url }, close: () => server.close() };
    },
  });

  it('syncs translations and copyrights, caches a chapter so a second read never leaves the service', async () => {
    const sync = await call(t.app, 'GET', '/content/bibles/updateTranslations/api.bible');
    expect(sync.json()).toEqual({ source: 'api.bible', translations: 2 });
    const list = (await call(t.app, 'GET', '/content/bibles')).json();
    expect(list.map((x: { keyName: string }) => x.keyName).sort()).toEqual(['KJV', 'niv-1', 'web-1']);
    expect(list.find((x: { keyName: string }) => x.keyName === 'niv-1').cacheable).toBe(false);
    expect((await call(t.app, 'GET', '/content/bibles/updateCopyrights')).json()).toEqual({ checked: 2, updated: 1 });

    const first = await call(t.app, 'GET', '/content/bibles/web-1/verses/JHN.3.16-JHN.3.17');
    expect(first.json().map((v: { content: string }) => v.content)).toEqual(['For God so loved the world.', 'For God sent not...']);
    const asked = t.server.seen.length;
    const again = await call(t.app, 'GET', '/content/bibles/web-1/verses/JHN.3.16-JHN.3.16');
    expect(again.json()[0].content).toBe('For God so loved the world.');
    expect(t.server.seen.length).toBe(asked);
    expect(await t.app.db.select().from(bibleVerses).where(eq(bibleVerses.translationKey, 'web-1'))).toHaveLength(2);
    expect((await call(t.app, 'GET', '/content/bibles/web-1/JHN/chapters')).json().map((c: { number: number }) => c.number)).toEqual([3]);
  });

  it('never caches a translation whose licence forbids it', async () => {
    await call(t.app, 'GET', '/content/bibles/updateTranslations/api.bible');
    const before = t.server.seen.length;
    const res = await call(t.app, 'GET', '/content/bibles/niv-1/verses/JHN.3.16-JHN.3.17');
    expect(res.json().map((v: { content: string }) => v.content)).toEqual(['NIV sixteen', 'NIV seventeen']);
    await call(t.app, 'GET', '/content/bibles/niv-1/verses/JHN.3.16-JHN.3.17');
    expect(t.server.seen.slice(before).filter((r) => r.path.includes('/passages/'))).toHaveLength(2);
    expect(await t.app.db.select().from(bibleVerses).where(eq(bibleVerses.translationKey, 'niv-1'))).toHaveLength(0);
    expect((await call(t.app, 'GET', '/content/bibles/niv-1/search?query=loved')).json()[0]).toMatchObject({ verseKey: 'JHN.3.16', content: 'found it' });
  });
});

describe('an API.Bible source that refuses', () => {
  const t = useContent({
    fakes: async () => {
      const server = await apiBible();
      return { server, config: { BIBLE_API_KEY: 'wrong-key', BIBLE_API_BASE_URL: server.url }, close: () => server.close() };
    },
  });

  it('answers 502 naming the provider', async () => {
    const res = await call(t.app, 'GET', '/content/bibles/availableTranslations/api.bible');
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toContain('API.Bible');
  });
});
