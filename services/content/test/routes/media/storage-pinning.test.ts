import dns from 'node:dns';
import { eq } from 'drizzle-orm';
import { call, fakeServer, type FakeRequest } from '@church/common/testing';
import { files } from '../../../src/db/media';
import { makeChurch, useContent } from '../../setup';

const BUCKET = 'own-bucket';
const objects = new Map<string, string>();
function s3(req: FakeRequest) {
  if (req.method === 'PUT') {
    objects.set(req.path, req.body);
    return { status: 200, headers: { etag: '"e"' } };
  }
  return { status: 405 };
}

// the platform's rule: a church's storage must be at a public address (no STORAGE_ALLOW_PRIVATE_ENDPOINTS)
const t = useContent({
  fakes: async () => {
    const server = await fakeServer(s3);
    return { server, close: () => server.close() };
  },
});
const EDIT = ['Content.Edit'];
afterEach(() => jest.restoreAllMocks());

describe('a church’s own S3 storage is connected to at the address that was checked', () => {
  it('a name that passed the check as public and resolves to a private address when connected to is refused, the loopback store never reached', async () => {
    const a = makeChurch();
    const token = a.token(EDIT);
    // When the settings are saved (and the client built) the name answers a public address; the connection's
    // own resolution of `localhost` answers loopback, as a rebinding DNS would.
    const real = dns.promises.lookup;
    jest.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, opts: dns.LookupAllOptions) =>
      host === 'localhost' ? Promise.resolve([{ address: '93.184.216.34', family: 4 }]) : real(host, opts)) as typeof dns.promises.lookup);
    const port = new URL(t.server.url).port;
    const endpoint = `http://localhost:${port}`;
    const saved = await call(t.app, 'POST', '/content/storage/providers', {
      token,
      body: [{ provider: 's3', enabled: true, apiKey: 'AKIDOWN', apiSecret: 'own-secret', settings: JSON.stringify({ endpoint, region: 'us-east-1', bucket: BUCKET, publicBase: `https://files.example.org/${BUCKET}` }) }],
    });
    expect(saved.statusCode).toBe(200);

    const before = t.server.seen.length;
    const up = await call(t.app, 'POST', '/content/files', { token, body: { contentType: 'website', contentId: 'site', fileName: 'own.txt', fileType: 'text/plain', fileContents: Buffer.from('private?').toString('base64') } });
    expect(up.statusCode).toBe(400);
    expect(up.json().errors[0]).toMatchObject({ param: 'settings.endpoint' });
    expect(t.server.seen.length).toBe(before);
    expect(objects.size).toBe(0);
    expect(await t.app.db.select().from(files).where(eq(files.churchId, a.churchId))).toEqual([]);
  });

  it('an endpoint written as a private address is refused when saved', async () => {
    const a = makeChurch();
    const before = t.server.seen.length;
    const res = await call(t.app, 'POST', '/content/storage/providers', {
      token: a.token(EDIT),
      body: [{ provider: 's3', enabled: true, settings: JSON.stringify({ endpoint: t.server.url, bucket: BUCKET, publicBase: `https://files.example.org/${BUCKET}` }) }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].settings');
    expect(t.server.seen.length).toBe(before);
  });
});
