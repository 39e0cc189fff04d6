import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { sermons, streamingServices } from '../../../src/db/media';
import { links } from '../../../src/db/website';
import { makeChurch, useContent } from '../../setup';

const grace = makeChurch();
const t = useContent({
  routes: {
    // membership's public lookup by subdomain (no internal contract: clients/membership.ts); any other subdomain is
    // no fake's, a 404 as membership answers it
    'GET /membership/churches/lookup?subDomain=grace': () => ({ id: grace.churchId, name: 'Grace Church', subDomain: 'grace' }),
    'POST /messaging/internal/blockedips/clear': () => ({ removed: 0 }),
  },
});
const EDIT = ['StreamingServices.Edit'];
const png = `data:image/png;base64,${Buffer.from('fake png bytes').toString('base64')}`;

describe('sermons', () => {
  it('saves a batch (thumbnail stored, video address derived), lists, reads and deletes; isolated per church', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const res = await call(t.app, 'POST', '/content/sermons', {
      token: a.token(EDIT),
      body: [
        { title: 'Hope', videoType: 'youtube', videoData: 'abc123', publishDate: '2026-01-04T10:00:00Z', thumbnail: png, duration: 1800 },
        { title: 'Faith', videoType: 'vimeo', videoData: '999', publishDate: '2026-01-11T10:00:00Z' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [hope, faith] = res.json();
    expect(hope).toMatchObject({ title: 'Hope', churchId: a.churchId, duration: 1800, videoUrl: expect.stringContaining('youtube.com/embed/abc123') });
    expect(hope.thumbnail).toMatch(/^http.*\/streamingLive\/sermons\/.+\.png$/);
    expect(faith.videoUrl).toContain('player.vimeo.com/video/999');

    const list = await call(t.app, 'GET', '/content/sermons', { token: a.token() });
    expect(list.json().map((s: { title: string }) => s.title)).toEqual(['Faith', 'Hope']);
    expect((await call(t.app, 'GET', '/content/sermons', { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/content/sermons/${hope.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/sermons', { token: b.token(EDIT), body: { id: hope.id, title: 'Stolen' } })).statusCode).toBe(404);

    const timeline = await call(t.app, 'GET', `/content/sermons/timeline?sermonIds=${hope.id}`, { token: a.token() });
    expect(timeline.json().map((s: { id: string }) => s.id)).toEqual([hope.id]);

    expect((await call(t.app, 'DELETE', `/content/sermons/${hope.id}`, { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/sermons/${hope.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(sermons).where(eq(sermons.id, hope.id))).toHaveLength(0);
  });

  it('B1App TimelineHelper: sermons/timeline?sermonIds=a,b answers each sermon as a timeline post (postType, postId), only the church’s', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [one, two] = (await call(t.app, 'POST', '/content/sermons', { token: a.token(EDIT), body: [{ title: 'One' }, { title: 'Two' }] })).json();
    const [theirs] = (await call(t.app, 'POST', '/content/sermons', { token: b.token(EDIT), body: [{ title: 'Theirs' }] })).json();
    const res = await call(t.app, 'GET', `/content/sermons/timeline?sermonIds=${one.id},${two.id},${theirs.id}`, { token: a.token() });
    expect(res.statusCode).toBe(200);
    const posts = res.json().sort((x: { title: string }, y: { title: string }) => x.title.localeCompare(y.title));
    expect(posts).toEqual([
      { ...one, postType: 'sermon', postId: one.id },
      { ...two, postType: 'sermon', postId: two.id },
    ]);
  });

  it('answers 400 naming the field', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'POST', '/content/sermons', { token: a.token(EDIT), body: [{ title: 'ok' }, { title: '' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].title', location: 'body' });
    const bad = await call(t.app, 'POST', '/content/sermons', { token: a.token(EDIT), body: { title: 'x', thumbnail: 'data:text/plain;base64,aGk=' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('thumbnail');
    expect(await t.app.db.select().from(sermons).where(eq(sermons.churchId, a.churchId))).toHaveLength(0);
  });

  it('public sermons and TV feeds leave out private playlists and future sermons', async () => {
    const a = makeChurch();
    const [open, closed] = (
      await call(t.app, 'POST', '/content/playlists', { token: a.token(EDIT), body: [{ title: 'Series', isPublic: true, thumbnail: png }, { title: 'Staff only', isPublic: false }] })
    ).json();
    expect(open.thumbnail).toMatch(/playlists\/.+\.png$/);
    const saved = (
      await call(t.app, 'POST', '/content/sermons', {
        token: a.token(EDIT),
        body: [
          { title: 'In series', playlistId: open.id, videoType: 'youtube', videoData: 'a1', publishDate: '2026-02-01T00:00:00Z' },
          { title: 'Private', playlistId: closed.id, publishDate: '2026-02-01T00:00:00Z' },
          { title: 'Loose', videoUrl: 'https://example.org/v.mp4', publishDate: '2026-01-01T00:00:00Z' },
          { title: 'Next year', publishDate: '2099-01-01T00:00:00Z' },
        ],
      })
    ).json();
    const pub = await call(t.app, 'GET', `/content/sermons/public/${a.churchId}`);
    expect(pub.statusCode).toBe(200);
    expect(pub.json().map((s: { title: string }) => s.title)).toEqual(['In series', 'Loose']);

    const feed = (await call(t.app, 'GET', `/content/sermons/public/tvFeed/${a.churchId}`)).json();
    expect(feed.playlists.map((p: { title: string }) => p.title)).toEqual(['Series']);
    expect(feed.playlists[0].items.map((s: { title: string }) => s.title)).toEqual(['In series']);
    expect(feed.items.map((s: { title: string }) => s.title)).toEqual(['Loose']);

    const one = await call(t.app, 'GET', `/content/sermons/public/tvFeed/${a.churchId}/${saved[0].id}`);
    expect(one.json().items[0]).toMatchObject({ title: 'In series', url: expect.stringContaining('youtube.com/embed/a1') });
    expect((await call(t.app, 'GET', `/content/sermons/public/tvFeed/${a.churchId}/${saved[1].id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/sermons/public/tvFeed/nope')).statusCode).toBe(400);

    // The kept public answer follows every change at once (the church's data version).
    const [added] = (await call(t.app, 'POST', '/content/sermons', { token: a.token(EDIT), body: { title: 'Just added', publishDate: '2026-03-01T00:00:00Z' } })).json();
    expect((await call(t.app, 'GET', `/content/sermons/public/${a.churchId}`)).json().map((s: { title: string }) => s.title)).toEqual(['Just added', 'In series', 'Loose']);
    await call(t.app, 'DELETE', `/content/sermons/${added.id}`, { token: a.token(EDIT) });
    const cached = await call(t.app, 'GET', `/content/sermons/public/${a.churchId}`);
    expect(cached.json()).toHaveLength(2);
    expect((await call(t.app, 'GET', `/content/sermons/public/${a.churchId}`, { headers: { 'if-none-match': String(cached.headers.etag) } })).statusCode).toBe(304);

    const publicLists = await call(t.app, 'GET', `/content/playlists/public/${a.churchId}`);
    expect(publicLists.json().map((p: { title: string }) => p.title)).toEqual(['Series']);

    const wrapper = await call(t.app, 'GET', `/content/sermons/public/tvWrapper/${a.churchId}`, { token: a.token() });
    expect(wrapper.json().sources.map((s: { key: string }) => s.key)).toEqual(['sermons', 'lessons', 'presenterApp']);
    expect((await call(t.app, 'GET', '/content/sermons/public/presenterSample', { token: a.token() })).json().items.length).toBeGreaterThan(0);

    // Deleting a playlist keeps its sermons.
    expect((await call(t.app, 'DELETE', `/content/playlists/${open.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    const [kept] = await t.app.db.select().from(sermons).where(eq(sermons.id, saved[0].id));
    expect(kept!.playlistId).toBeNull();
  });

  it('public sermons show a scheduled sermon when its time comes, with nothing written in between', async () => {
    const a = makeChurch();
    const hour = 3_600_000;
    await call(t.app, 'POST', '/content/sermons', {
      token: a.token(EDIT),
      body: [
        { title: 'Last week', publishDate: new Date(Date.now() - 7 * 24 * hour).toISOString() },
        { title: 'Tonight', publishDate: new Date(Date.now() + hour).toISOString() },
      ],
    });
    const titles = async () => (await call(t.app, 'GET', `/content/sermons/public/${a.churchId}`)).json().map((s: { title: string }) => s.title);
    expect(await titles()).toEqual(['Last week']);
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 2 * hour);
    try {
      expect(await titles()).toEqual(['Tonight', 'Last week']);
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses a playlist of another church', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [list] = (await call(t.app, 'POST', '/content/playlists', { token: b.token(EDIT), body: { title: 'Theirs' } })).json();
    const res = await call(t.app, 'POST', '/content/sermons', { token: a.token(EDIT), body: { title: 'x', playlistId: list.id } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('playlistId');
  });

  it('video host routes answer 400 naming the setting when the host is not configured', async () => {
    const a = makeChurch();
    const lookup = await call(t.app, 'GET', '/content/sermons/lookup?videoType=youtube&videoData=abc');
    expect(lookup.statusCode).toBe(400);
    expect(lookup.json().errors[0].param).toBe('YOUTUBE_API_KEY');
    expect((await call(t.app, 'GET', '/content/sermons/lookup?videoType=vimeo&videoData=1')).json().errors[0].param).toBe('VIMEO_ACCESS_TOKEN');
    expect((await call(t.app, 'GET', '/content/sermons/lookup?videoType=tiktok&videoData=1')).json().errors[0].param).toBe('videoType');
    expect((await call(t.app, 'GET', '/content/sermons/lookup')).statusCode).toBe(400);
    expect((await call(t.app, 'GET', '/content/sermons/videoHostBImport/chan', { token: a.token() })).json().errors[0].param).toBe('VIMEO_ACCESS_TOKEN');
    expect((await call(t.app, 'GET', '/content/sermons/outline?url=notaurl', { token: a.token() })).statusCode).toBe(400);
    // PraiseCharts without its consumer key: a 400 naming the setting
    const praise = await call(t.app, 'GET', '/content/praiseCharts/search?q=grace', { token: a.token() });
    expect(praise.statusCode).toBe(400);
    expect(praise.json().errors[0].param).toBe('SHEET_MUSIC_CONSUMER_KEY');
    const authUrl = await call(t.app, 'GET', '/content/praiseCharts/authUrl?returnUrl=https%3A%2F%2Fa.example%2F');
    expect(authUrl.statusCode).toBe(400);
    expect(authUrl.json().errors[0].param).toBe('SHEET_MUSIC_CONSUMER_KEY');
    // Without an AI key nothing is fetched: the missing setting is named first.
    const noKey = await call(t.app, 'GET', `/content/sermons/outline?url=${encodeURIComponent('https://example.org/')}`, { token: a.token() });
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json().errors[0].param).toBe('OPENAI_API_KEY');
  });
});

describe('sermons and playlists as the staff app saves them', () => {
  it('B1Admin:src/sermons/components/PlaylistEdit.tsx and SermonEdit.tsx save new rows as built from Sermons.tsx defaults', async () => {
    const a = makeChurch();
    // Sermons.handleAddPlaylist, then PlaylistEdit.onValid posts it in an array.
    const [playlist] = (
      await call(t.app, 'POST', '/content/playlists', {
        token: a.token(EDIT),
        body: [{ id: '', churchId: a.churchId, title: 'Romans', description: '', publishDate: '2026-02-01T00:00:00.000Z', thumbnail: '' }],
      })
    ).json();
    expect(playlist).toMatchObject({ id: expect.any(String), title: 'Romans', description: '', isPublic: true });
    // Sermons.handleAdd (duration in seconds, an empty video), then SermonEdit.onValid with the form's values.
    const res = await call(t.app, 'POST', '/content/sermons', {
      token: a.token(EDIT),
      body: [
        {
          churchId: a.churchId,
          duration: 5400,
          videoType: 'youtube',
          videoData: 'abc123',
          title: 'Grace',
          permanentUrl: false,
          playlistId: playlist.id,
          publishDate: '2026-02-08T00:00:00.000Z',
          description: '',
          thumbnail: '',
          videoUrl: 'https://www.youtube.com/embed/abc123?autoplay=1&rel=0&showinfo=0&controls=0',
        },
        { churchId: a.churchId, duration: 5400, videoType: 'youtube', videoData: '', title: 'Live', permanentUrl: true, playlistId: '', thumbnail: '', videoUrl: '' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [grace, live] = res.json();
    expect(grace).toMatchObject({ playlistId: playlist.id, duration: 5400, permanentUrl: false, videoUrl: expect.stringContaining('abc123') });
    expect(live).toMatchObject({ playlistId: null, permanentUrl: true, duration: 5400 });
    // Sermons.tsx lists the sermons and the playlists they go in.
    expect((await call(t.app, 'GET', '/content/sermons', { token: a.token() })).json().map((x: { id: string }) => x.id).sort()).toEqual([grace.id, live.id].sort());
    expect((await call(t.app, 'GET', '/content/playlists', { token: a.token() })).json().map((x: { id: string }) => x.id)).toEqual([playlist.id]);
  });
});

describe('streaming services', () => {
  it('saves and deletes, clearing the blocked IPs in messaging each time', async () => {
    const a = makeChurch();
    const before = t.internal.calls.length;
    const res = await call(t.app, 'POST', '/content/streamingServices', {
      token: a.token(EDIT),
      body: { label: 'Sunday', serviceTime: new Date(Date.now() + 86400_000).toISOString(), duration: 5400, chatBefore: 600, recurring: true },
    });
    expect(res.statusCode).toBe(200);
    const [svc] = res.json();
    expect(svc).toMatchObject({ label: 'Sunday', duration: 5400, recurring: true, churchId: a.churchId });
    expect(t.internal.calls.slice(before)).toEqual([{ module: 'messaging', method: 'POST', path: '/messaging/internal/blockedips/clear', body: [{ churchId: a.churchId, serviceId: svc.id }] }]);

    expect((await call(t.app, 'POST', '/content/streamingServices', { token: a.token(EDIT), body: { label: 'no time' } })).json().errors[0].param).toBe('serviceTime');
    expect((await call(t.app, 'POST', '/content/streamingServices', { token: a.token(), body: { serviceTime: '2026-01-01' } })).statusCode).toBe(401);

    const chat = await call(t.app, 'GET', `/content/streamingServices/${svc.id}/hostChat`, { token: a.token(['Chat.Host']) });
    expect(chat.statusCode).toBe(200);
    expect(t.app.deps.secrets.decrypt(chat.json().room)).toBe(`${svc.id}host`);
    expect((await call(t.app, 'GET', `/content/streamingServices/${svc.id}/hostChat`, { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/content/streamingServices/${svc.id}/hostChat`, { token: makeChurch().token(['Chat.Host']) })).statusCode).toBe(404);

    const n = t.internal.calls.length;
    expect((await call(t.app, 'DELETE', `/content/streamingServices/${svc.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(t.internal.calls.slice(n)).toEqual([{ module: 'messaging', method: 'POST', path: '/messaging/internal/blockedips/clear', body: [{ churchId: a.churchId, serviceId: svc.id }] }]);
    expect((await call(t.app, 'DELETE', `/content/streamingServices/${svc.id}`, { token: a.token(EDIT) })).statusCode).toBe(404);
  });

  it('the list removes expired one-time services and advances recurring ones to their next week', async () => {
    const a = makeChurch();
    const weekAgo = new Date(Date.now() - 7 * 86400_000 - 3600_000);
    await call(t.app, 'POST', '/content/streamingServices', {
      token: a.token(EDIT),
      body: [
        { label: 'Once', serviceTime: weekAgo.toISOString(), recurring: false },
        { label: 'Weekly', serviceTime: weekAgo.toISOString(), recurring: true, duration: 3600 },
      ],
    });
    const list = (await call(t.app, 'GET', '/content/streamingServices', { token: a.token() })).json();
    expect(list.map((s: { label: string }) => s.label)).toEqual(['Weekly']);
    const next = new Date(list[0].serviceTime);
    expect(next.getTime()).toBeGreaterThan(Date.now() - 3600_000);
    expect(next.getTime() - weekAgo.getTime()).toBe(14 * 86400_000);
  });
});

describe('streaming services as the staff app saves and lists them', () => {
  // B1Admin:src/sermons/components/Services.tsx starts a new service with these values (seconds), and
  // B1Admin:src/sermons/components/ServiceEdit.tsx posts it back in an array with the minutes typed times 60.
  const fromTheApp = (serviceTime: Date) => ({
    churchId: 'ignored',
    serviceTime: serviceTime.toISOString(),
    chatBefore: 600,
    chatAfter: 900,
    duration: 3600,
    earlyStart: 300,
    provider: 'youtube_live',
    providerKey: 'abc123',
    recurring: false,
    timezoneOffset: 300,
    videoUrl: 'https://www.youtube.com/embed/abc123?autoplay=1',
    label: 'Sunday Service',
    sermonId: 'latest',
  });

  it('B1Admin:src/sermons/components/ServiceEdit.tsx saves duration 3600 and the chat times in seconds, and reads them back', async () => {
    const a = makeChurch();
    const start = new Date(Date.now() + 2 * 86400_000);
    const res = await call(t.app, 'POST', '/content/streamingServices', { token: a.token(EDIT), body: [fromTheApp(start)] });
    expect(res.statusCode).toBe(200);
    const [svc] = res.json();
    expect(svc).toEqual({
      id: expect.any(String),
      churchId: a.churchId,
      label: 'Sunday Service',
      serviceTime: start.toISOString(),
      earlyStart: 300,
      duration: 3600,
      chatBefore: 600,
      chatAfter: 900,
      provider: 'youtube_live',
      providerKey: 'abc123',
      videoUrl: 'https://www.youtube.com/embed/abc123?autoplay=1',
      timezoneOffset: 300,
      recurring: false,
      sermonId: 'latest',
    });
    const [row] = await t.app.db.select().from(streamingServices).where(eq(streamingServices.id, svc.id));
    expect(row).toMatchObject({ duration: 3600, chatBefore: 600, chatAfter: 900, earlyStart: 300, serviceTime: start });

    // B1Admin:src/sermons/components/Services.tsx adds timezoneOffset minutes to each listed serviceTime to
    // show the time as it was entered: the list answers the stored time moved back by it.
    const [listed] = (await call(t.app, 'GET', '/content/streamingServices', { token: a.token() })).json();
    expect(listed).toMatchObject({ id: svc.id, duration: 3600, chatBefore: 600, chatAfter: 900, earlyStart: 300 });
    expect(new Date(listed.serviceTime).getTime() + listed.timezoneOffset * 60_000).toBe(start.getTime());

    // The editor posts the service back with the real time it computed: nothing moves.
    const back = { ...listed, serviceTime: new Date(new Date(listed.serviceTime).getTime() + listed.timezoneOffset * 60_000).toISOString(), chatAfter: 1200 };
    const [again] = (await call(t.app, 'POST', '/content/streamingServices', { token: a.token(EDIT), body: [back] })).json();
    expect(again).toMatchObject({ id: svc.id, serviceTime: start.toISOString(), chatAfter: 1200, duration: 3600 });
  });

  it('a service lasts its duration in seconds plus the chat after it', async () => {
    const a = makeChurch();
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await call(t.app, 'POST', '/content/streamingServices', {
      token: a.token(EDIT),
      body: [
        { ...fromTheApp(ago(65)), label: 'in its chat', timezoneOffset: null }, // 60 min long, chat 15 more
        { ...fromTheApp(ago(80)), label: 'over', timezoneOffset: null },
        { ...fromTheApp(ago(30)), label: 'on air', duration: 1800 + 120, chatAfter: 0, timezoneOffset: null },
      ],
    });
    const list = (await call(t.app, 'GET', '/content/streamingServices', { token: a.token() })).json();
    expect(list.map((s: { label: string }) => s.label)).toEqual(['in its chat', 'on air']);
  });

  it('refuses a duration that is not a number of seconds, naming it', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'POST', '/content/streamingServices', { token: a.token(EDIT), body: [{ ...fromTheApp(new Date()), duration: 'long' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[0].duration', location: 'body' });
    const tooLong = await call(t.app, 'POST', '/content/streamingServices', { token: a.token(EDIT), body: { ...fromTheApp(new Date()), duration: 24 * 3600 + 1 } });
    expect(tooLong.json().errors[0]).toMatchObject({ param: 'duration' });
  });
});

describe('GET /content/preview/data/:key', () => {
  it('assembles tabs, links, services and sermons by subdomain in one answer', async () => {
    await t.app.db.insert(links).values([
      { id: crypto.randomUUID(), churchId: grace.churchId, category: 'streamingTab', text: 'Bible', url: 'https://bible.example', sort: 1 },
      { id: crypto.randomUUID(), churchId: grace.churchId, category: 'streamingLink', text: 'Give', url: 'https://give.example', sort: 1 },
      { id: crypto.randomUUID(), churchId: grace.churchId, category: 'website', text: 'Home', url: '/', sort: 1 },
    ]);
    await call(t.app, 'POST', '/content/streamingServices', { token: grace.token(EDIT), body: { label: 'Live', serviceTime: new Date(Date.now() + 3600_000).toISOString() } });
    await call(t.app, 'POST', '/content/sermons', { token: grace.token(EDIT), body: { title: 'Latest', publishDate: '2026-01-01T00:00:00Z' } });
    const res = await call(t.app, 'GET', '/content/preview/data/grace');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.church).toMatchObject({ id: grace.churchId, name: 'Grace Church' });
    expect(body.tabs.map((l: { text: string }) => l.text)).toEqual(['Bible']);
    expect(body.links.map((l: { text: string }) => l.text)).toEqual(['Give']);
    expect(body.services.map((s: { label: string }) => s.label)).toEqual(['Live']);
    expect(body.sermons.map((s: { title: string }) => s.title)).toEqual(['Latest']);
    expect((await call(t.app, 'GET', '/content/preview/data/unknown')).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/preview/data/bad%20key')).statusCode).toBe(400);
  });

  it('B1App:src/helpers/StreamingServiceHelper.ts reads churchId, buttons, tabs {type, data}, and each service\'s times as m:ss with its sermon', async () => {
    await t.app.db.insert(links).values([
      { id: crypto.randomUUID(), churchId: grace.churchId, category: 'streamingTab', text: 'Notes', url: 'https://notes.example', linkType: 'url', linkData: 'x', icon: 'edit', sort: 2 },
    ]);
    const [, chosen] = (
      await call(t.app, 'POST', '/content/sermons', {
        token: grace.token(EDIT),
        body: [
          { title: 'Older', publishDate: '2025-01-01T00:00:00Z', videoType: 'youtube', videoData: 'old1', duration: 1800 },
          { title: 'Chosen', publishDate: '2024-01-01T00:00:00Z', videoType: 'vimeo', videoData: '42', duration: 2700 },
        ],
      })
    ).json();
    const start = new Date(Date.now() + 2 * 3600_000);
    await call(t.app, 'POST', '/content/streamingServices', {
      token: grace.token(EDIT),
      body: [
        { label: 'Picked', serviceTime: start.toISOString(), earlyStart: 600, chatBefore: 75, chatAfter: 900, duration: 3600, sermonId: chosen.id },
        { label: 'Latest', serviceTime: new Date(start.getTime() + 3600_000).toISOString(), sermonId: 'latest' },
      ],
    });
    const body = (await call(t.app, 'GET', '/content/preview/data/grace')).json();
    expect(body.churchId).toBe(grace.churchId);
    expect(body.buttons).toEqual([{ text: 'Give', url: 'https://give.example' }]);
    expect(body.tabs.find((x: { text: string }) => x.text === 'Notes')).toMatchObject({ text: 'Notes', url: 'https://notes.example', icon: 'edit', type: 'url', data: 'x' });
    const picked = body.services.find((x: { label: string }) => x.label === 'Picked');
    expect(picked).toMatchObject({ serviceTime: start.toISOString(), earlyStart: '10:00', chatBefore: '1:15', chatAfter: '15:00', duration: 3600 });
    expect(picked.sermon).toMatchObject({ id: chosen.id, title: 'Chosen', videoType: 'vimeo', duration: 2700, videoUrl: expect.stringContaining('vimeo') });
    const latest = body.services.find((x: { label: string }) => x.label === 'Latest');
    expect(latest).toMatchObject({ earlyStart: '0:00', chatBefore: '0:00', chatAfter: '0:00' });
    // "latest": the church's newest sermon already published ('Latest', saved by the test above).
    expect(latest.sermon.title).toBe('Latest');
    // every key the page reads (the response schema keeps only what it lists)
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(body)).toEqual(['buttons', 'church', 'churchId', 'links', 'sermons', 'services', 'tabs']);
    expect(keys(body.church)).toEqual(['id', 'name', 'subDomain']);
    expect(keys(body.tabs[0])).toEqual(['data', 'icon', 'id', 'linkData', 'linkType', 'sort', 'text', 'type', 'url']);
    expect(keys(picked)).toEqual(['chatAfter', 'chatBefore', 'duration', 'earlyStart', 'id', 'label', 'provider', 'providerKey', 'recurring', 'sermon', 'sermonId', 'serviceId', 'serviceTime', 'timezoneOffset', 'videoUrl']);
    expect(keys(picked.sermon)).toEqual(['description', 'duration', 'id', 'publishDate', 'thumbnail', 'title', 'videoData', 'videoType', 'videoUrl']);
    expect(body.sermons.map(keys)).toEqual(body.sermons.map(() => keys(picked.sermon)));
  });

  it('B1App StreamChatManager: the service id the page opens its chat with is sealed with the shared key (messaging decrypts it), and hostChat takes it', async () => {
    const [svc] = (await call(t.app, 'POST', '/content/streamingServices', { token: grace.token(EDIT), body: [{ label: 'Chat me', serviceTime: new Date(Date.now() + 5 * 3600_000).toISOString() }] })).json();
    const body = (await call(t.app, 'GET', '/content/preview/data/grace')).json();
    const service = body.services.find((x: { label: string }) => x.label === 'Chat me');
    expect(service.serviceId).toBe(svc.id);
    expect(service.id).not.toBe(svc.id);
    // what messaging's GET /conversations/current/:churchId/streamingLive/:contentId does with it
    expect(t.app.deps.secrets.decrypt(service.id)).toBe(svc.id);
    expect(service.id).toMatch(/^[A-Za-z0-9._-]+$/); // the page puts it in a path as it is
    // StreamChatManager.checkHost: /streamingServices/{that id}/hostChat
    const host = await call(t.app, 'GET', `/content/streamingServices/${service.id}/hostChat`, { token: grace.token(['Chat.Host']) });
    expect(host.statusCode).toBe(200);
    expect(t.app.deps.secrets.decrypt(host.json().room)).toBe(`${svc.id}host`);
    expect((await call(t.app, 'GET', `/content/streamingServices/${svc.id}/hostChat`, { token: grace.token(['Chat.Host']) })).statusCode).toBe(200);
    // another church's service, sealed or not, and a forged value are not found; without Chat.Host, 401
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/content/streamingServices/${service.id}/hostChat`, { token: other.token(['Chat.Host']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/streamingServices/v1.forged.value/hostChat', { token: grace.token(['Chat.Host']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/streamingServices/${service.id}/hostChat`, { token: grace.token() })).statusCode).toBe(401);
  });
});
