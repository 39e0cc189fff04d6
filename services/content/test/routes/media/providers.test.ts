import { eq } from 'drizzle-orm';
import { call, fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';
import { sermons, sheetMusicTokens, songDetails } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

/** One loopback server speaking each provider's HTTP API; `state.down` makes every provider fail. */
const state = { down: false };
function answer(req: FakeRequest): FakeAnswer {
  if (state.down) return { status: 503, body: { error: { message: 'service unavailable' } } };
  const p = req.path;
  // YouTube Data API v3 (Google's client: rootUrl + youtube/v3/...)
  if (p === '/youtube/v3/videos') {
    const ids = (req.query.get('id') ?? '').split(',');
    const items = ids.filter((id) => id !== 'missing').map((id) => ({
      id,
      snippet: { title: `Video ${id}`, description: `About ${id}`, publishedAt: '2026-03-01T10:00:00Z', thumbnails: { high: { url: `https://img/${id}.jpg` } } },
      contentDetails: { duration: 'PT1H2M3S' },
    }));
    return { body: { items } };
  }
  if (p === '/youtube/v3/channels') return { body: { items: [{ contentDetails: { relatedPlaylists: { uploads: 'UU1' } } }] } };
  if (p === '/youtube/v3/playlistItems') {
    const page = req.query.get('pageToken');
    if (!page) return { body: { items: [{ contentDetails: { videoId: 'v1' } }, { contentDetails: { videoId: 'v2' } }], nextPageToken: 'P2' } };
    return { body: { items: [{ contentDetails: { videoId: 'v3' } }, { contentDetails: { videoId: 'v1' } }] } };
  }
  if (p === '/youtube/v3/captions') return { body: { items: [{ snippet: { name: 'English' } }] } };
  // Vimeo
  if (p === '/videos/404') return { status: 404, body: { error: 'not found' } };
  if (p.startsWith('/videos/')) return { body: { uri: p, name: 'Vimeo sermon', description: 'desc', duration: 125, release_time: '2026-02-02T00:00:00+00:00', pictures: { sizes: [{ width: 100, link: 'https://i/small' }, { width: 1920, link: 'https://i/big' }] } } };
  if (p === '/channels/chan/videos') {
    if (req.query.get('page') === '1') return { body: { data: [{ uri: '/videos/11', name: 'One' }], paging: { next: '/channels/chan/videos?per_page=100&page=2' } } };
    return { body: { data: [{ uri: '/videos/12', name: 'Two' }], paging: { next: null } } };
  }
  // OpenAI-compatible chat
  if (p === '/v1/chat/completions') {
    const user = (req.json as { messages: Array<{ content: string }> }).messages[1]!.content;
    const content = user.includes('Write posts') ? '["Watch this!", "Join us Sunday"]' : `# Outline\n${user.includes('Psalm 23') ? 'Psalm 23 found' : 'no text'}`;
    return { body: { id: 'c1', object: 'chat.completion', created: 1, model: 'test-model', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] } };
  }
  if (p === '/article') return { body: '<html><body><h1>The Shepherd</h1><p>Psalm 23 teaches...</p><script>x()</script></body></html>', headers: { 'content-type': 'text/html' } };
  // Pexels
  if (p === '/v1/search') return { body: { photos: [{ id: 7, alt: 'A church', photographer: 'Ann', photographer_url: 'https://pexels/ann', src: { large: 'https://p/large.jpg', medium: 'https://p/m.jpg' } }] } };
  // Amazon Polly (REST-JSON: POST /v1/speech answers the audio bytes)
  if (p === '/v1/speech') return { body: 'ID3-fake-mp3', headers: { 'content-type': 'audio/mpeg', 'x-amzn-requestcharacters': '10' } };
  // Sheet-music provider (OAuth 1.0a)
  if (p === '/oauth/request_token') return { body: 'oauth_token=req-token&oauth_token_secret=req-secret&oauth_callback_confirmed=true' };
  if (p === '/oauth/access_token') return { body: 'oauth_token=acc-token&oauth_token_secret=acc-secret' };
  if (p === '/api/v1.0/catalog/search') return { body: { results: [{ id: 'pc-9', title: `match ${req.query.get('q')}` }] } };
  if (p === '/api/v1.0/catalog/pc-9') return { body: { id: 'pc-9', title: 'Great Is Thy Faithfulness', artists: [{ title: 'Chisholm' }], bpm: '70', key: 'D' } };
  if (p === '/api/v1.0/library/browse') return { body: { items: ['mine'] } };
  if (p === '/api/v1.0/library/pc-9/products') return { body: { products: ['library'] } };
  if (p === '/api/v1.0/catalog/pc-9/products') return { body: { products: ['catalog'] } };
  if (p === '/api/v1.0/download') return { body: { url: 'https://files.example/chart.pdf' } };
  return { status: 404, body: { error: `no fake for ${p}` } };
}

afterEach(() => {
  state.down = false;
});
const t = useContent({
  fakes: async () => {
    const server = await fakeServer(answer);
    const config = {
      YOUTUBE_API_KEY: 'yt-key',
      YOUTUBE_BASE_URL: server.url,
      VIMEO_ACCESS_TOKEN: 'vimeo-token',
      VIMEO_BASE_URL: server.url,
      OPENAI_API_KEY: 'ai-key',
      OPENAI_API_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'test-model',
      PEXELS_API_KEY: 'pexels-key',
      PEXELS_BASE_URL: server.url,
      POLLY_ACCESS_KEY_ID: 'AKIDTEST',
      POLLY_SECRET_ACCESS_KEY: 'secret',
      POLLY_ENDPOINT: server.url,
      SHEET_MUSIC_CONSUMER_KEY: 'consumer',
      SHEET_MUSIC_CONSUMER_SECRET: 'consumer-secret',
      SHEET_MUSIC_BASE_URL: server.url,
      // the fake article lives on loopback
      OUTLINE_ALLOW_PRIVATE_URLS: 'true',
    };
    return { server, config, close: () => server.close() };
  },
});
const seen = (path: string) => t.server.seen.filter((r) => r.path === path);

describe('videoHostA (YouTube, real client)', () => {
  it('looks a video up, with the key sent and the duration in seconds', async () => {
    const res = await call(t.app, 'GET', '/content/sermons/lookup?videoType=videoHostA&videoData=abc');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ title: 'Video abc', description: 'About abc', thumbnail: 'https://img/abc.jpg', duration: 3723, publishDate: '2026-03-01T10:00:00Z' });
    expect(seen('/youtube/v3/videos').at(-1)!.query.get('key')).toBe('yt-key');
    expect((await call(t.app, 'GET', '/content/sermons/lookup?videoType=youtube&videoData=missing')).statusCode).toBe(404);
  });

  it('imports a channel through every page, de-duplicated against existing sermons', async () => {
    const a = makeChurch();
    await t.app.db.insert(sermons).values({ id: crypto.randomUUID(), churchId: a.churchId, title: 'Have it', videoType: 'youtube', videoData: 'v2' });
    const res = await call(t.app, 'GET', '/content/sermons/videoHostAImport/UCchan', { token: a.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((s: { videoData: string }) => s.videoData)).toEqual(['v1', 'v3']);
    expect(res.json()[0]).toMatchObject({ videoType: 'youtube', title: 'Video v1', duration: 3723 });
    expect(seen('/youtube/v3/playlistItems').map((r) => r.query.get('pageToken'))).toEqual([null, 'P2']);
    // B1Admin YouTubeImport.tsx calls the same import by the host's own name
    const named = await call(t.app, 'GET', '/content/sermons/youtubeImport/UCchan', { token: a.token() });
    expect(named.json()).toEqual(res.json());
  });

  it('answers 502 naming the provider when it fails', async () => {
    state.down = true;
    const res = await call(t.app, 'GET', '/content/sermons/lookup?videoType=youtube&videoData=abc');
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toContain('YouTube');
  });
});

describe('videoHostB (Vimeo HTTP API)', () => {
  it('looks up, pages through a channel, and answers 404 and 502', async () => {
    const res = await call(t.app, 'GET', '/content/sermons/lookup?videoType=vimeo&videoData=555');
    expect(res.json()).toEqual({ title: 'Vimeo sermon', description: 'desc', thumbnail: 'https://i/big', duration: 125, publishDate: '2026-02-02T00:00:00+00:00' });
    expect(seen('/videos/555').at(-1)!.headers.authorization).toBe('bearer vimeo-token');
    expect((await call(t.app, 'GET', '/content/sermons/lookup?videoType=videoHostB&videoData=404')).statusCode).toBe(404);
    const a = makeChurch();
    const imported = (await call(t.app, 'GET', '/content/sermons/videoHostBImport/chan', { token: a.token() })).json();
    expect(imported.map((s: { videoData: string }) => s.videoData)).toEqual(['11', '12']);
    expect((await call(t.app, 'GET', '/content/sermons/vimeoImport/chan', { token: a.token() })).json()).toEqual(imported);
    expect((await call(t.app, 'GET', '/content/sermons/vimeoImport/chan')).statusCode).toBe(401);
    state.down = true;
    expect((await call(t.app, 'GET', '/content/sermons/lookup?videoType=vimeo&videoData=555')).statusCode).toBe(502);
  });
});

describe('the AI chat endpoint (openai client)', () => {
  it('suggests social posts from a video and outlines an address’s text', async () => {
    const a = makeChurch();
    const social = await call(t.app, 'GET', '/content/sermons/socialSuggestions?videoHostAVideoId=abc', { token: a.token() });
    expect(social.statusCode).toBe(200);
    expect(social.json()).toEqual({ suggestions: ['Watch this!', 'Join us Sunday'] });
    const asked = seen('/v1/chat/completions').at(-1)!;
    expect(asked.headers.authorization).toBe('Bearer ai-key');
    expect((asked.json as { model: string }).model).toBe('test-model');

    const outline = await call(t.app, 'GET', `/content/sermons/outline?url=${encodeURIComponent(`${t.server.url}/article`)}&title=Shepherd`, { token: a.token() });
    expect(outline.statusCode).toBe(200);
    expect(outline.json().outline).toContain('Psalm 23 found');
    const prompt = (seen('/v1/chat/completions').at(-1)!.json as { messages: Array<{ content: string }> }).messages[1]!.content;
    expect(prompt).not.toContain('<p>');
    expect(prompt).toContain('Title: Shepherd');
    // a far end that fails is the one shared text, whatever happened there
    const gone = await call(t.app, 'GET', `/content/sermons/outline?url=${encodeURIComponent(`${t.server.url}/no-such-article`)}`, { token: a.token() });
    expect(gone.statusCode).toBe(502);
    expect(gone.json().errors[0]).toBe('The address could not be read');
    state.down = true;
    expect((await call(t.app, 'GET', '/content/sermons/socialSuggestions?videoHostAVideoId=abc', { token: a.token() })).statusCode).toBe(502);
  });
});

describe('stock photos (Pexels)', () => {
  it('searches with the key and maps the answer', async () => {
    const res = await call(t.app, 'POST', '/content/stock/search', { body: { term: 'church choir' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: '7', url: 'https://p/large.jpg', thumbnail: 'https://p/m.jpg', description: 'A church', photographer: 'Ann', photographerUrl: 'https://pexels/ann', source: 'pexels', license: 'Pexels License' }]);
    const req = seen('/v1/search').at(-1)!;
    expect(req.headers.authorization).toBe('pexels-key');
    expect(req.query.get('query')).toBe('church choir');
    state.down = true;
    expect((await call(t.app, 'POST', '/content/stock/search', { body: { term: 'x' } })).statusCode).toBe(502);
  });
});

describe('speech (Amazon Polly, real client)', () => {
  it('turns SSML into MP3 and refuses markup that does not start with <speak>', async () => {
    const res = await call(t.app, 'POST', '/content/support/createAudio', { body: { ssml: '<speak>Welcome to church</speak>' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('audio/mpeg');
    expect(res.body).toBe('ID3-fake-mp3');
    const sent = seen('/v1/speech').at(-1)!;
    expect(sent.json).toMatchObject({ OutputFormat: 'mp3', TextType: 'ssml', Text: '<speak>Welcome to church</speak>' });
    expect(String(sent.headers.authorization)).toContain('AKIDTEST');
    const bad = await call(t.app, 'POST', '/content/support/createAudio', { body: { ssml: 'Hello' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('ssml');
    expect((await call(t.app, 'POST', '/content/support/createAudio', { body: { ssml: `<speak>${'a'.repeat(7000)}</speak>` } })).statusCode).toBe(400);
    state.down = true;
    expect((await call(t.app, 'POST', '/content/support/createAudio', { body: { ssml: '<speak>x</speak>' } })).statusCode).toBe(502);
  });
});

describe('the sheet-music provider (OAuth 1.0a)', () => {
  it('links an account (token saved encrypted), then reads the library, products and downloads', async () => {
    const a = makeChurch();
    const token = a.token();
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/hasAccount', { token })).json()).toEqual({ hasAccount: false });
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/library', { token })).statusCode).toBe(400);

    const auth = await call(t.app, 'GET', '/content/sheetMusicProvider/authUrl?returnUrl=https%3A%2F%2Fapp.example%2Fdone');
    expect(auth.statusCode).toBe(200);
    expect(auth.json()).toEqual({ authUrl: `${t.server.url}/oauth/authorize?oauth_token=req-token`, oauthToken: 'req-token', oauthTokenSecret: 'req-secret' });
    const header = String(seen('/oauth/request_token').at(-1)!.headers.authorization);
    expect(header).toMatch(/^OAuth /);
    expect(header).toContain('oauth_consumer_key="consumer"');
    expect(header).toContain('oauth_signature_method="HMAC-SHA1"');
    expect(header).toContain('oauth_callback="https%3A%2F%2Fapp.example%2Fdone"');

    const access = await call(t.app, 'GET', '/content/sheetMusicProvider/access?verifier=v123&token=req-token', { token });
    expect(access.json()).toEqual({ hasAccount: true });
    expect(String(seen('/oauth/access_token').at(-1)!.headers.authorization)).toContain('oauth_verifier="v123"');
    const [row] = await t.app.db.select().from(sheetMusicTokens).where(eq(sheetMusicTokens.churchId, a.churchId));
    expect(row!.token).not.toContain('acc-token');
    expect(t.app.deps.secrets.decrypt(row!.token)).toBe('acc-token');
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/hasAccount', { token })).json()).toEqual({ hasAccount: true });

    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/library', { token })).json()).toEqual({ items: ['mine'] });
    expect(String(seen('/api/v1.0/library/browse').at(-1)!.headers.authorization)).toContain('oauth_token="acc-token"');
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/products/pc-9?keys=D', { token })).json()).toEqual({ products: ['library'] });
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/products/pc-9', { token: makeChurch().token() })).json()).toEqual({ products: ['catalog'] });
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/download?skus=s1&keys=D&file_name=chart.pdf', { token })).json()).toEqual({ redirectUrl: 'https://files.example/chart.pdf' });
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/search?q=grace', { token })).json()).toEqual({ results: [{ id: 'pc-9', title: 'match grace' }] });
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/raw/pc-9', { token })).json().title).toBe('Great Is Thy Faithfulness');
    expect((await call(t.app, 'GET', '/content/sheetMusicProvider/access?verifier=v&token=unknown', { token })).json().errors[0].param).toBe('secret');
  });

  it('serves the same under /content/praiseCharts as B1Admin calls it (LinkedAccounts, SongDialog, Keys, SongSearchDialog, Arrangement, PraiseChartsProducts)', async () => {
    const a = makeChurch();
    const token = a.token();
    expect((await call(t.app, 'GET', '/content/praiseCharts/hasAccount', { token })).json()).toEqual({ hasAccount: false });
    expect((await call(t.app, 'GET', '/content/praiseCharts/hasAccount')).statusCode).toBe(401);
    // without a linked account the arrangement is a 400 naming what is missing
    expect((await call(t.app, 'GET', '/content/praiseCharts/arrangement/raw/pc-9?keys=D', { token })).json().errors[0].param).toBe('account');
    const auth = (await call(t.app, 'GET', `/content/praiseCharts/authUrl?returnUrl=${encodeURIComponent('https://admin.example/pingback')}`)).json();
    expect(auth).toMatchObject({ oauthToken: 'req-token', oauthTokenSecret: 'req-secret' });
    const access = await call(t.app, 'GET', `/content/praiseCharts/access?verifier=v9&token=${auth.oauthToken}&secret=${auth.oauthTokenSecret}`, { token });
    expect(access.json()).toEqual({ hasAccount: true });
    expect(String(seen('/oauth/access_token').at(-1)!.headers.authorization)).toContain('oauth_verifier="v9"');
    expect((await call(t.app, 'GET', '/content/praiseCharts/hasAccount', { token })).json()).toEqual({ hasAccount: true });
    expect((await call(t.app, 'GET', '/content/praiseCharts/search?q=grace', { token })).json()).toEqual({ results: [{ id: 'pc-9', title: 'match grace' }] });
    expect((await call(t.app, 'GET', '/content/praiseCharts/raw/pc-9', { token })).json().title).toBe('Great Is Thy Faithfulness');
    expect((await call(t.app, 'GET', '/content/praiseCharts/products/pc-9?keys=D', { token })).json()).toEqual({ products: ['library'] });
    const arrangementPath = '/api/v1.0/library/arrangements/pc-9';
    await call(t.app, 'GET', '/content/praiseCharts/arrangement/raw/pc-9?keys=D', { token });
    expect(seen(arrangementPath).at(-1)!.query.get('keys')).toBe('D');
    expect(String(seen(arrangementPath).at(-1)!.headers.authorization)).toContain('oauth_token="acc-token"');
    // another user of the same church has not linked an account
    expect((await call(t.app, 'GET', '/content/praiseCharts/hasAccount', { token: a.tokenOf(crypto.randomUUID()) })).json()).toEqual({ hasAccount: false });
  });

  it('creates a global song detail from a provider id once, with its metadata', async () => {
    const a = makeChurch();
    const first = await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(), body: { sheetMusicId: 'pc-9' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ sheetMusicId: 'pc-9', title: 'Great Is Thy Faithfulness', artist: 'Chisholm', bpm: 70, keySignature: 'D' });
    const again = await call(t.app, 'POST', '/content/songDetails/create', { token: makeChurch().token(), body: { sheetMusicId: 'pc-9' } });
    expect(again.json().id).toBe(first.json().id);
    expect(await t.app.db.select().from(songDetails).where(eq(songDetails.sheetMusicId, 'pc-9'))).toHaveLength(1);
    expect((await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(), body: { sheetMusicId: 'nope' } })).statusCode).toBe(404);
  });

  it('answers 502 when the provider fails', async () => {
    state.down = true;
    const res = await call(t.app, 'GET', '/content/sheetMusicProvider/search?q=x', { token: makeChurch().token() });
    expect(res.statusCode).toBe(502);
  });
});
