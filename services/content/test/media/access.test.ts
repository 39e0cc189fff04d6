import { randomUUID } from 'node:crypto';
import { call, expectRoutesGuarded } from '@church/common/testing';
import { makeChurch, useContent } from '../setup';

const t = useContent();

// Another church's ids in bodies (issue 41): the reference walk covers this half's write routes with the website
// half's, in test/website/access.test.ts ("references in bodies"): the halves are one app, and the walk takes every route.

describe('the content app (route walk)', () => {
  it('guards every JWT route: no, forged, expired or alg:none token → 401; no permission → 401; another church never 500', async () => {
    const report = await expectRoutesGuarded(t.app);
    expect(report.guarded).toBeGreaterThan(40);
    expect(report.public).toBeGreaterThan(15);
  }, 120_000);

  // 85 of the spec's tables, plus the names B1Admin calls for the channel imports (youtubeImport, vimeoImport)
  // and the 9 sheet-music routes under the provider's own name (/content/praiseCharts, B1Admin and B1App),
  // and the 5 routes of a church's own storage (/content/storage, B1Admin StorageSettingsEdit.tsx)
  it('has the 85 routes of the media half and the apps\' 16 others', () => {
    const prefixes = ['storage', 'praiseCharts', 'sermons', 'playlists', 'streamingServices', 'preview', 'files', 'gallery', 'stock', 'bibles', 'songs', 'songDetails', 'songDetailLinks', 'arrangements', 'arrangementKeys', 'sheetMusicProvider', 'support'];
    const media = t.app.routeList.filter((r) => prefixes.some((p) => r.url === `/content/${p}` || r.url.startsWith(`/content/${p}/`)));
    expect(media).toHaveLength(101);
    const routes = new Set(t.app.routeList.map((r) => `${r.method} ${r.url}`));
    for (const route of [
      'GET /content/sermons/public/presenterSample',
      'GET /content/sermons/videoHostBImport/:channelId',
      'GET /content/sermons/youtubeImport/:channelId',
      'GET /content/sermons/vimeoImport/:channelId',
      'DELETE /content/playlists/:id',
      'GET /content/streamingServices/:id/hostChat',
      'GET /content/preview/data/:key',
      'POST /content/files/postUrl',
      'DELETE /content/gallery/:folder/:image',
      'POST /content/stock/search',
      'GET /content/bibles/:translationKey/verses/:startVerseKey-:endVerseKey',
      'POST /content/songs/import',
      'POST /content/songDetails/create',
      'GET /content/songDetailLinks/songDetail/:songDetailId',
      'POST /content/arrangements/presenterApp/missing',
      'GET /content/arrangementKeys/presenter/:churchId/:id',
      'POST /content/support/createAudio',
      'GET /content/sheetMusicProvider/library',
      'GET /content/praiseCharts/access',
      'GET /content/praiseCharts/arrangement/raw/:id',
      'GET /content/praiseCharts/download',
      'POST /content/storage/exchange',
      'DELETE /content/storage/providers/:id',
    ]) {
      expect(routes).toContain(route);
    }
  });
});

/** Placeholders as `shared/tools/route-coverage.mjs` fills them. */
function placeholders(url: string): string {
  return url
    .replace(':startVerseKey-:endVerseKey', 'JHN.3.16-JHN.3.17')
    .replace(':contentType', 'group')
    .replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => (/id$/i.test(name) ? randomUUID() : 'word'));
}

describe('route coverage of the media half', () => {
  it('no route answers a server error, with or without a church token (route-coverage.mjs inputs)', async () => {
    const c = makeChurch();
    const token = c.token('all');
    const media = t.app.routeList.filter((r) => /^\/content\/(sermons|playlists|streamingServices|preview|files|gallery|stock|bibles|songs|songDetails|songDetailLinks|arrangements|arrangementKeys|sheetMusicProvider|praiseCharts|storage|support)(\/|$)/i.test(r.url));
    const failures: string[] = [];
    for (const route of media) {
      const url = placeholders(route.url);
      const body = ['POST', 'PATCH'].includes(route.method) ? {} : undefined;
      for (const auth of [undefined, token]) {
        const res = await call(t.app, route.method as 'GET', url, { token: auth, body });
        // This app runs alone: the preview asks membership, which answers 502 here (in the fleet it answers).
        const downstream = res.statusCode === 502 && route.url.startsWith('/content/preview/');
        if (res.statusCode >= 500 && !downstream) failures.push(`${route.method} ${url} ${auth ? 'with' : 'without'} a token: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode === 404 && /Route .* not found/.test(res.body)) failures.push(`${route.method} ${url}: missing`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
