import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { arrangements, songDetailLinks, songDetails } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];

/** A global detail as the provider import writes it. */
async function globalDetail(title = 'Great Is Thy Faithfulness') {
  const [row] = await t.app.db.insert(songDetails).values({ id: randomUUID(), churchId: null, sheetMusicId: `pc-${randomUUID()}`, title, artist: 'Chisholm' }).returning();
  return row!;
}

describe('shared song details (POST /content/songDetails)', () => {
  it('a church’s change of a global detail becomes its own copy; the global row and other churches are untouched', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const global = await globalDetail();
    const [song] = (await call(t.app, 'POST', '/content/songs', { token: a.token(EDIT), body: { name: 'Faithfulness' } })).json();
    const [arr] = (await call(t.app, 'POST', '/content/arrangements', { token: a.token(EDIT), body: { songId: song.id, songDetailId: global.id, name: 'Default' } })).json();
    const [globalLink] = await t.app.db.insert(songDetailLinks).values({ id: randomUUID(), churchId: null, songDetailId: global.id, service: 'youtube', url: 'https://youtu.be/x' }).returning();

    const res = await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: [{ id: global.id, title: 'Vandalised', artist: 'Someone' }] });
    expect(res.statusCode).toBe(200);
    const [copy] = res.json();
    expect(copy.id).not.toBe(global.id);
    expect(copy).toMatchObject({ title: 'Vandalised', artist: 'Someone', sheetMusicId: global.sheetMusicId });
    // the global row is as the provider wrote it, for every church
    expect((await call(t.app, 'GET', `/content/songDetails/${global.id}`, { token: b.token() })).json()).toMatchObject({ title: 'Great Is Thy Faithfulness', artist: 'Chisholm' });
    // church A's arrangement now uses its copy, which carries the global links as its own
    const [moved] = await t.app.db.select().from(arrangements).where(eq(arrangements.id, arr.id));
    expect(moved!.songDetailId).toBe(copy.id);
    const copyLinks = (await call(t.app, 'GET', `/content/songDetailLinks/songDetail/${copy.id}`, { token: a.token() })).json();
    expect(copyLinks).toEqual([expect.objectContaining({ service: 'youtube', url: 'https://youtu.be/x' })]);
    expect(copyLinks[0].id).not.toBe(globalLink!.id);
    // church B cannot see, change or link church A's copy
    expect((await call(t.app, 'GET', `/content/songDetails/${copy.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/songDetails', { token: b.token(), body: [{ id: copy.id, title: 'Mine now' }] })).statusCode).toBe(404);
    const link = await call(t.app, 'POST', '/content/songDetailLinks', { token: b.token(), body: [{ songDetailId: copy.id, service: 'spotify' }] });
    expect(link.statusCode).toBe(400);
    expect(link.json().errors[0].param).toBe('[0].songDetailId');
    const [still] = await t.app.db.select().from(songDetails).where(eq(songDetails.id, copy.id));
    expect(still!.title).toBe('Vandalised');
  });

  it('a server admin changes a global detail in place', async () => {
    const a = makeChurch();
    const global = await globalDetail('Old title');
    const admin = a.token([], { serverAdmin: true });
    const res = await call(t.app, 'POST', '/content/songDetails', { token: admin, body: [{ id: global.id, title: 'Fixed title' }] });
    expect(res.json()[0]).toMatchObject({ id: global.id, title: 'Fixed title' });
  });

  it('a new detail is the church’s own', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [own] = (await call(t.app, 'POST', '/content/songDetails', { token: a.token(), body: [{ title: 'House song' }] })).json();
    const [row] = await t.app.db.select().from(songDetails).where(eq(songDetails.id, own.id));
    expect(row!.churchId).toBe(a.churchId);
    expect((await call(t.app, 'GET', `/content/songDetails/${own.id}`, { token: b.token() })).statusCode).toBe(404);
  });
});

describe('song detail links (POST, DELETE /content/songDetailLinks)', () => {
  it('another church never changes or deletes a church’s link; global links are a server admin’s', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const global = await globalDetail();
    const [mine] = (await call(t.app, 'POST', '/content/songDetailLinks', { token: a.token(), body: [{ songDetailId: global.id, service: 'youtube', url: 'https://youtu.be/a' }] })).json();
    expect(mine.songDetailId).toBe(global.id);
    // B sees the global detail but not A's link on it
    expect((await call(t.app, 'GET', `/content/songDetailLinks/songDetail/${global.id}`, { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/content/songDetailLinks/${mine.id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/songDetailLinks', { token: b.token(), body: [{ id: mine.id, songDetailId: global.id, service: 'spam', url: 'https://evil.example' }] })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${mine.id}`, { token: b.token() })).statusCode).toBe(404);
    const [kept] = await t.app.db.select().from(songDetailLinks).where(eq(songDetailLinks.id, mine.id));
    expect(kept).toMatchObject({ service: 'youtube', url: 'https://youtu.be/a', churchId: a.churchId });

    const [shared] = await t.app.db.insert(songDetailLinks).values({ id: randomUUID(), churchId: null, songDetailId: global.id, service: 'spotify', url: 'https://open.spotify.com/x' }).returning();
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${shared!.id}`, { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/content/songDetailLinks', { token: a.token(), body: [{ id: shared!.id, songDetailId: global.id, service: 'spotify', url: 'https://evil.example' }] })).statusCode).toBe(401);
    expect((await t.app.db.select().from(songDetailLinks).where(eq(songDetailLinks.id, shared!.id)))[0]!.url).toBe('https://open.spotify.com/x');
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${shared!.id}`, { token: a.token([], { serverAdmin: true }) })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/content/songDetailLinks/${mine.id}`, { token: a.token() })).statusCode).toBe(200);
  });
});

describe('look-ups by a caller’s string', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('GET /content/gallery/stock/%s is an empty folder, not a 500', async (folder) => {
    const res = await call(t.app, 'GET', `/content/gallery/stock/${folder}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });
});
