import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { arrangementKeys, arrangements, songDetails, songs } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];

async function songWithArrangement(c: ReturnType<typeof makeChurch>, name = 'Amazing Grace') {
  const [song] = (await call(t.app, 'POST', '/content/songs', { token: c.token(EDIT), body: { name } })).json();
  const [detail] = (await call(t.app, 'POST', '/content/songDetails', { token: c.token(), body: { title: name, artist: 'John Newton' } })).json();
  const [arr] = (await call(t.app, 'POST', '/content/arrangements', { token: c.token(EDIT), body: { songId: song.id, songDetailId: detail.id, name: 'Default', lyrics: 'Amazing grace', presenterAppId: `fs-${name}` } })).json();
  const [key] = (await call(t.app, 'POST', '/content/arrangementKeys', { token: c.token(EDIT), body: { arrangementId: arr.id, keySignature: 'G', shortDescription: 'Original' } })).json();
  return { song, detail, arr, key };
}

describe('songs, arrangements and keys', () => {
  it('saves, reads and lists per church with the spec permissions', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const { song, detail, arr, key } = await songWithArrangement(a);
    expect(song).toMatchObject({ name: 'Amazing Grace', churchId: a.churchId });
    expect(arr).toMatchObject({ songId: song.id, songDetailId: detail.id });
    expect(key).toMatchObject({ arrangementId: arr.id, keySignature: 'G' });

    expect((await call(t.app, 'GET', `/content/songs/${song.id}`, { token: a.token() })).json().name).toBe('Amazing Grace');
    expect((await call(t.app, 'GET', `/content/songs/${song.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/content/songs', { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/content/songs', { token: a.token(EDIT) })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/content/songs', { token: b.token(EDIT) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/content/arrangements/${arr.id}`, { token: a.token() })).json().name).toBe('Default');
    expect((await call(t.app, 'GET', `/content/arrangements/song/${song.id}`, { token: a.token(EDIT) })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/content/arrangements/songDetail/${detail.id}`, { token: a.token(EDIT) })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/content/arrangements/songDetail/${detail.id}`, { token: b.token(EDIT) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/content/arrangements', { token: a.token(EDIT) })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/content/arrangementKeys/${key.id}`, { token: a.token() })).json().keySignature).toBe('G');
    expect((await call(t.app, 'GET', `/content/arrangementKeys/arrangement/${arr.id}`, { token: a.token(EDIT) })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/content/arrangementKeys', { token: a.token(EDIT) })).json()).toHaveLength(1);

    const search = (await call(t.app, 'GET', '/content/songs/search?q=newton', { token: a.token() })).json();
    // every key of a hit (the response schema keeps only what it lists)
    expect(search).toEqual([
      { id: song.id, name: 'Amazing Grace', dateAdded: song.dateAdded, arrangementId: arr.id, arrangementName: 'Default', songDetailId: detail.id, title: 'Amazing Grace', artist: 'John Newton', thumbnail: null },
    ]);
    expect((await call(t.app, 'GET', '/content/songs/search?q=newton', { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/content/songs/search', { token: a.token() })).json().errors[0].param).toBe('q');
  });

  it('refuses references to another church’s song or arrangement, naming the field; nothing written', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const theirs = await songWithArrangement(b, 'Theirs');
    const res = await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: [{ songId: theirs.song.id, name: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].songId');
    const key = await call(t.app, 'POST', '/content/arrangementKeys', { token: a.token(EDIT), body: { arrangementId: theirs.arr.id, keySignature: 'C' } });
    expect(key.json().errors[0].param).toBe('arrangementId');
    expect(await t.app.db.select().from(arrangements).where(eq(arrangements.churchId, a.churchId))).toHaveLength(0);
    expect(await t.app.db.select().from(arrangementKeys).where(eq(arrangementKeys.churchId, a.churchId))).toHaveLength(0);
  });

  it('deleting the last arrangement deletes its keys and the song', async () => {
    const a = makeChurch();
    const { song, arr } = await songWithArrangement(a);
    const [second] = (await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: { songId: song.id, name: 'Acoustic' } })).json();
    expect((await call(t.app, 'DELETE', `/content/arrangements/${arr.id}`, { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/arrangements/${arr.id}`, { token: a.token(EDIT) })).json()).toEqual({ songDeleted: false });
    expect(await t.app.db.select().from(arrangementKeys).where(eq(arrangementKeys.arrangementId, arr.id))).toHaveLength(0);
    expect((await call(t.app, 'DELETE', `/content/arrangements/${second.id}`, { token: a.token(EDIT) })).json()).toEqual({ songDeleted: true });
    expect(await t.app.db.select().from(songs).where(eq(songs.id, song.id))).toHaveLength(0);
  });

  it('deleting a song deletes its arrangements and keys; another church gets 404', async () => {
    const a = makeChurch();
    const { song, arr } = await songWithArrangement(a);
    expect((await call(t.app, 'DELETE', `/content/songs/${song.id}`, { token: makeChurch().token(EDIT) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/songs/${song.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(arrangements).where(eq(arrangements.id, arr.id))).toHaveLength(0);
    expect(await t.app.db.select().from(arrangementKeys).where(eq(arrangementKeys.arrangementId, arr.id))).toHaveLength(0);
  });

  it('the public presenter reads a key with its arrangement, song and detail', async () => {
    const a = makeChurch();
    const { key, song, detail } = await songWithArrangement(a);
    const res = await call(t.app, 'GET', `/content/arrangementKeys/presenter/${a.churchId}/${key.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ arrangementKey: { id: key.id }, song: { id: song.id }, songDetail: { id: detail.id, artist: 'John Newton' }, arrangement: { lyrics: 'Amazing grace' } });
    expect((await call(t.app, 'GET', `/content/arrangementKeys/presenter/${makeChurch().churchId}/${key.id}`)).statusCode).toBe(404);
  });
});

describe('presentation-app import', () => {
  it('imports in one transaction, reuses arrangements already imported, and reports the missing ids', async () => {
    const a = makeChurch();
    const body = [
      { presenterAppId: 'fs-1', title: 'How Great', artist: 'Tomlin', lyrics: 'la', keySignature: 'A' },
      { presenterAppId: 'fs-2', title: 'Holy Holy Holy' },
    ];
    const first = await call(t.app, 'POST', '/content/songs/import', { token: a.token(), body });
    expect(first.statusCode).toBe(200);
    expect(first.json().map((r: { created: boolean }) => r.created)).toEqual([true, true]);
    const again = (await call(t.app, 'POST', '/content/songs/import', { token: a.token(), body })).json();
    expect(again.map((r: { created: boolean }) => r.created)).toEqual([false, false]);
    expect(await t.app.db.select().from(songs).where(eq(songs.churchId, a.churchId))).toHaveLength(2);
    expect(await t.app.db.select().from(arrangementKeys).where(eq(arrangementKeys.churchId, a.churchId))).toHaveLength(1);

    const bad = await call(t.app, 'POST', '/content/songs/import', { token: a.token(), body: [{ presenterAppId: 'fs-3', title: 'ok' }, { presenterAppId: 'fs-4' }] });
    expect(bad.json().errors[0].param).toBe('[1].title');
    expect(await t.app.db.select().from(songs).where(eq(songs.churchId, a.churchId))).toHaveLength(2);

    const missing = await call(t.app, 'POST', '/content/arrangements/presenterApp/missing', { token: a.token(), body: { presenterAppIds: ['fs-1', 'fs-9', 'fs-2', 'fs-8'] } });
    expect(missing.json()).toEqual(['fs-9', 'fs-8']);
    expect((await call(t.app, 'POST', '/content/arrangements/presenterApp/missing', { token: makeChurch().token(), body: { presenterAppIds: ['fs-1'] } })).json()).toEqual(['fs-1']);
    expect((await call(t.app, 'POST', '/content/arrangements/presenterApp/missing', { token: a.token(), body: {} })).json().errors[0].param).toBe('presenterAppIds');
  });
});

describe('song details and links', () => {
  it('a church edits its own details, with who did it recorded; another church neither sees nor changes them; the church list shows the details it uses', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [detail] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: { title: 'Shared', bpm: 72 } })).json();
    expect(detail.createdBy).toContain(a.churchId);
    expect((await call(t.app, 'POST', '/content/songDetails', { token: b.token(), body: { id: detail.id, title: 'Shared', artist: 'Someone' } })).statusCode).toBe(404);
    const [updated] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: { id: detail.id, title: 'Shared', artist: 'Someone' } })).json();
    expect(updated).toMatchObject({ id: detail.id, artist: 'Someone', bpm: 72 });
    expect((await call(t.app, 'GET', `/content/songDetails/${detail.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: { id: crypto.randomUUID(), title: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: { bpm: 'fast' } })).statusCode).toBe(400);

    const { detail: used } = await songWithArrangement(a, 'Used by A');
    expect((await call(t.app, 'GET', '/content/songDetails', { token: a.token() })).json().map((d: { id: string }) => d.id)).toEqual([used.id]);

    const [link] = (await call(t.app, 'POST', '/content/songDetailLinks', { token: a.token(), body: { songDetailId: detail.id, service: 'spotify', serviceKey: 'sp1', url: 'https://open.spotify.com/track/sp1' } })).json();
    expect((await call(t.app, 'GET', `/content/songDetailLinks/${link.id}`, { token: a.token() })).json().service).toBe('spotify');
    expect((await call(t.app, 'GET', `/content/songDetailLinks/songDetail/${detail.id}`, { token: a.token() })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/content/songDetailLinks/songDetail/${detail.id}`, { token: b.token() })).json()).toEqual([]);
    const badLink = await call(t.app, 'POST', '/content/songDetailLinks', { token: a.token(), body: { songDetailId: crypto.randomUUID(), service: 'x' } });
    expect(badLink.json().errors[0].param).toBe('songDetailId');
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${link.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${link.id}`, { token: a.token() })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${link.id}`, { token: a.token() })).statusCode).toBe(404);
  });

  it('the library (GET /content/songDetails) carries each song’s id as songId, where B1Admin’s songs list links', async () => {
    const a = makeChurch();
    const b = makeChurch();
    // B1Admin SongsPage: CreateSongDetail posts the detail, then handleAdd posts the song, its "(Default)" arrangement and key
    const [detail] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(EDIT), body: [{ title: 'Frolic', artist: '', seconds: 0 }] })).json();
    const [song] = (await call(t.app, 'POST', '/content/songs', { token: a.token(EDIT), body: [{ name: 'Frolic', dateAdded: new Date().toISOString() }] })).json();
    const [arr] = (await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: [{ songId: song.id, songDetailId: detail.id, name: '(Default)', lyrics: '' }] })).json();
    await call(t.app, 'POST', '/content/arrangementKeys', { token: a.token(EDIT), body: [{ arrangementId: arr.id, keySignature: '', shortDescription: 'Default' }] });
    // a second arrangement on another detail (SongPage's "Add Arrangement") does not list the song twice
    const [other] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(EDIT), body: [{ title: 'Frolic (live)', artist: 'Band' }] })).json();
    await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: [{ songId: song.id, songDetailId: other.id, name: 'Band', lyrics: '' }] });
    const { song: grace, detail: graceDetail } = await songWithArrangement(a, 'Amazing Grace');

    const res = await call(t.app, 'GET', '/content/songDetails', { token: a.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { ...graceDetail, songId: grace.id },
      { ...detail, songId: song.id },
    ]);
    // the link the list builds opens the song
    const linked = await call(t.app, 'GET', `/content/songs/${res.json()[1].songId}`, { token: a.token() });
    expect(linked.json()).toMatchObject({ id: song.id, name: 'Frolic' });
    expect((await call(t.app, 'GET', '/content/songDetails', { token: b.token() })).json()).toEqual([]);
  });

  it('B1Admin SongSearchDialog / SongDetailLinks / Arrangement: the provider id travels as praiseChartsId, in and out', async () => {
    const a = makeChurch();
    const pcId = `pc-${crypto.randomUUID()}`;
    await t.app.db.insert(songDetails).values({ id: crypto.randomUUID(), sheetMusicId: pcId, title: 'Known', artist: 'Someone' });
    // the search result the dialog picked, posted as it is
    const created = await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(EDIT), body: { praiseChartsId: pcId, title: 'Known', artist: 'Someone', album: 'A', thumbnail: 'https://img.example/a.jpg', seconds: 0 } });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ title: 'Known', sheetMusicId: pcId, praiseChartsId: pcId });
    const detail = created.json();
    expect((await call(t.app, 'GET', `/content/songDetails/${detail.id}`, { token: a.token() })).json()).toMatchObject({ id: detail.id, praiseChartsId: pcId });
    // SongDetailsEdit posts back what it read: the church's copy keeps the provider id
    const [copy] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(EDIT), body: [{ ...detail, title: 'Known (ours)' }] })).json();
    expect(copy).toMatchObject({ title: 'Known (ours)', sheetMusicId: pcId, praiseChartsId: pcId });
    const [song] = (await call(t.app, 'POST', '/content/songs', { token: a.token(EDIT), body: [{ name: 'Known' }] })).json();
    await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: [{ songId: song.id, songDetailId: copy.id, name: '(Default)', lyrics: '' }] });
    expect((await call(t.app, 'GET', '/content/songDetails', { token: a.token() })).json()).toEqual([expect.objectContaining({ id: copy.id, songId: song.id, praiseChartsId: pcId })]);
    const none = await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(EDIT), body: { title: 'no id' } });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].param).toBe('sheetMusicId');
  });

  it('create from a sheet-music id returns an existing detail, and names the setting when it would have to fetch', async () => {
    const a = makeChurch();
    await t.app.db.insert(songDetails).values({ id: crypto.randomUUID(), sheetMusicId: 'pc-1', title: 'Known' });
    const known = await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(), body: { sheetMusicId: 'pc-1' } });
    expect(known.json().title).toBe('Known');
    const unknown = await call(t.app, 'POST', '/content/songDetails/create', { token: a.token(), body: { sheetMusicId: 'pc-2' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].param).toBe('SHEET_MUSIC_CONSUMER_KEY');
  });
});
