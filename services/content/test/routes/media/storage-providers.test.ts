import { eq } from 'drizzle-orm';
import { call, fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';
import { files, storageProviders } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

const BUCKET = 'own-bucket';
/** A loopback S3-compatible store (path-style): PUT stores, GET reads, DELETE removes. */
const objects = new Map<string, string>();
function s3(req: FakeRequest): FakeAnswer {
  if (req.path === '/oauth/token') {
    const form = new URLSearchParams(req.body);
    if (form.get('code') !== 'good-code' || form.get('client_secret') !== 'drive-secret') return { status: 400, body: { error: 'invalid_grant' } };
    return { body: { access_token: 'drive-access', refresh_token: 'drive-refresh', expires_in: 3600 } };
  }
  if (req.method === 'PUT') {
    objects.set(req.path, req.body);
    return { status: 200, headers: { etag: '"e"' } };
  }
  if (req.method === 'GET') return objects.has(req.path) ? { body: objects.get(req.path)! } : { status: 404, body: '<Error><Code>NoSuchKey</Code></Error>' };
  if (req.method === 'DELETE') {
    objects.delete(req.path);
    return { status: 204 };
  }
  return { status: 405 };
}

const t = useContent({
  fakes: async () => {
    const server = await fakeServer(s3);
    const config = {
      STORAGE_ALLOW_PRIVATE_ENDPOINTS: 'true',
      BYOS_GOOGLEDRIVE_CLIENT_ID: 'drive-client',
      BYOS_GOOGLEDRIVE_CLIENT_SECRET: 'drive-secret',
      BYOS_GOOGLEDRIVE_TOKEN_URL: `${server.url}/oauth/token`,
    };
    return { server, config, close: () => server.close() };
  },
});
const EDIT = ['Content.Edit'];
const s3Row = () => ({ provider: 's3', enabled: true, apiKey: 'AKIDOWN', apiSecret: 'own-secret', settings: JSON.stringify({ endpoint: t.server.url, region: 'us-east-1', bucket: BUCKET, publicBase: `${t.server.url}/${BUCKET}` }) });

describe('a church’s own S3-compatible storage (/content/storage, B1Admin StorageSettingsEdit.tsx)', () => {
  it('keeps the credentials encrypted, never answers them, and writes the church’s new files there', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const token = a.token(EDIT);
    expect((await call(t.app, 'GET', '/content/storage/status', { token: a.token() })).json()).toEqual({ provider: 'default', usedBytes: 0 });
    const saved = await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ churchId: a.churchId, ...s3Row() }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual([expect.objectContaining({ provider: 's3', enabled: true, apiKey: '********', apiSecret: '********', connected: false })]);
    expect(saved.body).not.toContain('own-secret');
    const [row] = await t.app.db.select().from(storageProviders).where(eq(storageProviders.churchId, a.churchId));
    expect(row!.apiSecret).not.toContain('own-secret');
    expect(t.app.deps.secrets.decrypt(row!.apiSecret!)).toBe('own-secret');
    expect((await call(t.app, 'GET', '/content/storage/providers', { token })).body).not.toContain('AKIDOWN');
    expect((await call(t.app, 'GET', '/content/storage/providers', { token: b.token(EDIT) })).json()).toEqual([]);

    // the masked values posted back (the screen's save) keep the stored ones
    await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ ...(await call(t.app, 'GET', '/content/storage/providers', { token })).json()[0] }] });
    const [again] = await t.app.db.select().from(storageProviders).where(eq(storageProviders.churchId, a.churchId));
    expect(t.app.deps.secrets.decrypt(again!.apiKey!)).toBe('AKIDOWN');

    const up = await call(t.app, 'POST', '/content/files', { token, body: { contentType: 'website', contentId: 'site', fileName: 'own.txt', fileType: 'text/plain', fileContents: Buffer.from('in my bucket').toString('base64') } });
    expect(up.statusCode).toBe(200);
    const put = t.server.seen.filter((r) => r.method === 'PUT').at(-1)!;
    expect(put.path.startsWith(`/${BUCKET}/${a.churchId}/files/website/site/`)).toBe(true);
    expect(String(put.headers.authorization)).toContain('AKIDOWN');
    expect(up.json()[0].contentPath).toBe(`${t.server.url}${put.path}`);
    expect(await (await fetch(up.json()[0].contentPath)).text()).toBe('in my bucket');
    expect((await call(t.app, 'GET', '/content/storage/status', { token: a.token() })).json()).toEqual({ provider: 's3', usedBytes: 12 });
    // another church's files stay on the platform's storage
    await call(t.app, 'POST', '/content/files', { token: b.token(EDIT), body: { contentType: 'website', contentId: 'site', fileName: 'b.txt', fileContents: Buffer.from('b').toString('base64') } });
    expect(t.server.seen.filter((r) => r.method === 'PUT')).toHaveLength(1);

    // a direct upload is a signed PUT address of the church's bucket
    const signed = (await call(t.app, 'POST', '/content/files/postUrl', { token, body: { contentType: 'website', contentId: 'site', fileName: 'big.txt', fileType: 'text/plain', size: 3 } })).json();
    expect(signed).toMatchObject({ method: 'PUT', contentPath: `${t.server.url}/${BUCKET}/${signed.key}` });
    expect(signed.url).toContain('X-Amz-Signature');

    // removing the provider while files are in it only disables it; the files are still deleted through it
    const id = saved.json()[0].id;
    expect((await call(t.app, 'DELETE', `/content/storage/providers/${id}`, { token: b.token(EDIT) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/storage/providers/${id}`, { token })).json()).toEqual({ disabled: true, fileCount: 2 });
    expect((await call(t.app, 'GET', '/content/storage/status', { token: a.token() })).json().provider).toBe('default');
    expect((await call(t.app, 'DELETE', `/content/files/${up.json()[0].id}`, { token })).statusCode).toBe(200);
    expect(t.server.seen.at(-1)).toMatchObject({ method: 'DELETE', path: put.path });
    await t.app.db.delete(files).where(eq(files.churchId, a.churchId));
    expect((await call(t.app, 'DELETE', `/content/storage/providers/${id}`, { token })).json()).toEqual({});
    expect(await t.app.db.select().from(storageProviders).where(eq(storageProviders.churchId, a.churchId))).toEqual([]);
  });

  it('refuses bad settings with a 400 naming them, a missing permission with 401', async () => {
    const a = makeChurch();
    const token = a.token(EDIT);
    const noBucket = await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ provider: 's3', enabled: true, settings: '{}' }] });
    expect(noBucket.json().errors[0]).toMatchObject({ param: '[0].settings' });
    expect((await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ provider: 's3', settings: 'nope' }] })).json().errors[0].param).toBe('[0].settings');
    expect((await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ provider: 'ftp' }] })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/content/storage/providers', { token, body: [{ provider: 'googledrive', enabled: true }] })).json().errors[0].param).toBe('[0].provider');
    expect((await call(t.app, 'POST', '/content/storage/providers', { token: a.token(), body: [s3Row()] })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/content/storage/providers', { token: a.token() })).statusCode).toBe(401);
    expect(await t.app.db.select().from(storageProviders).where(eq(storageProviders.churchId, a.churchId))).toEqual([]);
  });

  it('links a drive by the OAuth code exchange (tokens encrypted, answered as connected)', async () => {
    const a = makeChurch();
    const body = { provider: 'googledrive', code: 'good-code', codeVerifier: 'v'.repeat(43), redirectUri: 'https://admin.example/relay' };
    const res = await call(t.app, 'POST', '/content/storage/exchange', { token: a.token(EDIT), body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ provider: 'googledrive', connected: true, enabled: false });
    expect(res.body).not.toContain('drive-access');
    const sent = new URLSearchParams(t.server.seen.filter((r) => r.path === '/oauth/token').at(-1)!.body);
    expect(sent.get('code_verifier')).toBe('v'.repeat(43));
    const [row] = await t.app.db.select().from(storageProviders).where(eq(storageProviders.churchId, a.churchId));
    expect(t.app.deps.secrets.decrypt(row!.accessToken!)).toBe('drive-access');
    expect((await call(t.app, 'POST', '/content/storage/exchange', { token: a.token(EDIT), body: { ...body, code: 'bad' } })).statusCode).toBe(502);
    const dropbox = await call(t.app, 'POST', '/content/storage/exchange', { token: a.token(EDIT), body: { ...body, provider: 'dropbox' } });
    expect(dropbox.statusCode).toBe(400);
    expect(dropbox.json().errors[0].param).toBe('BYOS_DROPBOX_CLIENT_ID');
  });
});
