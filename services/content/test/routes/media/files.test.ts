import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { files, galleryImages } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** The local store keeps objects under $DATA_DIR/files/<key>. */
const stored = (key: string) => path.join(t.config.DATA_DIR, 'files', key);

describe('files', () => {
  it('uploads base64 files, lists them by content, reads one, and deletes file and stored object', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const YOUTH = t.membership.group(a.churchId);
    const res = await call(t.app, 'POST', '/content/files', {
      token: a.token(EDIT),
      body: [
        { contentType: 'website', contentId: 'site', fileName: 'Bulletin June.pdf', fileContents: `data:application/pdf;base64,${b64('%PDF-1.4 bulletin')}` },
        { contentType: 'group', contentId: YOUTH, fileName: 'notes.txt', fileContents: b64('hello') },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [pdf, notes] = res.json();
    expect(pdf).toMatchObject({ fileName: 'Bulletin June.pdf', fileType: 'application/pdf', size: 17, churchId: a.churchId });
    const [row] = await t.app.db.select().from(files).where(eq(files.id, pdf.id));
    expect(readFileSync(stored(row!.storageKey), 'utf8')).toBe('%PDF-1.4 bulletin');
    expect(pdf.contentPath).toContain(row!.storageKey);

    expect((await call(t.app, 'GET', '/content/files', { token: a.token() })).json().map((f: { id: string }) => f.id)).toEqual([pdf.id]);
    expect((await call(t.app, 'GET', `/content/files/group/${YOUTH}`, { token: a.token() })).json().map((f: { id: string }) => f.id)).toEqual([notes.id]);
    expect((await call(t.app, 'GET', `/content/files/group/${YOUTH}`, { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/content/files/${pdf.id}`, { token: a.token() })).json().fileName).toBe('Bulletin June.pdf');
    expect((await call(t.app, 'GET', `/content/files/${pdf.id}`, { token: b.token() })).statusCode).toBe(404);

    expect((await call(t.app, 'DELETE', `/content/files/${pdf.id}`, { token: b.token(EDIT) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/files/${pdf.id}`, { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/files/${pdf.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(existsSync(stored(row!.storageKey))).toBe(false);
    expect(await t.app.db.select().from(files).where(eq(files.id, pdf.id))).toHaveLength(0);
  });

  it('members of a group manage that group’s files; others get 401', async () => {
    const a = makeChurch();
    const [YOUTH, CHOIR] = [t.membership.group(a.churchId), t.membership.group(a.churchId)];
    t.membership.groupsOf.set(a.personId, [YOUTH]);
    const member = a.token([]);
    const ok = await call(t.app, 'POST', '/content/files', { token: member, body: { contentType: 'group', contentId: YOUTH, fileName: 'a.txt', fileContents: b64('a') } });
    expect(ok.statusCode).toBe(200);
    const facts = t.internal.calls.filter((c) => c.path === '/membership/internal/people/facts').at(-1)!;
    expect(facts.body).toEqual({ churchId: a.churchId, ids: [a.personId] });
    const other = await call(t.app, 'POST', '/content/files', { token: member, body: { contentType: 'group', contentId: CHOIR, fileName: 'a.txt', fileContents: b64('a') } });
    expect(other.statusCode).toBe(401);
    const site = await call(t.app, 'POST', '/content/files', { token: member, body: { contentType: 'website', contentId: YOUTH, fileName: 'a.txt', fileContents: b64('a') } });
    expect(site.statusCode).toBe(401);
    const leader = makeChurch();
    const BAND = t.membership.group(leader.churchId);
    const led = await call(t.app, 'POST', '/content/files', { token: leader.token([], { leaderGroupIds: [BAND] }), body: { contentType: 'group', contentId: BAND, fileName: 'b.txt', fileContents: b64('b') } });
    expect(led.statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/content/files/${ok.json()[0].id}`, { token: member })).statusCode).toBe(200);
  });

  it("refuses files of another church's group (its files and its leaders'), naming contentId; other content types are not a group's", async () => {
    const a = makeChurch();
    // a group of another church: membership's reference check does not find it among the caller's
    const THEIRS = t.membership.group(makeChurch().churchId);
    for (const contentType of ['group', 'groupLeader']) {
      const inline = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ contentType, contentId: THEIRS, fileName: 'a.txt', fileContents: b64('a') }] });
      expect(inline.statusCode).toBe(400);
      expect(inline.json().errors).toEqual([{ msg: 'contentId is not a record of this church', param: '[0].contentId', location: 'body' }]);
      const direct = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { contentType, contentId: THEIRS, fileName: 'a.txt', size: 1 } });
      expect(direct.json().errors).toEqual([{ msg: 'contentId is not a record of this church', param: 'contentId', location: 'body' }]);
    }
    expect(await t.app.db.select().from(files).where(eq(files.churchId, a.churchId))).toEqual([]);
    // a group is named by its id: a name is no group of the church
    const named = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: { contentType: 'group', contentId: 'youth', fileName: 'a.txt', fileContents: b64('a') } });
    expect(named.json().errors[0]).toMatchObject({ param: 'contentId' });
    // an arrangement's files name no group: not asked about
    expect((await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: { contentType: 'arrangement', contentId: THEIRS, fileName: 'a.txt', fileContents: b64('a') } })).statusCode).toBe(200);
  });

  it('refuses more than 100 MB per content item, and bad input, naming the field', async () => {
    const a = makeChurch();
    const BIG = t.membership.group(a.churchId);
    await t.app.db.insert(files).values({ id: crypto.randomUUID(), churchId: a.churchId, contentType: 'group', contentId: BIG, fileName: 'video.mp4', size: 100 * 1024 * 1024 - 3, storageKey: 'x/y', contentPath: 'http://x/y' });
    const over = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: { contentType: 'group', contentId: BIG, fileName: 'more.txt', fileContents: b64('four') } });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0].param).toBe('fileContents');
    const post = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { contentType: 'group', contentId: BIG, fileName: 'x.mp4', size: 200 * 1024 * 1024 } });
    expect(post.json().errors[0].param).toBe('size');
    const missing = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ contentType: 'group', contentId: BIG, fileName: 'x', fileContents: '' }] });
    expect(missing.json().errors[0].param).toBe('[0].fileContents');
    expect((await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: { contentType: '../..', contentId: 'g', fileName: 'x', fileContents: 'aa' } })).json().errors[0].param).toBe('contentType');
  });

  it('B1Admin:src/site/components/CustomFileUpload.tsx on the local store: postUrl answers no key, so the file is sent inline and listed by FilesManager.tsx', async () => {
    const a = makeChurch();
    const params = { fileName: 'Welcome Letter.txt', contentType: 'website', contentId: a.churchId, size: 6, mimeType: 'text/plain' };
    const res = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: params });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    // Nothing is waiting for a direct upload: a save without contents is refused naming fileContents.
    const none = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ size: 6, fileType: 'text/plain', fileName: 'Welcome Letter.txt', contentType: 'website', contentId: a.churchId }] });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0]).toMatchObject({ param: '[0].fileContents' });
    const [saved] = (
      await call(t.app, 'POST', '/content/files', {
        token: a.token(EDIT),
        body: [{ size: 6, fileType: 'text/plain', fileName: 'Welcome Letter.txt', contentType: 'website', contentId: a.churchId, fileContents: `data:text/plain;base64,${b64('hello!')}` }],
      })
    ).json();
    expect(saved).toMatchObject({ fileName: 'Welcome Letter.txt', fileType: 'text/plain', size: 6, contentType: 'website' });
    const listed = (await call(t.app, 'GET', '/content/files', { token: a.token(EDIT) })).json();
    expect(listed.map((f: { id: string; fileName: string; size: number; contentPath: string }) => [f.id, f.fileName, f.size, f.contentPath])).toEqual([[saved.id, 'Welcome Letter.txt', 6, saved.contentPath]]);
    expect(readFileSync(stored((await t.app.db.select().from(files).where(eq(files.id, saved.id)))[0]!.storageKey), 'utf8')).toBe('hello!');
  });
});

describe('gallery and stock', () => {
  it('serves the bundled, freely licensed stock images without a token', async () => {
    const res = await call(t.app, 'GET', '/content/gallery/stock/backgrounds');
    expect(res.statusCode).toBe(200);
    expect(res.json().length).toBeGreaterThan(2);
    expect(res.json()[0]).toMatchObject({ folder: 'backgrounds', url: expect.stringMatching(/^data:image\/svg\+xml;base64,/), license: expect.stringContaining('CC0') });
    expect((await call(t.app, 'GET', '/content/gallery/stock/unknown')).json()).toEqual([]);
  });

  it('stores an inline image on the local store, lists the folder, and deletes image and object', async () => {
    const a = makeChurch();
    const png = `data:image/png;base64,${b64('png!')}`;
    const up = await call(t.app, 'POST', '/content/gallery/requestUpload', { token: a.token(EDIT), body: { folder: 'heroes', fileName: 'Sunrise.png', fileType: 'image/png', fileContents: png } });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toMatchObject({ image: 'Sunrise.png', folder: 'heroes', url: '' });
    const [row] = await t.app.db.select().from(galleryImages).where(eq(galleryImages.churchId, a.churchId));
    expect(readFileSync(stored(row!.storageKey), 'utf8')).toBe('png!');
    expect((await call(t.app, 'GET', '/content/gallery/heroes', { token: a.token(EDIT) })).json().map((i: { image: string }) => i.image)).toEqual(['Sunrise.png']);
    expect((await call(t.app, 'GET', '/content/gallery/heroes', { token: a.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/content/gallery/heroes', { token: makeChurch().token(EDIT) })).json()).toEqual([]);
    const presign = await call(t.app, 'POST', '/content/gallery/requestUpload', { token: a.token(EDIT), body: { folder: 'heroes', fileName: 'x.png' } });
    expect(presign.json().errors[0].param).toBe('S3_BUCKET');
    expect((await call(t.app, 'DELETE', '/content/gallery/heroes/Sunrise.png', { token: makeChurch().token(EDIT) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/content/gallery/heroes/Sunrise.png', { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(existsSync(stored(row!.storageKey))).toBe(false);
  });

  it('stock search names its setting when unconfigured and validates the term', async () => {
    const res = await call(t.app, 'POST', '/content/stock/search', { body: { term: 'church' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('PEXELS_API_KEY');
    expect((await call(t.app, 'POST', '/content/stock/search', { body: {} })).json().errors[0].param).toBe('term');
  });
});
