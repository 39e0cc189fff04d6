import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';
import { files } from '../../../src/db/media';
import { signingKey } from '../../../src/domain/media/s3-post';
import { makeChurch, useContent } from '../../setup';

const BUCKET = 'church-files';
const SECRET = 's3-secret';

/** The fields and file of a multipart/form-data body (text files only, as in these tests). */
function parseForm(req: FakeRequest): Record<string, string> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(req.headers['content-type']))!;
  const parts = req.body.split(`--${boundary[1] ?? boundary[2]}`).slice(1, -1);
  const out: Record<string, string> = {};
  for (const part of parts) {
    const [head, ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
    const name = /name="([^"]+)"/.exec(head!)![1]!;
    out[name] = rest.join('\r\n\r\n').replace(/\r\n$/, '');
  }
  return out;
}

/**
 * A loopback S3-compatible object store (path-style): PUT and browser POST forms store (a form's SigV4 policy
 * is checked as S3 checks it: signature, key, content type, size range, expiry), GET reads, DELETE removes.
 */
const objects = new Map<string, { body: string; type: string }>();
function s3(req: FakeRequest): FakeAnswer {
  if (req.method === 'POST' && req.path === `/${BUCKET}`) {
    const form = parseForm(req);
    const day = form['x-amz-credential']!.split('/')[1]!;
    const expected = createHmac('sha256', signingKey(SECRET, day, 'us-east-1')).update(form.policy!).digest('hex');
    if (expected !== form['x-amz-signature']) return { status: 403, body: '<Error><Code>SignatureDoesNotMatch</Code></Error>' };
    const policy = JSON.parse(Buffer.from(form.policy!, 'base64').toString('utf8')) as { expiration: string; conditions: Array<Record<string, string> | [string, number, number]> };
    if (new Date(policy.expiration) < new Date()) return { status: 403, body: '<Error><Code>AccessDenied</Code></Error>' };
    for (const c of policy.conditions) {
      if (Array.isArray(c)) {
        const size = Buffer.byteLength(form.file ?? '');
        if (size < c[1] || size > c[2]) return { status: 400, body: '<Error><Code>EntityTooLarge</Code></Error>' };
      } else {
        const [k, v] = Object.entries(c)[0]!;
        if (k !== 'bucket' && form[k] !== v) return { status: 403, body: `<Error><Code>AccessDenied</Code><Message>${k}</Message></Error>` };
      }
    }
    objects.set(`/${BUCKET}/${form.key}`, { body: form.file!, type: form['Content-Type']! });
    return { status: 204 };
  }
  if (req.method === 'PUT') {
    objects.set(req.path, { body: req.body, type: String(req.headers['content-type'] ?? '') });
    return { status: 200, headers: { etag: '"abc"' } };
  }
  if (req.method === 'GET') {
    const o = objects.get(req.path);
    return o ? { body: o.body, headers: { 'content-type': o.type } } : { status: 404, body: '<Error><Code>NoSuchKey</Code></Error>' };
  }
  if (req.method === 'DELETE') {
    objects.delete(req.path);
    return { status: 204 };
  }
  return { status: 405 };
}

/** Sends a signed form the way a browser does: the fields, then the file. */
function upload(signed: { url: string; fields: Record<string, string> }, body: string, type: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(signed.fields)) form.append(k, v);
  form.append('file', new Blob([body], { type }), 'upload');
  return fetch(signed.url, { method: 'POST', body: form });
}

const t = useContent({
  fakes: async () => {
    const server = await fakeServer(s3);
    return {
      server,
      config: { S3_BUCKET: BUCKET, S3_ENDPOINT: server.url, S3_ACCESS_KEY_ID: 'AKIDS3', S3_SECRET_ACCESS_KEY: SECRET, FILES_BASE_URL: `${server.url}/${BUCKET}` },
      close: () => server.close(),
    };
  },
});
const EDIT = ['Content.Edit'];

describe('object storage on S3 (loopback S3-compatible fake)', () => {
  it('a signed upload form: upload with it, read the file back through the files routes, delete file and object', async () => {
    const a = makeChurch();
    const YOUTH = t.membership.group(a.churchId);
    const res = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { contentType: 'group', contentId: YOUTH, fileName: 'Retreat plan.txt', fileType: 'text/plain', size: 13 } });
    expect(res.statusCode).toBe(200);
    const signed = res.json();
    expect(signed).toMatchObject({ method: 'POST', url: `${t.server.url}/${BUCKET}`, fields: { key: signed.key, 'Content-Type': 'text/plain' } });
    const policy = JSON.parse(Buffer.from(signed.fields.policy, 'base64').toString());
    expect(policy.conditions).toContainEqual(['content-length-range', 13, 13]);

    // The store refuses another size or another content type under this signature.
    expect((await upload(signed, 'a much longer file than declared', 'text/plain')).status).toBe(400);
    expect((await upload({ ...signed, fields: { ...signed.fields, 'Content-Type': 'text/html' } }, 'Retreat plan!', 'text/html')).status).toBe(403);
    expect((await upload({ ...signed, fields: { ...signed.fields, key: `${a.churchId}/elsewhere.txt` } }, 'Retreat plan!', 'text/plain')).status).toBe(403);
    expect((await upload(signed, 'Retreat plan!', 'text/plain')).status).toBe(204);
    // listed once saved (the apps post the file without its contents after the upload)
    expect((await call(t.app, 'GET', `/content/files/group/${YOUTH}`, { token: a.token() })).json()).toEqual([]);
    await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ id: signed.id, contentType: 'group', contentId: YOUTH, fileName: 'Retreat plan.txt', size: 13 }] });

    const [file] = (await call(t.app, 'GET', `/content/files/group/${YOUTH}`, { token: a.token() })).json();
    expect(file).toMatchObject({ id: signed.id, fileName: 'Retreat plan.txt', fileType: 'text/plain', size: 13, contentPath: signed.contentPath });
    const back = await fetch((await call(t.app, 'GET', `/content/files/${file.id}`, { token: a.token() })).json().contentPath);
    expect(await back.text()).toBe('Retreat plan!');
    expect(back.headers.get('content-type')).toBe('text/plain');

    expect((await call(t.app, 'DELETE', `/content/files/${file.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(t.server.seen.at(-1)).toMatchObject({ method: 'DELETE', path: `/${BUCKET}/${signed.key}` });
    expect(objects.has(`/${BUCKET}/${signed.key}`)).toBe(false);
    expect(await t.app.db.select().from(files).where(eq(files.id, file.id))).toHaveLength(0);
  });

  it('B1App GroupResourcesTab.tsx and B1Admin CustomFileUpload.tsx: postUrl with mimeType, the upload, then the file saved without its contents', async () => {
    const a = makeChurch();
    const STUDY = t.membership.group(a.churchId);
    const signed = (await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'notes.txt', contentType: 'group', contentId: STUDY, size: 5, mimeType: 'text/plain' } })).json();
    expect(signed).toMatchObject({ key: expect.any(String), fields: { 'Content-Type': 'text/plain' } });
    expect((await upload(signed, 'notes', 'text/plain')).status).toBe(204);
    const res = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ fileName: 'notes.txt', fileType: 'text/plain', size: 5, contentType: 'group', contentId: STUDY }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: signed.id, fileName: 'notes.txt', size: 5, contentPath: signed.contentPath })]);
    const [row] = await t.app.db.select().from(files).where(eq(files.id, signed.id));
    expect(row).toMatchObject({ uploaded: true, storageKey: signed.key });
    expect((await call(t.app, 'GET', `/content/files/group/${STUDY}`, { token: a.token() })).json()).toHaveLength(1);
  });

  it('B1Admin FilesManager.tsx / FileUpload.tsx: postUrl {fileName, contentType: "website", contentId: ""} without a size, the form posted as the app does, then the file saved', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'Bulletin.txt', contentType: 'website', contentId: '' } });
    expect(res.statusCode).toBe(200);
    const signed = res.json();
    expect(signed).toMatchObject({ method: 'POST', key: `${a.churchId}/files/website/${a.churchId}/${signed.id}/Bulletin.txt`, url: `${t.server.url}/${BUCKET}` });
    // the store takes at most what the site library has left (all 100 MB here)
    const policy = JSON.parse(Buffer.from(signed.fields.policy, 'base64').toString());
    expect(policy.conditions).toContainEqual(['content-length-range', 0, 100 * 1024 * 1024]);
    // FileUpload.tsx: acl and the browser's Content-Type first, then the answer's fields, then the file
    const form = new FormData();
    form.append('acl', 'public-read');
    form.append('Content-Type', 'application/octet-stream');
    for (const [k, v] of Object.entries(signed.fields as Record<string, string>)) form.append(k, v);
    form.append('file', new Blob(['Sunday bulletin']), 'Bulletin.txt');
    expect((await fetch(signed.url, { method: 'POST', body: form })).status).toBe(204);
    // FilesManager.tsx sums the listed sizes: a waiting upload (its reservation) is not listed until saved
    expect((await call(t.app, 'GET', '/content/files', { token: a.token(EDIT) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/content/storage/status', { token: a.token() })).json()).toEqual({ provider: 'default', usedBytes: 0 });
    const saved = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ size: 15, fileType: '', fileName: 'Bulletin.txt', contentType: 'website', contentId: '' }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual([expect.objectContaining({ id: signed.id, fileName: 'Bulletin.txt', contentType: 'website', contentId: a.churchId, size: 15, contentPath: signed.contentPath })]);
    expect((await call(t.app, 'GET', '/content/files', { token: a.token(EDIT) })).json().map((f: { id: string; size: number }) => [f.id, f.size])).toEqual([[signed.id, 15]]);
    expect((await call(t.app, 'GET', '/content/storage/status', { token: a.token() })).json()).toEqual({ provider: 'default', usedBytes: 15 });
    expect(await t.app.db.select({ uploaded: files.uploaded, size: files.size }).from(files).where(eq(files.id, signed.id))).toEqual([{ uploaded: true, size: 15 }]);
    // a file's item other than the website must be named
    const group = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'x.txt', contentType: 'group', contentId: '' } });
    expect(group.statusCode).toBe(400);
    expect(group.json().errors[0].param).toBe('contentId');
  });

  it('a postUrl without a size is capped where the file is uploaded: at what the item has left, held while the form is valid', async () => {
    const a = makeChurch();
    const FULL = t.membership.group(a.churchId);
    await t.app.db.insert(files).values({ id: crypto.randomUUID(), churchId: a.churchId, contentType: 'group', contentId: FULL, fileName: 'video.mp4', size: 100 * 1024 * 1024 - 10, storageKey: 'x/y', contentPath: 'http://x/y' });
    const signed = (await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'notes.txt', contentType: 'group', contentId: FULL } })).json();
    expect(JSON.parse(Buffer.from(signed.fields.policy, 'base64').toString()).conditions).toContainEqual(['content-length-range', 0, 10]);
    expect((await upload(signed, 'eleven char', 'application/octet-stream')).status).toBe(400);
    // the waiting upload holds the 10 bytes: nothing more fits until it is saved
    const second = await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'more.txt', contentType: 'group', contentId: FULL } });
    expect(second.statusCode).toBe(400);
    expect(second.json().errors[0].param).toBe('size');
    expect((await upload(signed, 'ten chars!', 'application/octet-stream')).status).toBe(204);
    // saved claiming more than the form let through: refused; with its size: counted at that size
    const lie = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ id: signed.id, size: 11, fileName: 'notes.txt', contentType: 'group', contentId: FULL }] });
    expect(lie.statusCode).toBe(400);
    expect(lie.json().errors[0].param).toBe('[0].size');
    const ok = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: [{ id: signed.id, size: 6, fileName: 'notes.txt', contentType: 'group', contentId: FULL }] });
    expect(ok.json()[0]).toMatchObject({ id: signed.id, size: 6 });
    const after = (await call(t.app, 'POST', '/content/files/postUrl', { token: a.token(EDIT), body: { fileName: 'last.txt', contentType: 'group', contentId: FULL } })).json();
    expect(JSON.parse(Buffer.from(after.fields.policy, 'base64').toString()).conditions).toContainEqual(['content-length-range', 0, 4]);
  });

  it('base64 uploads go to the bucket through the S3 client', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'POST', '/content/files', { token: a.token(EDIT), body: { contentType: 'website', contentId: 'site', fileName: 'a.txt', fileType: 'text/plain', fileContents: Buffer.from('inline').toString('base64') } });
    expect(res.statusCode).toBe(200);
    const put = t.server.seen.filter((r) => r.method === 'PUT').at(-1)!;
    expect(put.body).toBe('inline');
    expect(String(put.headers.authorization)).toContain('AKIDS3');
    expect(await (await fetch(res.json()[0].contentPath)).text()).toBe('inline');
  });

  it('a gallery image gets a signed form too (images only, at most 10 MB)', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'POST', '/content/gallery/requestUpload', { token: a.token(EDIT), body: { folder: 'banners', fileName: 'easter.jpg' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().fields.key).toBe(`${a.churchId}/gallery/banners/easter.jpg`);
    expect((await upload(res.json(), 'jpg bytes', 'image/jpeg')).status).toBe(204);
    expect((await call(t.app, 'GET', '/content/gallery/banners', { token: a.token(EDIT) })).json()[0]).toMatchObject({ image: 'easter.jpg', url: `${t.server.url}/${BUCKET}/${a.churchId}/gallery/banners/easter.jpg` });
    expect((await call(t.app, 'POST', '/content/gallery/requestUpload', { token: a.token(EDIT), body: { folder: 'banners', fileName: 'x.pdf', fileType: 'application/pdf' } })).json().errors[0].param).toBe('fileType');
    expect((await call(t.app, 'DELETE', '/content/gallery/banners/easter.jpg', { token: a.token(EDIT) })).statusCode).toBe(200);
    expect(objects.has(`/${BUCKET}/${a.churchId}/gallery/banners/easter.jpg`)).toBe(false);
  });
});
